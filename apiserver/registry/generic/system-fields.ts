/**
 * Values the server generates: uids, timestamps (RFC 3339, second precision, as Kubernetes serializes
 * metav1.Time) and `generateName` suffixes.
 */
import { randomInt, randomUUID } from 'node:crypto';

export const newUid = (): string => randomUUID();

/** `2024-05-01T10:00:00Z` */
export const rfc3339 = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** Kubernetes' alphabet for generated names: no vowels (no words), no confusable characters. */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SUFFIX_LENGTH = 5;
/** Generated names stay within a DNS label (63): the base is cut to 58 characters. */
const MAX_BASE = 63 - SUFFIX_LENGTH;

/** `generateName` + 5 random characters; the base is truncated so the result fits in 63 characters. */
export function generateName(base: string): string {
  let s = base.length > MAX_BASE ? base.slice(0, MAX_BASE) : base;
  for (let i = 0; i < SUFFIX_LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}
