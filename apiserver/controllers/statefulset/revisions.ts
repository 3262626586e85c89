/**
 * A StatefulSet's ControllerRevisions, after kube 1.32's pkg/controller/history and the revision parts of
 * stateful_set_utils.go:
 * - a revision's `data` is the patch that restores the set's pod template:
 *   `{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,...},...}}}`, as kube writes it;
 * - its hash is FNV-1 (32 bit) over that data as Go's json.Marshal writes a map (keys sorted, `<`, `>`,
 *   `&`, U+2028 and U+2029 escaped), followed by the decimal collision count, written as decimal text and
 *   mapped through apimachinery's SafeEncodeString alphabet (kube's own revisions hash to the same names);
 *   the name is `<set>-<hash>` (the set's name cut to 223 characters), and the hash is also the revision's
 *   `controller.<legacy domain>/hash` label;
 * - labels are the template's, annotations the set's, the controller reference the set;
 * - two revisions are equal when their data is;
 * - revisions sort by `revision`, then creation time, then name.
 * A create that meets an existing revision of the same name with other data bumps the collision count and
 * tries the next name (kube's CreateControllerRevision).
 */
import type { KubeObject } from '../../api/object.js';
import { isObject, type JsonObject } from '../../api/json.js';
import { controllerRefTo } from '../controller-ref.js';
import { STATEFUL_SET_API_VERSION, STATEFUL_SET_KIND, specOf } from './stateful-pods.js';

/** Go's json.Marshal of a decoded JSON value: map keys sorted, HTML-sensitive characters escaped. */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${goString(k)}:${goJson(o[k])}`).join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value);
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** FNV-1, 32 bit (Go's hash/fnv New32). */
export function fnv32(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const b of bytes) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h;
}

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** apimachinery's rand.SafeEncodeString: each byte to a letter or digit that cannot spell words. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += SAFE_ALPHANUMS[b % SAFE_ALPHANUMS.length];
  return out;
}

/**
 * The data as kube's controller serializes it: Go writes a template's ObjectMeta with
 * `"creationTimestamp":null` (a struct member without omitempty). Hashes and comparisons use this form, so
 * a revision's name is the one Kubernetes gives the same template (when the server's defaults are kube's),
 * whether or not a stored revision kept the null.
 */
export function goForm(data: unknown): unknown {
  if (!isObject(data) || !isObject(data.spec) || !isObject(data.spec.template)) return data;
  const template = data.spec.template;
  const metadata = isObject(template.metadata) ? template.metadata : {};
  if (metadata.creationTimestamp !== undefined) return data;
  return { ...data, spec: { ...data.spec, template: { ...template, metadata: { ...metadata, creationTimestamp: null } } } };
}

/** HashControllerRevision: the data's Go JSON, then the collision count (when given) as decimal text. */
export function hashRevisionData(data: unknown, collisionCount?: number): string {
  const enc = new TextEncoder();
  let h = fnv32(enc.encode(goJson(goForm(data))));
  if (collisionCount !== undefined) h = fnv32(enc.encode(String(collisionCount)), h);
  return safeEncodeString(String(h));
}

/** ControllerRevisionName: `<prefix>-<hash>`, the prefix cut so the name stays a valid subdomain. */
export const revisionName = (prefix: string, hash: string): string => `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;

/** getPatch: the data that restores the set's pod template, in kube's form (see goForm). */
export function revisionData(set: KubeObject): JsonObject {
  const template = isObject(specOf(set).template) ? structuredClone(specOf(set).template as JsonObject) : {};
  return goForm({ spec: { template: { ...template, $patch: 'replace' } } }) as JsonObject;
}

/** The revision `revision` of `set` (not yet stored), named and labelled for `collisionCount`. */
export function newRevision(set: KubeObject, revision: number, collisionCount: number, hashLabel: string): KubeObject {
  const data = revisionData(set);
  const template = specOf(set).template;
  const templateLabels = isObject(template) && isObject(template.metadata) && isObject(template.metadata.labels)
    ? (template.metadata.labels as Record<string, string>) : {};
  const hash = hashRevisionData(data, collisionCount);
  const metadata: KubeObject['metadata'] = {
    name: revisionName(set.metadata.name ?? '', hash),
    namespace: set.metadata.namespace ?? '',
    labels: { ...templateLabels, [hashLabel]: hash },
    ownerReferences: [controllerRefTo(set, STATEFUL_SET_API_VERSION, STATEFUL_SET_KIND)],
  };
  const annotations = set.metadata.annotations;
  if (annotations !== undefined && Object.keys(annotations).length > 0) metadata.annotations = { ...annotations };
  return { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata, data, revision };
}

/** The same revision renamed for another collision count (the create loop's next attempt). */
export function renamedFor(rev: KubeObject, setName: string, collisionCount: number, hashLabel: string): KubeObject {
  const hash = hashRevisionData(rev.data, collisionCount);
  return { ...rev, metadata: { ...rev.metadata, name: revisionName(setName, hash), labels: { ...(rev.metadata.labels ?? {}), [hashLabel]: hash } } };
}

/** EqualRevision: the same data (compared as Go would serialize it). */
export const equalRevision = (a: KubeObject, b: KubeObject): boolean => goJson(goForm(a.data)) === goJson(goForm(b.data));

export const revisionNumber = (rev: KubeObject): number => (typeof rev.revision === 'number' ? rev.revision : 0);

/** SortControllerRevisions: by revision, then creation time, then name. */
export function sortRevisions(revisions: KubeObject[]): KubeObject[] {
  return revisions.sort((a, b) => {
    const d = revisionNumber(a) - revisionNumber(b);
    if (d !== 0) return d;
    const ta = a.metadata.creationTimestamp ?? '';
    const tb = b.metadata.creationTimestamp ?? '';
    if (ta !== tb) return ta < tb ? -1 : 1;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

/** nextRevision: one more than the last (sorted) revision's number, 1 for none. */
export const nextRevision = (sorted: readonly KubeObject[]): number => (sorted.length === 0 ? 1 : revisionNumber(sorted[sorted.length - 1]!) + 1);

/** ApplyRevision: the set with the revision's pod template. */
export function applyRevision(set: KubeObject, rev: KubeObject): KubeObject {
  const clone = structuredClone(set);
  const data = isObject(rev.data) && isObject(rev.data.spec) && isObject(rev.data.spec.template) ? structuredClone(rev.data.spec.template) : undefined;
  if (data !== undefined) {
    delete data.$patch;
    if (isObject(data.metadata) && data.metadata.creationTimestamp === null) delete data.metadata.creationTimestamp;
    (clone.spec as JsonObject).template = data;
  }
  return clone;
}
