/**
 * Pruning: removing, in place, every field the schema does not declare (rules in unknown-walk.ts), as
 * Kubernetes does before defaulting, validating and storing. Fields under
 * `x-kubernetes-preserve-unknown-fields` stay; the metadata of embedded resources is pruned to ObjectMeta.
 */
import type { Schema } from './schema.js';
import { walkUnknown } from './unknown-walk.js';

/** Removes undeclared fields from `value` in place. */
export function prune(value: unknown, schema: Schema): void {
  walkUnknown(value, schema, true, null);
}

/** `prune`, also returning the paths it removed (`spec.foo`), in document order. One walk. */
export function pruneReporting(value: unknown, schema: Schema): string[] {
  const out: string[] = [];
  walkUnknown(value, schema, true, out);
  return out;
}
