import { serviceUnavailable } from '../../errors/constructors.js';
import type { LifecycleSignals } from '../lifecycle-signals.js';
import type { Filter } from '../../request/request-state.js';

export interface ShutdownRefusalOptions {
  readonly signals: LifecycleSignals;
  /**
   * `--shutdown-send-retry-after`: true answers refused requests 429 with `Retry-After: 5` and keeps the
   * listener open until in-flight requests drained (kube's WithRetryAfter); false answers 503 with
   * `Retry-After: 1` (kube's WithWaitGroup), and the listener is closed when the delay ends, so new
   * connections are refused by the kernel.
   */
  readonly sendRetryAfter: boolean;
}

/** kube-apiserver's exact text (filters/with_retry_after.go). */
export const shutdownRetryAfterMessage = 'The apiserver is shutting down, please try again later.';

/** As kube: health probes and metrics scraping are served to the end (prefix match). */
const exemptPrefixes = ['/readyz', '/livez', '/healthz', '/metrics'];

/**
 * Refuses new requests once the server stopped accepting them (after the shutdown delay), so nothing new
 * holds the replica while it drains: a watch arriving then is answered at once instead of streaming until
 * `--shutdown-timeout`. Health and metrics paths are exempt. Every refusal carries `Connection: close`, so
 * the client's next attempt opens a connection, which the load balancer sends to another replica.
 *
 * kube also exempts requests whose User-Agent starts with `kube-apiserver/` (its loopback client); this
 * server's controllers use the store directly and make no loopback requests, so there is nothing to exempt.
 * Runs after request-lifecycle (which sets `Connection: close` on every response during shutdown).
 */
export function shutdownRefusal(options: ShutdownRefusalOptions): Filter {
  const { signals, sendRetryAfter } = options;
  return async function shutdownRefusalFilter(ctx, next) {
    if (!signals.notAcceptingNewRequest || exemptPrefixes.some((p) => ctx.path.startsWith(p))) {
      await next();
      return;
    }
    ctx.set('Connection', 'close');
    if (sendRetryAfter) {
      // As Go's http.Error: plain text, nosniff, a trailing newline.
      ctx.status = 429;
      ctx.set('Retry-After', '5');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `${shutdownRetryAfterMessage}\n`;
      return;
    }
    ctx.set('Retry-After', '1');
    throw serviceUnavailable('apiserver is shutting down');
  };
}
