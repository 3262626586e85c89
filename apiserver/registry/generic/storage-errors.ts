/**
 * The one place where StorageError codes become HTTP answers (DESIGN.md "The storage contract"):
 * NotFound 404, AlreadyExists 409, Conflict 409 (optimistic lock), Compacted 410 Expired, FutureRevision
 * 504 "Too large resource version", Timeout 504, Unavailable 503, InvalidArgument 413 when the write is larger
 * than the backend takes (else 500), TransformFailed 500 naming the key (an
 * encrypted value no configured key reads), anything else 500. The backend's own
 * message (keys, hosts) never reaches the client. Errors that are not StorageErrors pass through unchanged.
 */
import { isStorageError } from '../../../storage/errors.js';
import {
  alreadyExists,
  conflict,
  expired,
  internalError,
  notFound,
  requestEntityTooLarge,
  serviceUnavailable,
  timeout,
  tooLargeResourceVersion,
  type GroupResource,
} from '../../errors/constructors.js';

export function storageToStatus(err: unknown, gr: GroupResource, name = ''): unknown {
  if (!isStorageError(err)) return err;
  switch (err.code) {
    case 'NotFound':
      return notFound(gr, name);
    case 'AlreadyExists':
      return alreadyExists(gr, name);
    case 'Conflict':
      return conflict(gr, name);
    case 'Compacted':
      return expired();
    case 'FutureRevision':
      return tooLargeResourceVersion(err.requestedRevision ?? 0, err.currentRevision ?? 0);
    case 'Timeout':
      return timeout('request did not complete within requested timeout - context deadline exceeded', 1);
    case 'Unavailable':
      return serviceUnavailable('the storage backend is unavailable; please try again later');
    case 'InvalidArgument':
      // A write larger than the backend takes (etcd's --max-request-bytes): the client's object is too big,
      // not the server broken. kube answers etcd's "request is too large" with a 500; this server with 413.
      if (/too large|larger than max/.test(err.message)) return requestEntityTooLarge('the object is larger than the storage backend accepts');
      return internalError(`storage error (${err.code})`);
    case 'TransformFailed':
      // kube's InternalError for a value its transformer cannot read (encryption at rest): the message names
      // the key, so an operator sees which object and why ("no matching prefix found").
      return internalError(err.message);
    default:
      return internalError(`storage error (${err.code})`);
  }
}

/** Runs `fn`, translating StorageErrors. */
export async function translated<T>(gr: GroupResource, name: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storageToStatus(err, gr, name);
  }
}
