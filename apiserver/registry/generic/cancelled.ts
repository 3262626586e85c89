import { timeout } from '../../errors/constructors.js';

/**
 * Throws kube's 504 Timeout when the request behind a write was cancelled (its deadline passed, the client
 * went away, or shutdown ended it). Called right before each store write and so before every retry of a
 * write loop: the response may already have been sent (the request-lifecycle filter answers 504 at the
 * deadline while the handler still runs), and the work behind it must not write afterwards, as a Go
 * handler's cancelled context fails its etcd call.
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) {
    throw timeout('request did not complete within requested timeout - context canceled');
  }
}
