/**
 * `metadata.managedFields` for Update operations (create, update, patch, status), kept correct now and
 * completed by the server-side apply issue.
 *
 * Simplification (documented): fields are tracked as kube's FieldsV1 trees, but every array is one atomic
 * leaf (`f:containers: {}`); associative (`k:`) and set (`v:`) list entries coming from clients are kept
 * as opaque path elements but never produced here. The set of an Update is computed as kube does: the
 * manager gains every field it added or changed, every other manager loses those, and fields that no
 * longer exist leave every set; its `time` moves only when it gained something, so a no-op write stays a
 * no-op. Fields the server owns are never tracked: apiVersion, kind, and metadata name, namespace, uid,
 * resourceVersion, generation, creation/deletion timestamps, managedFields, selfLink. On the main resource
 * of a kind with a status sub-resource `status` is not tracked; on `/status` only `status` is.
 *
 * Client input: absent managedFields keep the live ones; a list of exactly one empty entry resets them
 * (kube's documented reset); a malformed list is ignored (the live ones are kept), as kube does.
 */
import type { KubeObject, ManagedFieldsEntry } from '../../api/object.js';
import { isObject, jsonEqual, type JsonObject } from '../patch/json-value.js';

const SEP = '\u0001';
const META_IGNORED = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
  'generateName',
]);

/** Which top-level fields an operation may own. */
export type FieldScope = 'all' | 'no-status' | 'status-only';

export interface ManagedFieldsUpdate {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time: string;
  readonly scope: FieldScope;
}

type FieldSet = Set<string>;

function topLevelAllowed(key: string, scope: FieldScope): boolean {
  if (key === 'apiVersion' || key === 'kind') return false;
  if (scope === 'no-status') return key !== 'status';
  if (scope === 'status-only') return key === 'status';
  return true;
}

/** Paths of `obj` as a flat set (objects are members too, except the root and `metadata`). */
function collect(obj: KubeObject, scope: FieldScope): FieldSet {
  const out: FieldSet = new Set();
  const walk = (v: unknown, prefix: string): void => {
    if (!isObject(v)) return;
    for (const k in v) {
      const x = v[k];
      if (x === undefined) continue;
      const p = `${prefix}${SEP}f:${k}`;
      out.add(p);
      walk(x, p);
    }
  };
  for (const k in obj) {
    const v = (obj as JsonObject)[k];
    if (v === undefined || !topLevelAllowed(k, scope)) continue;
    if (k === 'metadata') {
      if (!isObject(v)) continue;
      for (const mk in v) {
        if (META_IGNORED.has(mk) || v[mk] === undefined) continue;
        const p = `${SEP}f:metadata${SEP}f:${mk}`;
        out.add(p);
        walk(v[mk], p);
      }
      continue;
    }
    const p = `${SEP}f:${k}`;
    out.add(p);
    walk(v, p);
  }
  return out;
}

/** The value at a collected path (only `f:` elements occur in collected paths). */
function valueAt(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const el of path.split(SEP)) {
    if (el === '') continue;
    if (!isObject(cur)) return undefined;
    cur = cur[el.slice(2)];
  }
  return cur;
}

/** Added or changed paths of `next` relative to `prev`; object nodes present in both do not count. */
function changedPaths(prevSet: FieldSet, nextSet: FieldSet, prev: KubeObject | undefined, next: KubeObject): FieldSet {
  const out: FieldSet = new Set();
  for (const p of nextSet) {
    if (!prevSet.has(p)) {
      out.add(p);
      continue;
    }
    const a = valueAt(prev, p);
    const b = valueAt(next, p);
    if (isObject(a) && isObject(b)) continue;
    if (!jsonEqual(a, b)) out.add(p);
  }
  return out;
}

function decodeFieldsV1(tree: unknown): FieldSet {
  const out: FieldSet = new Set();
  const walk = (node: unknown, prefix: string): void => {
    if (!isObject(node)) return;
    for (const k in node) {
      if (k === '.') {
        if (prefix !== '') out.add(prefix);
        continue;
      }
      const child = node[k];
      const p = `${prefix}${SEP}${k}`;
      if (isObject(child) && Object.keys(child).length === 0) out.add(p);
      else walk(child, p);
    }
  };
  walk(tree, '');
  return out;
}

interface TreeNode {
  member: boolean;
  children: Map<string, TreeNode>;
}

function encodeFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: TreeNode = { member: false, children: new Map() };
  for (const p of set) {
    let node = root;
    for (const el of p.split(SEP)) {
      if (el === '') continue;
      let next = node.children.get(el);
      if (next === undefined) {
        next = { member: false, children: new Map() };
        node.children.set(el, next);
      }
      node = next;
    }
    node.member = true;
  }
  const render = (node: TreeNode): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (node.children.size === 0) return out;
    if (node.member) out['.'] = {};
    for (const k of [...node.children.keys()].sort()) out[k] = render(node.children.get(k)!);
    return out;
  };
  return render(root);
}

function isValidEntry(e: unknown): e is ManagedFieldsEntry {
  if (!isObject(e)) return false;
  const strOpt = (k: string): boolean => e[k] === undefined || typeof e[k] === 'string';
  if (!strOpt('manager') || !strOpt('apiVersion') || !strOpt('time') || !strOpt('subresource')) return false;
  if (e.operation !== 'Apply' && e.operation !== 'Update') return false;
  if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1') return false;
  if (e.fieldsV1 !== undefined && !isObject(e.fieldsV1)) return false;
  for (const k in e) if (!['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'].includes(k)) return false;
  return true;
}

/** What the operation starts from: the client's entries when usable, else the live ones. */
function baseEntries(incoming: unknown, live: readonly ManagedFieldsEntry[] | undefined): readonly ManagedFieldsEntry[] {
  if (incoming === undefined || incoming === null) return live ?? [];
  if (Array.isArray(incoming)) {
    if (incoming.length === 1 && isObject(incoming[0]) && Object.keys(incoming[0]).length === 0) return [];
    if (incoming.every(isValidEntry)) return incoming;
  }
  return live ?? [];
}

const sameIdentity = (e: ManagedFieldsEntry, u: ManagedFieldsUpdate): boolean =>
  e.manager === u.manager && e.operation === 'Update' && (e.subresource ?? '') === u.subresource;

/**
 * Sets `next.metadata.managedFields` for an Update operation from `prev` (undefined for a create) to
 * `next`. `next.metadata.managedFields` holds the client's input on entry.
 */
export function updateManagedFields(prev: KubeObject | undefined, next: KubeObject, u: ManagedFieldsUpdate): void {
  const entries = baseEntries(next.metadata.managedFields, prev?.metadata.managedFields);
  const nextSet = collect(next, u.scope);
  const prevSet = prev === undefined ? new Set<string>() : collect(prev, u.scope);
  const changed = prev === undefined ? nextSet : changedPaths(prevSet, nextSet, prev, next);
  const allNext = u.scope === 'all' ? nextSet : collect(next, 'all');

  const out: ManagedFieldsEntry[] = [];
  let mine: FieldSet | undefined;
  let mineEntry: ManagedFieldsEntry | undefined;
  for (const e of entries) {
    if (sameIdentity(e, u) && mineEntry === undefined) {
      mineEntry = e;
      mine = decodeFieldsV1(e.fieldsV1);
      continue;
    }
    const set = decodeFieldsV1(e.fieldsV1);
    let touched = false;
    for (const p of set) {
      if (changed.has(p) || (p.startsWith(`${SEP}f:`) && !allNext.has(p) && !p.includes(`${SEP}k:`) && !p.includes(`${SEP}v:`))) {
        set.delete(p);
        touched = true;
      }
    }
    if (!touched) out.push(e);
    else if (set.size > 0) out.push({ ...e, fieldsV1: encodeFieldsV1(set) });
  }
  const own = mine ?? new Set<string>();
  for (const p of changed) own.add(p);
  for (const p of own) if (!allNext.has(p) && !p.includes(`${SEP}k:`) && !p.includes(`${SEP}v:`)) own.delete(p);
  if (own.size > 0) {
    const unchanged = mineEntry !== undefined && changed.size === 0 && mineEntry.apiVersion === u.apiVersion;
    out.push(
      unchanged
        ? mineEntry!
        : {
            manager: u.manager,
            operation: 'Update',
            apiVersion: u.apiVersion,
            time: changed.size > 0 || mineEntry?.time === undefined ? u.time : mineEntry.time,
            fieldsType: 'FieldsV1',
            fieldsV1: encodeFieldsV1(own),
            ...(u.subresource === '' ? {} : { subresource: u.subresource }),
          },
    );
  }
  if (out.length > 0) next.metadata.managedFields = out;
  else delete next.metadata.managedFields;
}
