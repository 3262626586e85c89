import { StorageError } from '../errors.js';

/**
 * A watch start at a compacted revision. The message is kube's watch cache wording ("too old resource
 * version: R (oldest)"), where oldest is the store's compacted revision, the oldest start still served.
 */
export function tooOldResourceVersion(requested: number, compactedRevision: number, currentRevision: number): StorageError {
  return new StorageError('Compacted', `too old resource version: ${requested} (${compactedRevision})`, {
    requestedRevision: requested,
    compactedRevision,
    currentRevision,
  });
}

/** A live watcher the cache cannot continue after it re-listed (its store watch fell out of the window). */
export function relisted(revision: number): StorageError {
  return new StorageError(
    'Compacted',
    `the watch cache lost its place in the store's history and re-listed at revision ${revision}; re-list and watch again`,
    { currentRevision: revision },
  );
}
