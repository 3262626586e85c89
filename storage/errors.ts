import type { KeyValue } from './interface.js';

/**
 * Why a store operation failed. The registry maps each to one HTTP answer:
 * - `NotFound`        404 (update/delete of a missing key)
 * - `AlreadyExists`   409 AlreadyExists (create of an existing key)
 * - `Conflict`        409 Conflict (modRevision compare failed)
 * - `Compacted`       410 Expired (read or watch at a compacted revision)
 * - `FutureRevision`  504 / "Too large resource version" (revision beyond the current one)
 * - `Lagging`         a watch consumer fell behind its bounded buffer; re-watch from the last revision + 1
 * - `Unavailable`     503 (backend unreachable, closed or broken)
 * - `Timeout`         504 (a per-call deadline passed; the write may or may not have happened)
 * - `InvalidArgument` 500 (a programming error: bad key, bad options)
 * - `TransformFailed` 500 (a stored value the value transformer cannot read: a missing or wrong
 *                     encryption key, tampered ciphertext; storage/transforming-store.ts)
 */
export type StorageErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'Lagging'
  | 'Unavailable'
  | 'Timeout'
  | 'InvalidArgument'
  | 'TransformFailed';

export interface StorageErrorDetails {
  readonly key?: string;
  /** Conflict / AlreadyExists: the key's current state, read in the same transaction. */
  readonly current?: KeyValue;
  /** Compacted: the store's compacted revision. */
  readonly compactedRevision?: number;
  /** FutureRevision / Compacted: the store's current revision when known. */
  readonly currentRevision?: number;
  /** FutureRevision / Compacted: the revision that was asked for. */
  readonly requestedRevision?: number;
  readonly cause?: unknown;
}

/** The one error type every Store method throws. Match on `code`. */
export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly key: string | undefined;
  readonly current: KeyValue | undefined;
  readonly compactedRevision: number | undefined;
  readonly currentRevision: number | undefined;
  readonly requestedRevision: number | undefined;

  constructor(
    readonly code: StorageErrorCode,
    message: string,
    details: StorageErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.key = details.key;
    this.current = details.current;
    this.compactedRevision = details.compactedRevision;
    this.currentRevision = details.currentRevision;
    this.requestedRevision = details.requestedRevision;
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}

export const notFound = (key: string): StorageError =>
  new StorageError('NotFound', `key not found: ${key}`, { key });

export const alreadyExists = (key: string, current?: KeyValue): StorageError =>
  new StorageError('AlreadyExists', `key already exists: ${key}`, { key, current });

export const conflict = (key: string, current: KeyValue | undefined): StorageError =>
  new StorageError('Conflict', `modRevision mismatch for ${key}`, { key, current });

export const compacted = (requestedRevision: number, compactedRevision: number, currentRevision?: number): StorageError =>
  new StorageError(
    'Compacted',
    `required revision ${requestedRevision} has been compacted (compacted revision ${compactedRevision})`,
    { requestedRevision, compactedRevision, currentRevision },
  );

export const futureRevision = (requestedRevision: number, currentRevision: number): StorageError =>
  new StorageError(
    'FutureRevision',
    `required revision ${requestedRevision} is a future revision (current revision ${currentRevision})`,
    { requestedRevision, currentRevision },
  );

export const lagging = (message = 'watch consumer fell behind; re-watch from the last revision'): StorageError =>
  new StorageError('Lagging', message);

export const unavailable = (message: string, cause?: unknown): StorageError =>
  new StorageError('Unavailable', message, { cause });

export const timeout = (message: string, cause?: unknown): StorageError =>
  new StorageError('Timeout', message, { cause });

export const invalidArgument = (message: string): StorageError => new StorageError('InvalidArgument', message);

/** A stored value under `key` that the value transformer could not read (kube: "unable to transform key"). */
export const transformFailed = (key: string, cause: unknown): StorageError =>
  new StorageError('TransformFailed', `unable to transform key ${JSON.stringify(key)}: ${cause instanceof Error ? cause.message : String(cause)}`, { key, cause });
