import type { Server } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../log/logger.js';
import type { InFlightRequests } from './in-flight-requests.js';
import type { LifecycleSignals } from './lifecycle-signals.js';

export interface GracefulShutdownOptions {
  readonly signals: LifecycleSignals;
  readonly server: Server;
  /** Resolves once the server emitted 'close' (listener closed, every connection gone). */
  readonly serverClosed: Promise<void>;
  readonly registry: InFlightRequests;
  /** `--shutdown-delay-duration`. */
  readonly delayMs: number;
  /** `--shutdown-timeout`: how long in-flight requests get after the delay. */
  readonly timeoutMs: number;
  /** `--shutdown-send-retry-after`. */
  readonly sendRetryAfter: boolean;
  readonly logger: Logger;
}

/**
 * Stops serving without a client-visible error, in kube-apiserver's order (lifecycle-signals.ts):
 *
 * 1. ShutdownInitiated: `/readyz` fails; requests are still served, each response with
 *    `Connection: close`. Idle keep-alive sockets are left open: a request on one is served (and its
 *    socket closed after), where closing them now would race a client sending on them.
 * 2. After `delayMs` (the load balancer has taken this replica out), NotAcceptingNewRequest: watches and
 *    other long-running requests end (a clean end of their body, then their socket closes), and new
 *    requests are refused (filters/shutdown-refusal.ts). With `sendRetryAfter` the listener stays open so
 *    late clients get 429 + Retry-After instead of a refused connection; without it, it closes now.
 * 3. In-flight requests finish, for at most `timeoutMs`; what still runs then is aborted and its
 *    connection cut. InFlightRequestsDrained: the listener closes and idle sockets are closed.
 *
 * Resolves once every connection is gone; the caller then stops the rest (controllers, store).
 */
export async function gracefulShutdown(o: GracefulShutdownOptions): Promise<void> {
  const { signals, server, registry, logger } = o;
  signals.initiateShutdown();
  logger.info({ delayMs: o.delayMs, timeoutMs: o.timeoutMs, sendRetryAfter: o.sendRetryAfter }, 'shutting down');
  if (o.delayMs > 0) await sleep(o.delayMs);

  signals.stopAcceptingNewRequests();
  if (!o.sendRetryAfter) server.close();
  const watches = registry.abortLongRunning(new Error('the server is shutting down'));
  logger.info({ endedLongRunning: watches, inFlight: registry.size }, 'shutdown delay elapsed: not accepting new requests');

  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    registry.idle().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), o.timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (!drained) {
    logger.warn({ inFlight: registry.size }, 'shutdown timeout: cutting the remaining requests');
    registry.abortAll(new Error('shutdown timeout'));
  }
  signals.markDrained();
  server.close();
  // Idle keep-alive sockets (and, after the timeout, busy ones) are closed now; answered ones closed already.
  if (drained) server.closeIdleConnections();
  else server.closeAllConnections();
  // A request that arrived between idle() and close() (a health probe) still answers: give it the rest
  // of the timeout, then cut.
  const closed = await Promise.race([o.serverClosed.then(() => true), sleep(Math.max(o.timeoutMs, 1000), false, { ref: false })]);
  if (!closed) {
    server.closeAllConnections();
    await o.serverClosed;
  }
}
