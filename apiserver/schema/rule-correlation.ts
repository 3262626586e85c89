/**
 * Old and new values side by side, for the CEL rules of an update (validate-rules.ts): which old value a
 * node of the new object corresponds to, and whether a node is unchanged (ratcheting, KEP-4008).
 *
 * Two correlations, as Kubernetes 1.32 has them:
 *  - `oldSelf` of a rule: through object properties and map keys, and through lists of type `map` by their
 *    key fields (`mapListLookup`); never through `set`, `atomic` or untyped lists.
 *  - ratcheting (`Correlation`, Kubernetes' `CorrelatedObject` of k8s.io/apiserver/pkg/cel/common): the
 *    same. Lists without `x-kubernetes-list-type` are atomic (Kubernetes' default), so their elements are
 *    not correlated either; such a list is compared as a whole. A node is unchanged when it deep-equals
 *    its old value, compared child by child (so a map-list whose entries only moved is unchanged); a key
 *    the schema does not describe cannot be correlated, which makes its parent "changed".
 */
import type { SchemaView } from '../cel/types/schema-node.js';
import type { SchemaNode } from '../cel/types/schema-node.js';
import { isObject } from '../api/json.js';

type Json = Record<string, unknown>;
const hasOwn = Object.prototype.hasOwnProperty;

/** A scalar key field as text that keeps types apart (`1` and `"1"` are different keys). */
function scalarKey(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'number':
    case 'bigint':
      return `n${String(v)}`;
    case 'boolean':
      return `b${String(v)}`;
    default:
      return undefined; // null, objects and lists are not keys
  }
}

/**
 * Looks up the old element of a list of type `map` with the same key fields as a new element: the first
 * old element with those keys; none when the element lacks a key or a key is not a scalar.
 */
export class MapListLookup {
  private readonly byKey = new Map<string, unknown>();
  private next = 0;

  private constructor(
    private readonly keys: readonly string[],
    private readonly items: readonly unknown[],
  ) {}

  /** undefined when `schema` is not a map-list or `old` is not a non-empty list. */
  static of(schema: SchemaNode, old: unknown, view: SchemaView): MapListLookup | undefined {
    if (!Array.isArray(old) || old.length === 0) return undefined;
    if (view.type(schema) !== 'array' || view.listType(schema) !== 'map') return undefined;
    const keys = view.listMapKeys(schema);
    return keys.length === 0 ? undefined : new MapListLookup(keys, old);
  }

  private keyOf(el: unknown): string | undefined {
    if (!isObject(el)) return undefined;
    let out = '';
    for (const k of this.keys) {
      if (!hasOwn.call(el, k)) return undefined;
      const part = scalarKey(el[k]);
      if (part === undefined) return undefined;
      out += `\u0000${part}`;
    }
    return out;
  }

  get(el: unknown): unknown {
    const key = this.keyOf(el);
    if (key === undefined) return undefined;
    if (this.byKey.has(key)) return this.byKey.get(key);
    // Key old items lazily, stopping at the first match (most updates touch few entries).
    while (this.next < this.items.length) {
      const item = this.items[this.next++];
      const k = this.keyOf(item);
      if (k === undefined) continue;
      if (!this.byKey.has(k)) this.byKey.set(k, item);
      if (k === key) return item;
    }
    return undefined;
  }
}

/**
 * A node of the new object with its correlated old value (both present), for ratcheting. Children and
 * equality are computed on demand and cached, so a rule failing deep in a large object compares only
 * what it needs, once.
 */
export class Correlation {
  private equal: boolean | undefined;
  private children: Map<string | number, Correlation | null> | undefined;
  private mapList: MapListLookup | null | undefined;

  constructor(
    readonly value: unknown,
    readonly old: unknown,
    readonly schema: SchemaNode | undefined,
    private readonly view: SchemaView,
  ) {}

  /** The child at an object or map key; null when it is absent on either side or has no schema. */
  key(field: string): Correlation | null {
    const hit = this.children?.get(field);
    if (hit !== undefined) return hit;
    let res: Correlation | null = null;
    if (this.schema !== undefined && isObject(this.value) && isObject(this.old) && hasOwn.call(this.value, field) && hasOwn.call(this.old, field)) {
      const props = this.view.properties(this.schema);
      const child = props !== undefined && hasOwn.call(props, field) ? props[field] : this.view.additionalProperties(this.schema);
      if (child !== undefined) res = new Correlation(this.value[field], this.old[field], child, this.view);
    }
    (this.children ??= new Map()).set(field, res);
    return res;
  }

  /** The child at a list index: by key for map-lists; never for sets, atomic and untyped (atomic) lists. */
  index(i: number): Correlation | null {
    const hit = this.children?.get(i);
    if (hit !== undefined) return hit;
    let res: Correlation | null = null;
    const items = this.schema === undefined ? undefined : this.view.items(this.schema);
    if (items !== undefined && Array.isArray(this.value) && Array.isArray(this.old) && i < this.value.length) {
      const oldItem = this.oldItemFor(i, this.value, this.old);
      if (oldItem !== undefined && oldItem !== null) res = new Correlation(this.value[i], oldItem, items, this.view);
    }
    (this.children ??= new Map()).set(i, res);
    return res;
  }

  private oldItemFor(i: number, list: readonly unknown[], old: readonly unknown[]): unknown {
    switch (this.view.listType(this.schema!)) {
      case 'map':
        if (this.mapList === undefined) this.mapList = MapListLookup.of(this.schema!, old, this.view) ?? null;
        return this.mapList?.get(list[i]);
      default:
        // set, atomic and no list type (atomic by default): not correlatable by item.
        return undefined;
    }
  }

  /** Whether the value equals its old value (Kubernetes' CachedDeepEqual). */
  unchanged(): boolean {
    if (this.equal === undefined) this.equal = this.compare();
    return this.equal;
  }

  private compare(): boolean {
    const { value, old } = this;
    if ((value === null || value === undefined) && (old === null || old === undefined)) return true;
    if (value === null || value === undefined || old === null || old === undefined) return false;
    if (Array.isArray(value) !== Array.isArray(old)) return false;
    if (Array.isArray(value)) {
      const o = old as unknown[];
      if (value.length !== o.length) return false;
      for (let i = 0; i < value.length; i++) {
        const child = this.index(i);
        if (child === null) {
          // A correlatable (map) list with an entry that has no old counterpart has changed; other lists
          // are compared as a whole.
          return this.mapList === undefined || this.mapList === null ? deepEqual(value, o) : false;
        }
        if (!child.unchanged()) return false;
      }
      return true;
    }
    if (isObject(value) !== isObject(old)) return false;
    if (isObject(value)) {
      const o = old as Json;
      const keys = Object.keys(value);
      if (keys.length !== Object.keys(o).length) return false;
      for (const k of keys) {
        const child = this.key(k);
        if (child === null || !child.unchanged()) return false;
      }
      return true;
    }
    return deepEqual(value, old);
  }
}

/** Structural equality of JSON values (bigint and number of the same value are equal). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    // eslint-disable-next-line eqeqeq -- loose equality compares a bigint with a number by value
    return a == b;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!hasOwn.call(b, k) || !deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}
