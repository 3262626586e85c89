/**
 * Objects as stored: the JSON of the object WITHOUT `metadata.resourceVersion` (and the deprecated
 * `selfLink`), so the bytes of an unchanged object stay equal across writes. On read the resourceVersion is
 * injected from the key's modRevision. Every decode returns a fresh object the caller owns (invariant 8:
 * nothing read is shared or mutated).
 */
import type { KubeObject } from '../../api/object.js';
import type { KeyValue } from '../../../storage/interface.js';

const decoder = new TextDecoder();

export function encodeObject(obj: KubeObject): Uint8Array {
  const meta = obj.metadata;
  let out: KubeObject = obj;
  if (meta !== undefined && (meta.resourceVersion !== undefined || meta.selfLink !== undefined)) {
    const { resourceVersion: _rv, selfLink: _sl, ...rest } = meta;
    out = { ...obj, metadata: rest };
  }
  return Buffer.from(JSON.stringify(out), 'utf8');
}

/** A fresh object from stored bytes, its resourceVersion set to the key's modRevision. */
export function decodeObject(kv: KeyValue): KubeObject {
  const obj = JSON.parse(decoder.decode(kv.value)) as KubeObject;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

/**
 * The served JSON of stored bytes without decoding them: `JSON.stringify(decodeObject(kv))`, byte for byte,
 * for bytes `encodeObject` wrote, in a Buffer of its own; undefined when the bytes are not what it writes
 * (see `resourceVersionAt`: then decode).
 */
export function servedJson(value: Uint8Array, revision: number): Buffer | undefined {
  const at = resourceVersionAt(value);
  if (at < 0) return undefined;
  const member = `${value[at - 1] === OPEN_BRACE ? '' : ','}"resourceVersion":"${revision}"`;
  const out = Buffer.allocUnsafeSlow(value.length + member.length);
  out.set(value.subarray(0, at), 0);
  out.write(member, at, 'latin1');
  out.set(value.subarray(at), at + member.length);
  return out;
}

/**
 * Where the served JSON of stored bytes takes its resourceVersion, without decoding them: the index of the
 * closing brace of the top-level `metadata` object, or -1 when the bytes are not what `encodeObject` writes:
 * not one compact JSON object, no top-level `metadata` object or more than one, or one that names a
 * `resourceVersion` (anywhere in it, to stay simple: then the caller decodes).
 *
 * `JSON.stringify(decodeObject(kv))` is the stored text with `"resourceVersion":"<modRevision>"` added as the
 * last member of `metadata` (decode appends it; `JSON.parse` and `JSON.stringify` give back the very text
 * `JSON.stringify` wrote), so splicing the member in at this index gives the same bytes. Bytes written by
 * another program in this compact form but with other escapes are served as they are: the same JSON value.
 */
function resourceVersionAt(value: Uint8Array): number {
  const n = value.length;
  if (n < 2 || value[0] !== OPEN_BRACE) return -1;
  let depth = 0;
  let metadataOpen = -1;
  let metadataClose = -1;
  for (let i = 0; i < n; i++) {
    const c = value[i]!;
    if (c === QUOTE) {
      const start = i + 1;
      i = start;
      while (i < n && value[i] !== QUOTE) i += value[i] === BACKSLASH ? 2 : 1;
      if (i >= n) return -1;
      // A member name of the top-level object followed by `:`: is it "metadata", and an object?
      if (depth === 1 && value[i + 1] === COLON && i - start === METADATA.length && METADATA.equals(value.subarray(start, i))) {
        if (metadataOpen >= 0 || value[i + 2] !== OPEN_BRACE) return -1;
        metadataOpen = i + 2;
        i = metadataOpen;
        depth = 2;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 1 && metadataOpen >= 0 && metadataClose < 0) metadataClose = i;
      // The top-level object ends at the last byte.
      if (depth === 0) return i === n - 1 && metadataClose >= 0 && !named(value, RESOURCE_VERSION, metadataOpen, metadataClose) ? metadataClose : -1;
    }
  }
  return -1;
}

/** Whether `name` occurs in `value[from, to)`. */
function named(value: Uint8Array, name: Buffer, from: number, to: number): boolean {
  const at = Buffer.prototype.indexOf.call(value, name, from) as number;
  return at >= 0 && at < to;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const METADATA = Buffer.from('metadata');
const RESOURCE_VERSION = Buffer.from('"resourceVersion"');
