/**
 * One step of a field path, as sigs.k8s.io/structured-merge-diff names them:
 *
 * - field `f:name` — a field of an object (struct field or map key);
 * - key `k:{"name":"web"}` — an element of a list of type `map`, named by its key fields;
 * - value `v:"a"` — an element of a list of type `set`, named by its value;
 * - index `i:3` — an element of a list by position (decoded and printed, never produced by this server).
 *
 * A path element is kept in its serialized FieldsV1 form (`f:name`, ...): that string is canonical (key
 * fields sorted by name, values as compact JSON), so it serves as the identity of the element in sets.
 */

export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, unknown])[] }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'index'; readonly index: number };

/** A serialized path element (`f:spec`, `k:{"name":"web"}`, `v:"a"`, `i:0`). */
export type PE = string;

/** A path: serialized elements from the root. */
export type Path = readonly PE[];

export class PathElementError extends Error {
  override readonly name = 'PathElementError';
}

/** Compact JSON with object keys sorted (the canonical form of key values and set values). */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

export const fieldPE = (name: string): PE => `f:${name}`;
export const valuePE = (value: unknown): PE => `v:${canonicalJson(value)}`;
export const indexPE = (index: number): PE => `i:${index}`;
export function keyPE(fields: Readonly<Record<string, unknown>>): PE {
  return `k:${canonicalJson(fields)}`;
}

/**
 * Parsed elements by their serialized form. The same few elements (field names, list keys) recur in every
 * request, and parsing `k:`/`v:` JSON dominated the set operations; bounded by clearing when full.
 */
const parsed = new Map<string, PathElement>();
const MAX_PARSED = 50_000;

/** Parses a serialized element; throws PathElementError on anything else. */
export function parsePE(s: string): PathElement {
  let pe = parsed.get(s);
  if (pe === undefined) {
    pe = parseUncached(s);
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(s, pe);
  }
  return pe;
}

function parseUncached(s: string): PathElement {
  const body = s.slice(2);
  switch (s.slice(0, 2)) {
    case 'f:':
      return { kind: 'field', name: body };
    case 'v:':
      return { kind: 'value', value: parseJson(s, body) };
    case 'i:':
      if (!/^(0|[1-9][0-9]*)$/.test(body)) throw new PathElementError(`invalid index in path element ${JSON.stringify(s)}`);
      return { kind: 'index', index: Number(body) };
    case 'k:': {
      const v = parseJson(s, body);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new PathElementError(`key of path element ${JSON.stringify(s)} is not an object`);
      const fields = Object.keys(v)
        .sort()
        .map((k) => [k, (v as Record<string, unknown>)[k]] as const);
      return { kind: 'key', fields };
    }
    default:
      throw new PathElementError(`unknown path element type ${JSON.stringify(s)}`);
  }
}

function parseJson(s: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new PathElementError(`invalid JSON in path element ${JSON.stringify(s)}`);
  }
}

/** Re-serializes an element into canonical form (`k:{"b":1,"a":2}` becomes `k:{"a":2,"b":1}`). */
export function canonicalPE(s: string): PE {
  if (s.startsWith('f:')) return s;
  const pe = parsePE(s);
  switch (pe.kind) {
    case 'field':
      return s;
    case 'value':
      return valuePE(pe.value);
    case 'index':
      return indexPE(pe.index);
    case 'key':
      return keyPE(Object.fromEntries(pe.fields));
  }
}

/** Go's value.ToString for scalars in printed paths: strings quoted, other values as JSON. */
const show = (v: unknown): string => canonicalJson(v);

/**
 * The printed form of a path, as Kubernetes prints it in conflicts: `.spec.containers[name="web"].image`,
 * `.metadata.finalizers[="a"]`, `.items[3]`.
 */
export function pathString(path: Path): string {
  let out = '';
  for (const s of path) {
    const pe = parsePE(s);
    if (pe.kind === 'field') out += `.${pe.name}`;
    else if (pe.kind === 'key') out += `[${pe.fields.map(([k, v]) => `${k}=${show(v)}`).join(',')}]`;
    else if (pe.kind === 'value') out += `[=${show(pe.value)}]`;
    else out += `[${pe.index}]`;
  }
  return out;
}

const kindRank = { field: 0, key: 1, value: 2, index: 3 } as const;

/** Rank of a JSON value's type in structured-merge-diff's value ordering. */
function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  const sa = typeof a === 'string' ? a : canonicalJson(a);
  const sb = typeof b === 'string' ? b : canonicalJson(b);
  return sa === sb ? 0 : sa < sb ? -1 : 1;
}

/** The order of elements in FieldsV1 output: fields, then keys, then values, then indexes. */
export function comparePE(a: PE, b: PE): number {
  if (a === b) return 0;
  if (a.startsWith('f:') && b.startsWith('f:')) return a < b ? -1 : 1;
  const pa = parsePE(a);
  const pb = parsePE(b);
  if (pa.kind !== pb.kind) return kindRank[pa.kind] - kindRank[pb.kind];
  if (pa.kind === 'field' && pb.kind === 'field') return pa.name < pb.name ? -1 : pa.name > pb.name ? 1 : 0;
  if (pa.kind === 'index' && pb.kind === 'index') return pa.index - pb.index;
  if (pa.kind === 'value' && pb.kind === 'value') return compareValues(pa.value, pb.value);
  if (pa.kind === 'key' && pb.kind === 'key') {
    const n = Math.min(pa.fields.length, pb.fields.length);
    for (let i = 0; i < n; i++) {
      const [ka, va] = pa.fields[i]!;
      const [kb, vb] = pb.fields[i]!;
      if (ka !== kb) return ka < kb ? -1 : 1;
      const c = compareValues(va, vb);
      if (c !== 0) return c;
    }
    return pa.fields.length - pb.fields.length;
  }
  return 0;
}
