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

/**
 * A live watcher the cache cannot continue after it re-listed: its store watch resumed from `previous` + 1
 * and found it compacted (at `compactedRevision`), so the events after `previous` are gone. The client must
 * re-list; the fields let the API layer word it as kube's "too old resource version".
 */
export function relisted(previous: number, compactedRevision: number, revision: number): StorageError {
  return new StorageError(
    'Compacted',
    `too old resource version: ${previous} (${compactedRevision}); the watch cache re-listed at revision ${revision}`,
    { requestedRevision: previous, compactedRevision, currentRevision: revision },
  );
}
