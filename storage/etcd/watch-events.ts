import type { KeyValue, WatchEvent } from '../interface.js';
import { ownValue, toKeyValue } from './key-value.js';
import type { RawEvent } from './proto.js';

/**
 * etcd's watch events as the contract's. With `prev_kv` requested etcd attaches the previous state; it can
 * only lack it for a delete when the previous revision was compacted away in the meantime, and the contract
 * promises `prev` on deletes, so that case gets a placeholder (the key with no value and revisions 0).
 */
export function toWatchEvent(raw: RawEvent): WatchEvent {
  if (raw.type === 'Delete') {
    const kv = toKeyValue(raw.kv);
    return { type: 'delete', kv, prev: raw.prev_kv ? toKeyValue(raw.prev_kv) : placeholder(kv) };
  }
  // The new value is what a watch cache keeps: in memory of its own (the previous one is short-lived).
  return { type: 'put', kv: toKeyValue(raw.kv, ownValue(raw.kv.value)), prev: raw.prev_kv ? toKeyValue(raw.prev_kv) : undefined };
}

function placeholder(kv: KeyValue): KeyValue {
  return { key: kv.key, value: EMPTY, createRevision: 0, modRevision: 0 };
}

const EMPTY = new Uint8Array(0);
