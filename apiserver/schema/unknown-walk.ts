/**
 * The one walk behind unknown-field detection and pruning: visits every object field the schema reaches
 * and reports (and optionally removes) the fields it does not declare. Internal to the schema engine; use
 * `unknownFields`, `prune` or `pruneReporting`.
 *
 * Rules (Kubernetes' structural pruning):
 * - `properties` declare fields; `additionalProperties` makes a map (keys are never unknown; a schema
 *   value is walked, `true` stops descent); an object schema with neither declares no field at all.
 * - `x-kubernetes-preserve-unknown-fields` keeps undeclared fields (declared ones are still walked).
 * - `x-kubernetes-embedded-resource` implicitly declares `apiVersion`, `kind` and `metadata`; the latter is
 *   walked as ObjectMeta unless the schema declares it itself.
 * - Values of the wrong type (an array where an object is declared, ...) are left to validation.
 */
import { objectMetaSchema } from './object-meta-schema.js';
import type { Schema } from './schema.js';

const hasOwn = Object.prototype.hasOwnProperty;

export function walkUnknown(value: unknown, schema: Schema, remove: boolean, out: string[] | null): void {
  visit(value, schema, remove, out, []);
}

function visit(value: unknown, schema: Schema, remove: boolean, out: string[] | null, segs: (string | number)[]): void {
  if (value === null || typeof value !== 'object') return;
  if (schema['x-kubernetes-int-or-string'] === true) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined || (schema.type !== undefined && schema.type !== 'array')) return;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v === null || typeof v !== 'object') continue;
      segs.push(i);
      visit(v, items, remove, out, segs);
      segs.pop();
    }
    return;
  }
  if (schema.type !== undefined && schema.type !== 'object') return;
  const obj = value as Record<string, unknown>;
  const props = schema.properties;
  const ap = schema.additionalProperties;
  if (ap === true) return;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  if (preserve && props === undefined && !embedded) return;
  for (const key in obj) {
    let child: Schema | undefined = props !== undefined && hasOwn.call(props, key) ? props[key] : undefined;
    if (child === undefined && embedded) {
      if (key === 'metadata') child = objectMetaSchema;
      else if (key === 'apiVersion' || key === 'kind') continue;
    }
    if (child === undefined && typeof ap === 'object') child = ap;
    if (child === undefined) {
      if (preserve) continue;
      if (out !== null) out.push(render(segs, key));
      if (remove) delete obj[key];
      continue;
    }
    const v = obj[key];
    if (v === null || typeof v !== 'object') continue;
    segs.push(key);
    visit(v, child, remove, out, segs);
    segs.pop();
  }
}

/** `spec.containers[0].foo`: keys joined with dots, indexes in brackets. */
function render(segs: readonly (string | number)[], key: string): string {
  let out = '';
  for (const s of segs) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out === '' ? key : `${out}.${key}`;
}
