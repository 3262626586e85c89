import { invalidArgument } from '../errors.js';
import { MAX_TTL_SECONDS, type WriteOptions } from '../interface.js';
import { hasLoneSurrogate } from './key-order.js';

/** Keys must be non-empty, well-formed Unicode (they are stored as UTF-8). */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0) throw invalidArgument(`key must be a non-empty string`);
  if (hasLoneSurrogate(key)) throw invalidArgument(`key ${JSON.stringify(key)} is not well-formed Unicode`);
}

export function checkPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string') throw invalidArgument('prefix must be a string');
  if (hasLoneSurrogate(prefix)) throw invalidArgument(`prefix ${JSON.stringify(prefix)} is not well-formed Unicode`);
}

export function checkValue(value: unknown): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) throw invalidArgument('value must be a Uint8Array');
}

/** A revision option: unset, or a non-negative safe integer. */
export function checkRevision(name: string, rev: number | undefined): number {
  if (rev === undefined) return 0;
  if (!Number.isSafeInteger(rev) || rev < 0) throw invalidArgument(`${name} must be a non-negative integer, got ${rev}`);
  return rev;
}

/** `WriteOptions.ttlSeconds`: unset (0), or an integer from 0 to MAX_TTL_SECONDS. */
export function checkTtl(options: WriteOptions | undefined): number {
  const ttl = options?.ttlSeconds;
  if (ttl === undefined) return 0;
  if (!Number.isSafeInteger(ttl) || ttl < 0 || ttl > MAX_TTL_SECONDS) {
    throw invalidArgument(`ttlSeconds must be an integer from 0 to ${MAX_TTL_SECONDS}, got ${ttl}`);
  }
  return ttl;
}
