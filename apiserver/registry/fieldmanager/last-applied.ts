/**
 * Kubernetes' bridge between client-side apply (`kubectl apply`, which keeps the applied configuration in
 * the `kubectl.kubernetes.io/last-applied-configuration` annotation) and server-side apply, for the
 * manager `kubectl` only (another manager name opts out):
 *
 * - conflicts on fields whose live value is still the one the last client-side apply set are allowed (the
 *   apply is retried with force), so `kubectl apply --server-side` can take over from `kubectl apply`;
 * - when the object carries the annotation, a server-side apply rewrites it to the applied configuration,
 *   so a later client-side apply computes its patch from what was really applied.
 */
import type { KubeObject } from '../../api/object.js';
import type { Schema } from '../../schema/schema.js';
import { compareObjects } from './compare.js';
import type { Conflict } from './conflicts.js';
import { canonicalJson } from './fieldpath/path-element.js';
import { FieldPathError, toFieldSet } from './fieldpath/from-object.js';
import type { FieldSet } from './fieldpath/set.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
export const KUBECTL_MANAGER = 'kubectl';
/** Kubernetes drops the annotation rather than store one this large. */
const MAX_LAST_APPLIED_BYTES = 256 * 1024;

const lastAppliedOf = (obj: KubeObject | undefined): string | undefined => {
  const v = obj?.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** The fields the last client-side apply set that still hold its values in `live`; undefined without one. */
function allowedFromLastApplied(live: KubeObject | undefined, schema: Schema): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
    const set = toFieldSet(last, schema);
    const c = compareObjects(last, live, schema);
    return set.difference(c.modified).difference(c.removed);
  } catch (err) {
    if (err instanceof SyntaxError || err instanceof FieldPathError) return undefined;
    throw err;
  }
}

/** True when every conflict is on a field the last client-side apply of `kubectl` still holds. */
export function conflictsAllowedByLastApplied(manager: string, live: KubeObject | undefined, conflicts: readonly Conflict[], schema: Schema): boolean {
  if (manager !== KUBECTL_MANAGER) return false;
  const allowed = allowedFromLastApplied(live, schema);
  return allowed !== undefined && conflicts.every((c) => allowed.has(c.path));
}

/** Rewrites the annotation of `result` (when `live` had one) to `config`, as `kubectl` applied it. */
export function syncLastApplied(manager: string, live: KubeObject | undefined, config: KubeObject, result: KubeObject): void {
  if (manager !== KUBECTL_MANAGER || lastAppliedOf(live) === undefined) return;
  const annotations = config.metadata?.annotations;
  let applied: KubeObject = config;
  if (annotations !== undefined && annotations !== null && LAST_APPLIED_ANNOTATION in annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _, ...rest } = annotations;
    applied = { ...config, metadata: { ...config.metadata, annotations: rest } };
  }
  const value = `${canonicalJson(applied)}\n`;
  result.metadata.annotations = { ...(result.metadata.annotations ?? {}) };
  if (Buffer.byteLength(value) > MAX_LAST_APPLIED_BYTES) delete result.metadata.annotations[LAST_APPLIED_ANNOTATION];
  else result.metadata.annotations[LAST_APPLIED_ANNOTATION] = value;
}
