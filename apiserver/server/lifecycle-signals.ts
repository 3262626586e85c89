/**
 * The steps of a graceful shutdown, named after kube-apiserver's lifecycle signals, as one object the
 * filters and the health checks read. Each step happens once and in order:
 *
 *   serving ─close()─▶ ShutdownInitiated ─shutdown delay─▶ NotAcceptingNewRequest ─in flight done─▶ InFlightRequestsDrained
 *
 * - ShutdownInitiated: `/readyz` fails, so load balancers stop sending; every request is still served, each
 *   response with `Connection: close` so keep-alive sockets move to other replicas.
 * - NotAcceptingNewRequest (the delay elapsed, the load balancer has noticed): long-running requests
 *   (watches) are ended, and new requests other than health and metrics are refused (filters/shutdown-refusal.ts).
 * - InFlightRequestsDrained: the last non-long-running request answered (or `--shutdown-timeout` passed);
 *   the listener closes.
 */
/** What the steps reached so far (read-only, for callers and tests that await a step). */
export interface LifecycleState {
  readonly shutdownInitiated: boolean;
  readonly notAcceptingNewRequest: boolean;
  readonly inFlightRequestsDrained: boolean;
}

export class LifecycleSignals implements LifecycleState {
  #shutdownInitiated = false;
  #notAcceptingNewRequest = false;
  #drained = false;

  /** True from `close()` on: `/readyz` fails and responses carry `Connection: close`. */
  get shutdownInitiated(): boolean {
    return this.#shutdownInitiated;
  }

  /** True once the shutdown delay elapsed: new requests (but health and metrics) are refused. */
  get notAcceptingNewRequest(): boolean {
    return this.#notAcceptingNewRequest;
  }

  /** True once in-flight requests finished (or were cut at the timeout). */
  get inFlightRequestsDrained(): boolean {
    return this.#drained;
  }

  initiateShutdown(): void {
    this.#shutdownInitiated = true;
  }

  stopAcceptingNewRequests(): void {
    this.#shutdownInitiated = true;
    this.#notAcceptingNewRequest = true;
  }

  markDrained(): void {
    this.stopAcceptingNewRequests();
    this.#drained = true;
  }
}
