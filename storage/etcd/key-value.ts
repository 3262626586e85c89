import type { KeyValue } from '../interface.js';
import type { RawKeyValue } from './proto.js';

/**
 * Converts etcd's KeyValue (decimal-string revisions, Buffer key) into the contract's. The value Buffer is
 * handed out as is: nothing writes to decoded message buffers, so no copy is needed.
 */
export function toKeyValue(raw: RawKeyValue): KeyValue {
  return {
    key: raw.key.toString(),
    value: raw.value,
    createRevision: Number(raw.create_revision),
    modRevision: Number(raw.mod_revision),
  };
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
