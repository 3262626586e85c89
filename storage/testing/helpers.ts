/** Helpers shared by the conformance cases. */
import type { KeyValue, Store, WatchEvent } from '../interface.js';
import { StorageError, type StorageErrorCode } from '../errors.js';
import { WatchReader } from './watch-reader.js';

/** What each group of cases gets: the store, a fresh key prefix per case, and small helpers. */
export interface SuiteContext {
  store(): Store;
  /** A prefix unique to the calling case, ending in "/". */
  prefix(): string;
}

export const enc = (s: string): Uint8Array => Buffer.from(s, 'utf8');
export const dec = (b: Uint8Array | undefined): string | undefined =>
  b === undefined ? undefined : Buffer.from(b).toString('utf8');

/** Awaits `promise` and asserts it rejects with a StorageError of `code`; returns the error. */
export async function expectStorageError(promise: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  let caught: unknown;
  try {
    await promise;
  } catch (err) {
    caught = err;
  }
  if (!(caught instanceof StorageError)) {
    throw new Error(`expected StorageError ${code}, got ${caught === undefined ? 'success' : String(caught)}`);
  }
  expect(caught.code).toBe(code);
  return caught;
}

/** Starts a background reader of `store.watch(prefix, {fromRevision})`. Stop it in the case. */
export function watchFrom(store: Store, prefix: string, fromRevision?: number, progressWanted?: () => boolean): WatchReader {
  return new WatchReader((signal) => store.watch(prefix, { fromRevision, signal, progressWanted }));
}

export const summary = (e: WatchEvent): string => `${e.type} ${e.kv.key}@${e.kv.modRevision}`;
export const valueOf = (kv: KeyValue | undefined): string | undefined => dec(kv?.value);

/** Polls `check` every 10 ms until it holds; throws after `timeoutMs` (no fixed sleeps in assertions). */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
