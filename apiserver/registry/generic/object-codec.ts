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
