import { timeout } from '../../errors/constructors.js';
import type { InFlightRequests } from '../in-flight-requests.js';
import { isLongRunning } from '../long-running.js';
import type { Filter } from '../../request/request-state.js';

export interface RequestLifecycleOptions {
  readonly registry: InFlightRequests;
  /** Deadline of a request that is not long-running. */
  readonly requestTimeoutMs: number;
  /** `--min-request-timeout` (seconds), handed to long-running requests (the watch handler's default timeout). */
  readonly minRequestTimeoutSeconds?: number;
  /**
   * True once shutdown began: responses then carry `Connection: close`, and a response that started
   * before (a watch ended by the shutdown) closes its socket when it has finished, so keep-alive sockets
   * leave this replica.
   */
  readonly draining: () => boolean;
}

/**
 * Registers the request with the in-flight registry and gives it `ctx.state.signal` and
 * `ctx.state.longRunning`. The signal aborts when the client disconnects, when shutdown ends the
 * request, or at the deadline; at the deadline a request that has not answered yet gets 504
 * `Timeout: request did not complete within requested timeout - context deadline exceeded` (the handler
 * keeps running until it notices the signal, as Go handlers do with their context).
 */
export function requestLifecycle(options: RequestLifecycleOptions): Filter {
  const { registry, requestTimeoutMs, draining } = options;
  return async function requestLifecycleFilter(ctx, next) {
    const longRunning = isLongRunning(ctx);
    const tracked = registry.track(longRunning);
    ctx.state.signal = tracked.signal;
    ctx.state.longRunning = longRunning;
    if (longRunning && options.minRequestTimeoutSeconds !== undefined) ctx.state.minRequestTimeoutSeconds = options.minRequestTimeoutSeconds;
    if (draining()) ctx.set('Connection', 'close');
    // 'close' fires once the response is fully written or the socket died; only the latter aborts. The
    // registry entry lives until then (a watch body streams after the middleware returned).
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) tracked.abort(new Error('client disconnected'));
      // A response whose headers went out before shutdown began promised keep-alive: end the socket once
      // its body is complete (a chunked watch has written its terminating chunk), so the client sees the
      // clean end of the body and then the close, never an idle socket cut later. Node already does this
      // for responses sent with `Connection: close`.
      else if (draining() && !ctx.req.socket.destroyed) ctx.req.socket.end();
      tracked.done();
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      if (longRunning) {
        await next();
      } else {
        const handler = next();
        // After the deadline answered, the handler may still fail: that must not become an unhandled rejection.
        handler.catch(() => undefined);
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            tracked.abort(new Error('request deadline exceeded'));
            reject(timeout('request did not complete within requested timeout - context deadline exceeded'));
          }, requestTimeoutMs);
        });
        await Promise.race([handler, deadline]);
      }
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      if (draining()) ctx.set('Connection', 'close');
    }
  };
}
