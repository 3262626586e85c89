import type { KeyValue } from '../interface.js';
import type { RawKeyValue } from './proto.js';

/**
 * Converts etcd's KeyValue (Buffer key) into the contract's. The value Buffer is
 * handed out as is (nothing writes to decoded message buffers), unless the caller gives another (`ownValue`).
 */
export function toKeyValue(raw: RawKeyValue, value: Uint8Array = raw.value): KeyValue {
  return {
    key: raw.key.toString(),
    value,
    createRevision: raw.create_revision,
    modRevision: raw.mod_revision,
  };
}

/**
 * `value` in memory of its own: itself when it spans its whole ArrayBuffer, else an exact copy. A watch
 * event's value is a slice of its gRPC message, which node allocates from shared 8 KiB pool slabs: kept as
 * is by a long-lived holder (the watch cache keeps every value), each slab stays alive for the sake of a
 * few values, ~1.5x their size here.
 */
export function ownValue(value: Uint8Array): Uint8Array {
  if (value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) return value;
  // allocUnsafeSlow: never a slice of node's pool (which is what is being left).
  const own = Buffer.allocUnsafeSlow(value.byteLength);
  own.set(value);
  return own;
}

/**
 * The end of etcd's half-open range [prefix, end) that covers every key starting with `prefix`: the prefix
 * with its last byte below 0xff incremented (trailing 0xff bytes dropped). An all-0xff or empty prefix
 * ranges to "\0", which etcd reads as "to the end of the keyspace".
 */
export function prefixEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const byte = prefix[i]!;
    if (byte < 0xff) {
      const end = Buffer.allocUnsafe(i + 1);
      prefix.copy(end, 0, 0, i + 1);
      end[i] = byte + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}
