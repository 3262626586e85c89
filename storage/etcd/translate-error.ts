import {
  ClientClosedError,
  GRPCDeadlineExceededError,
  GRPCOutOfRangeError,
  GRPCUnavailableError,
} from 'etcd3/lib/errors.js';
import { StorageError, invalidArgument, isStorageError, timeout, unavailable } from '../errors.js';
import { NOT_SENT } from './grpc/status.js';

/**
 * What an etcd failure means for the contract. `compacted` and `future` need the store's revisions to become
 * a `StorageError` (etcd's message carries neither), so the store finishes those; everything else is final.
 */
export type EtcdFailure =
  | { readonly kind: 'compacted' }
  | { readonly kind: 'future' }
  | { readonly kind: 'error'; readonly error: StorageError };

/**
 * Classifies an error thrown by an etcd call. etcd3 turns gRPC statuses into classes but drops the numeric
 * code, so the class and etcd's message text are what there is:
 * - compacted / future reads are `GRPCOutOfRangeError` ("mvcc: required revision has been compacted" /
 *   "... is a future revision"), never `EtcdError`;
 * - an expired deadline is `GRPCDeadlineExceededError`; etcd's own "request timed out" (the proposal did not
 *   commit in time; it may still) is a Timeout too;
 * - everything about reaching the cluster (refused, dropped, no leader, a host's open circuit, a closed
 *   client) is Unavailable, and so is anything unknown, with the cause attached.
 */
export function classifyEtcdError(err: unknown): EtcdFailure {
  if (isStorageError(err)) return { kind: 'error', error: err };
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof GRPCOutOfRangeError || message.includes('mvcc: required revision')) {
    if (message.includes('compacted')) return { kind: 'compacted' };
    if (message.includes('future revision')) return { kind: 'future' };
  }
  if (err instanceof GRPCDeadlineExceededError || message.includes('etcdserver: request timed out')) {
    return { kind: 'error', error: timeout(`etcd: ${message}`, err) };
  }
  // etcd's own size limit (--max-request-bytes), and gRPC's above it (a request past etcd's receive limit,
  // RESOURCE_EXHAUSTED "received message larger than max").
  if (message.includes('request is too large') || message.includes('too many operations in txn') || message.includes('larger than max')) {
    return { kind: 'error', error: invalidArgument(`etcd: ${message}`) };
  }
  if (err instanceof ClientClosedError) return { kind: 'error', error: unavailable('etcd store is closed', err) };
  return { kind: 'error', error: unavailable(`etcd: ${message}`, err) };
}

/**
 * Whether a failed call certainly never reached etcd, so even a write may be sent again: its connection was
 * never established, the member refused the stream, or every member's circuit was open (grpc/member-channel.ts
 * marks those).
 */
export function neverSent(err: unknown): boolean {
  return err instanceof Error && (err as { [NOT_SENT]?: boolean })[NOT_SENT] === true;
}

/** Whether a failed READ may be retried on another member (any transport-level failure). */
export function retriableRead(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (neverSent(err)) return true;
  return (
    err instanceof GRPCUnavailableError ||
    err.message.includes('etcdserver: leader changed') ||
    err.message.includes('etcdserver: no leader')
  );
}
