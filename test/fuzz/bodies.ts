/**
 * Request bodies: a valid object mutated a few times (fields dropped, duplicated, retyped; huge strings,
 * deep nesting, odd unicode, NaN-like numbers; wrong apiVersion, kind or namespace), then encoded as JSON,
 * YAML or protobuf, or replaced by plain garbage. Patches of the four types are built from the same parts.
 */
import { stringify as toYaml } from 'yaml';
import type { Random } from './random.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const ODD_STRINGS: readonly string[] = [
  '', ' ', '\u0000', '\ud800', '\udfff', '😀', 'e\u0301', '\u202e', '\ufeff', '\u200b', 'a\nb', '${x}', '%00',
  '../..', '/', 'NaN', 'Infinity', '-Infinity', 'null', 'true', '0x10', '1e400', '-0', '9223372036854775808',
  '"', '\\', "'", '*', '!', ',', '=', '==', '!=', 'in', 'notin', '()', 'a b', 'A', '-a', 'a-', 'a.b.', '.',
  'k8s.io/x', 'x/y/z', '<script>', 'ñ', 'Ω', '\t', '100Mi', '1Gi', '-1', '1.5', '0.1m', '999999999999999999999Ei',
];

/** Literal JSON text for values JSON.stringify cannot produce (spliced into the text). */
const RAW_NUMBERS: readonly string[] = ['1e999', '-1e999', '-0', '9007199254740993', '1.0e-400', '123456789012345678901234567890', '0.0000001', '1E2', '-9223372036854775809'];

export function oddString(r: Random): string {
  return r.weighted<() => string>([
    [6, () => r.pick(ODD_STRINGS)],
    [2, () => r.string(1 + r.int(80), 'abcXYZ019-_./:@%é😀\u0000 ')],
    // Sizes around kube's name and label limits; the huge strings are `mutate`'s job (they cost time).
    [1, () => 'x'.repeat(r.pick([63, 64, 253, 254, 256, 1024]))],
  ])();
}

export function oddValue(r: Random, depth = 0): Json {
  return r.weighted<() => Json>([
    [4, () => oddString(r)],
    [2, () => r.pick([0, -1, 1, 2 ** 31, 2 ** 53, -(2 ** 63), 1.5, 1e300, Number.MAX_SAFE_INTEGER])],
    [1, () => null],
    [1, () => r.chance(0.5)],
    [1, () => (depth > 3 ? [] : Array.from({ length: r.int(4) }, () => oddValue(r, depth + 1)))],
    [1, () => (depth > 3 ? {} : Object.fromEntries(Array.from({ length: r.int(4) }, () => [oddString(r), oddValue(r, depth + 1)])))],
  ])();
}

/**
 * Deep nesting is spliced into the encoded text (a marker string here), as building thousands of levels as
 * objects would overflow JSON.stringify and structuredClone in the fuzzer itself.
 */
function nested(depth: number, leaf: Json, asArray: boolean): Json {
  if (depth > 50) return `@@DEEP:${depth}:${asArray ? 'a' : 'o'}@@`;
  let v = leaf;
  for (let i = 0; i < depth; i += 1) v = asArray ? [v] : { a: v };
  return v;
}

/** Paths to every value in `o` (objects and arrays), for picking a place to mutate. */
export function paths(o: Json, prefix: (string | number)[] = [], out: (string | number)[][] = [], limit = 400): (string | number)[][] {
  if (out.length >= limit) return out;
  if (Array.isArray(o)) {
    o.forEach((v, i) => { out.push([...prefix, i]); paths(v, [...prefix, i], out, limit); });
  } else if (o !== null && typeof o === 'object') {
    for (const [k, v] of Object.entries(o)) { out.push([...prefix, k]); paths(v, [...prefix, k], out, limit); }
  }
  return out;
}

function parentOf(o: Json, path: readonly (string | number)[]): { parent: any; key: string | number } | undefined {
  let cur: any = o;
  for (const p of path.slice(0, -1)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[p];
  }
  if (cur === null || typeof cur !== 'object') return undefined;
  return { parent: cur, key: path[path.length - 1]! };
}

/** One random mutation of `o` in place (the root stays an object unless the mutation replaces it). */
export function mutate(r: Random, o: any, namespace: string): any {
  // A body already replaced by a non-object stays as it is.
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return o;
  if (o.metadata === null || typeof o.metadata !== 'object' || Array.isArray(o.metadata)) o.metadata = {};
  const all = paths(o);
  const target = all.length === 0 ? undefined : parentOf(o, r.pick(all));
  const kind = r.int(16);
  switch (kind) {
    case 0: // drop a field
      if (target !== undefined) {
        if (Array.isArray(target.parent)) target.parent.splice(Number(target.key), 1);
        else delete target.parent[target.key];
      }
      return o;
    case 1: // retype a value
      if (target !== undefined) target.parent[target.key] = oddValue(r);
      return o;
    case 2: // add an unknown field somewhere
      if (target !== undefined && target.parent[target.key] !== null && typeof target.parent[target.key] === 'object' && !Array.isArray(target.parent[target.key])) {
        target.parent[target.key][oddString(r) || 'x'] = oddValue(r);
      } else o[oddString(r) || 'extra'] = oddValue(r);
      return o;
    case 3: // deep nesting
      if (target !== undefined) target.parent[target.key] = nested(r.pick([10, 50, 100, 200, 1000, 5000]), oddValue(r), r.chance(0.5));
      return o;
    case 4: // wrong apiVersion or kind
      if (r.chance(0.5)) o.apiVersion = r.pick(['v1', 'apps/v1', 'v2', '', 'x/y/z', 'platform.io/v1', oddString(r)]);
      else o.kind = r.pick(['Pod', 'Status', 'List', '', 'Unknown', 'DeleteOptions', oddString(r)]);
      return o;
    case 5: // wrong namespace
      o.metadata = { ...(o.metadata ?? {}), namespace: r.pick(['default', 'kube-system', 'other', '', oddString(r), namespace]) };
      return o;
    case 6: // odd name or generateName
      o.metadata = o.metadata ?? {};
      if (r.chance(0.5)) o.metadata.name = oddString(r);
      else { delete o.metadata.name; o.metadata.generateName = r.pick(['fz-', '', oddString(r)]); }
      return o;
    case 7: // labels and annotations
      o.metadata = o.metadata ?? {};
      o.metadata[r.pick(['labels', 'annotations'])] = r.chance(0.2) ? oddValue(r) : Object.fromEntries(Array.from({ length: 1 + r.int(4) }, () => [oddString(r), r.chance(0.8) ? oddString(r) : oddValue(r)]));
      return o;
    case 8: // metadata the server owns or checks
      o.metadata = o.metadata ?? {};
      o.metadata[r.pick(['resourceVersion', 'uid', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'finalizers', 'ownerReferences', 'managedFields', 'selfLink'])] = r.chance(0.3)
        ? r.pick<Json>(['1', '0', '-1', 'abc', '2024-01-01T00:00:00Z', [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'u' }], [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:x': {} } }], ['a/b'], 42])
        : oddValue(r);
      return o;
    case 9: // a huge string
      // Megabyte values are rare: an accepted one stays in the store's history (no compaction during the run).
      if (target !== undefined) target.parent[target.key] = 'y'.repeat(r.chance(0.05) ? 1_000_000 : r.pick([1000, 10_000, 100_000]));
      return o;
    case 10: // a big array
      if (target !== undefined) target.parent[target.key] = Array.from({ length: r.chance(0.05) ? 10_000 : r.pick([100, 1000]) }, (_, i) => (r.chance(0.5) ? i : { name: `n${i}` }));
      return o;
    case 11: // duplicate an array element
      if (target !== undefined && Array.isArray(target.parent)) target.parent.push(structuredClone(target.parent[Number(target.key)]));
      return o;
    case 12: // replace the whole body
      return r.pick<any>([null, [], 'string', 42, {}, { metadata: null }, { apiVersion: o.apiVersion, kind: o.kind }, [o]]);
    case 13: // status content
      o.status = r.chance(0.5) ? oddValue(r) : { phase: oddString(r), conditions: [{ type: oddString(r), status: r.pick(['True', 'False', 'x']), lastTransitionTime: r.pick(['2024-01-01T00:00:00Z', 'x']) }] };
      return o;
    case 14: // spec emptied or retyped
      o.spec = r.pick<Json>([null, {}, [], 'x', 0]);
      return o;
    default: // a field removed from metadata
      if (o.metadata !== null && typeof o.metadata === 'object') delete o.metadata[r.pick(['name', 'namespace', 'labels'])];
      return o;
  }
}

/** JSON text with text-level damage: duplicate keys, raw odd numbers, truncation, trailing garbage. */
export function damageJsonText(r: Random, text: string): string {
  switch (r.int(7)) {
    case 0: { // a duplicated key in the first object
      const i = text.indexOf('{"');
      if (i < 0) return text;
      const end = text.indexOf(',', i);
      return end < 0 ? text : `${text.slice(0, end)},${text.slice(i + 1, end)}${text.slice(end)}`;
    }
    case 1: { // a raw number JSON.stringify cannot write
      const m = /:(-?\d+(\.\d+)?)/.exec(text);
      return m === null ? text.replace('{', `{"n":${r.pick(RAW_NUMBERS)},`) : text.replace(m[0], `:${r.pick(RAW_NUMBERS)}`);
    }
    case 2:
      return text.slice(0, r.int(text.length + 1));
    case 3:
      return `${text}${r.pick(['}', ']', ',', 'x', '\u0000', ' {"a":1}', '\n---\n{}'])}`;
    case 4:
      return text.replace(/"/, r.pick(["'", '', '\\"']));
    case 5: // a lone surrogate escape or a bad escape
      return text.replace(/":"/, `":"${r.pick(['\\ud800', '\\udc00x', '\\u00', '\\x41', '\\uZZZZ'])}`);
    default:
      return `\ufeff${text}`;
  }
}

/** A hand-built protobuf length-delimited field. */
function pbField(field: number, payload: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(payload.length), payload]);
}

export function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) { out.push((v & 0x7f) | 0x80); v = Math.floor(v / 128); }
  out.push(v);
  return Buffer.from(out);
}

/**
 * A protobuf body: kube's `k8s\0` magic and a runtime.Unknown (1: TypeMeta{1 apiVersion, 2 kind}, 2: raw,
 * 3: contentEncoding, 4: contentType) around raw bytes that are a captured valid object damaged, or garbage,
 * with the envelope itself sometimes truncated or its varints overlong.
 */
export function protobufBody(r: Random, apiVersion: string, kind: string, seed: Buffer | undefined): Buffer {
  if (seed !== undefined && r.chance(0.6)) return damageBytes(r, seed);
  const typeMeta = Buffer.concat([pbField(1, Buffer.from(apiVersion)), pbField(2, Buffer.from(kind))]);
  let raw: Buffer = r.weighted<() => Buffer>([
    [3, () => r.bytes(r.int(64))],
    [2, () => Buffer.concat([pbField(1, Buffer.concat([pbField(1, Buffer.from(r.string(8))), pbField(3, Buffer.from('fz-ns-0'))])), r.bytes(r.int(8))])],
    [1, () => Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])],
    [1, () => Buffer.from([0x0a, 0x80])],
    [1, () => Buffer.alloc(0)],
  ])();
  if (r.chance(0.3)) raw = damageBytes(r, raw);
  const unknown = Buffer.concat([pbField(1, typeMeta), pbField(2, raw), ...(r.chance(0.2) ? [pbField(3, Buffer.from(oddString(r)))] : []), ...(r.chance(0.2) ? [pbField(4, Buffer.from(oddString(r)))] : [])]);
  const body = Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), unknown]);
  return r.chance(0.2) ? damageBytes(r, body) : body;
}

export function damageBytes(r: Random, b: Buffer): Buffer {
  const out = Buffer.from(b);
  switch (r.int(5)) {
    case 0: return out.subarray(0, r.int(out.length + 1));
    case 1: for (let i = 0; i < 1 + r.int(4) && out.length > 0; i += 1) out[r.int(out.length)] = r.int(256); return out;
    case 2: { const at = r.int(out.length + 1); return Buffer.concat([out.subarray(0, at), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), out.subarray(at)]); }
    case 3: { const at = r.int(out.length + 1); return Buffer.concat([out.subarray(0, at), r.bytes(1 + r.int(16)), out.subarray(at)]); }
    default: return out.length > 4 ? Buffer.concat([out.subarray(0, 4), out.subarray(4 + r.int(out.length - 4))]) : out;
  }
}

/** Replaces deep-nesting markers (see `nested`) with the nesting itself. */
export function expandMarkers(text: string, yaml = false): string {
  return text.replace(/["']?@@DEEP:(\d+):([ao])@@["']?/g, (_, n: string, t: string) => {
    const d = Number(n);
    return t === 'a' ? `${'['.repeat(d)}1${']'.repeat(d)}` : `${(yaml ? '{a: ' : '{"a":').repeat(d)}1${'}'.repeat(d)}`;
  });
}

export interface EncodedBody {
  readonly body: Buffer;
  readonly contentType: string;
}

/** An object encoded as JSON (sometimes damaged) or YAML (sometimes with anchors and odd scalars). */
export function encodeObject(r: Random, o: unknown, format: 'json' | 'yaml'): EncodedBody {
  if (format === 'yaml') {
    let text: string;
    try {
      text = toYaml(o, { aliasDuplicateObjects: r.chance(0.3) });
    } catch {
      text = '{}';
    }
    if (r.chance(0.25)) {
      text = r.pick([
        `${text}\n---\n${text}`, `a: &a [x]\nb: *a\n${text}`, `${text}\nmetadata: {name: dup}\n`, `!!binary ${text}`,
        text.replace(/: /, ': !!float '), `%YAML 1.1\n---\n${text}`, 'a: *undefined\n', text.replace(/\n/g, '\n\t'),
        `${text.slice(0, r.int(text.length + 1))}`, 'a: 0x1F\nb: .inf\nc: .nan\nd: ~\ne: 2001-12-14t21:59:43.10-05:00\nf: 1_000\n',
      ]);
    }
    return { body: Buffer.from(expandMarkers(text, true), 'utf8'), contentType: 'application/yaml' };
  }
  let text = expandMarkers(JSON.stringify(o) ?? 'null');
  if (r.chance(0.2)) text = damageJsonText(r, text);
  return { body: Buffer.from(text, 'utf8'), contentType: 'application/json' };
}

/** A JSON patch (RFC 6902) over the object's paths, with odd ops, paths and values now and then. */
export function jsonPatch(r: Random, o: Json): unknown {
  const ps = paths(o);
  const pointer = (): string => {
    if (ps.length === 0 || r.chance(0.15)) return r.pick(['', '/', '/metadata/labels/a~1b', '/~2', '/spec/-', '/metadata/name', '/x/y/z', `/${oddString(r)}`, '/status', '/metadata/finalizers/-', '/a/99999999999999999999']);
    return `/${r.pick(ps).map((s) => String(s).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
  };
  return Array.from({ length: 1 + r.int(4) }, () => {
    const op = r.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', '']);
    const e: Record<string, unknown> = { op, path: pointer() };
    if (op === 'move' || op === 'copy' || r.chance(0.1)) e.from = pointer();
    if (op !== 'remove' || r.chance(0.1)) e.value = r.chance(0.5) ? oddValue(r) : structuredClone(r.pick<Json>([o, 'v', 1, {}, []]));
    if (r.chance(0.05)) delete e.op;
    if (r.chance(0.05)) delete e.path;
    return e;
  });
}

/** A merge or strategic merge patch: part of the object mutated, with strategic directives sometimes. */
export function mergePatch(r: Random, o: any, namespace: string, strategic: boolean): unknown {
  let patch: any = r.chance(0.5) || o === null || typeof o !== 'object' ? { metadata: { labels: { [r.pick(['a', 'fuzz', oddString(r)])]: r.chance(0.8) ? 'v' : null } } } : structuredClone(o);
  for (let i = r.int(3); i > 0; i -= 1) patch = mutate(r, patch, namespace);
  if (strategic && patch !== null && typeof patch === 'object' && !Array.isArray(patch) && r.chance(0.4)) {
    const directive = r.pick<[string, Json]>([
      ['$patch', r.pick(['replace', 'delete', 'merge', 'bogus'])], ['$retainKeys', ['spec', oddString(r)]],
      ['$setElementOrder/containers', [{ name: 'web' }, { name: 'x' }]], ['$deleteFromPrimitiveList/finalizers', ['a']],
    ]);
    const place = r.chance(0.5) ? patch : (patch.spec !== null && typeof patch.spec === 'object' && !Array.isArray(patch.spec) ? patch.spec : patch);
    place[directive[0]] = directive[1];
    if (r.chance(0.3)) {
      patch.spec = { ...(typeof patch.spec === 'object' && patch.spec !== null && !Array.isArray(patch.spec) ? patch.spec : {}), template: { spec: { containers: [{ name: 'web', $patch: r.pick(['delete', 'replace', 'x']) }, { $patch: 'delete' }] } } };
    }
  }
  return patch;
}
