/**
 * The registry of requests in progress, so shutdown can end them: long-running ones (watches) at once,
 * the others after the drain bound. Each tracked request owns an AbortController whose signal handlers
 * observe (`ctx.state.signal`).
 */
export interface TrackedRequest {
  readonly signal: AbortSignal;
  readonly longRunning: boolean;
  /** Aborts this request's signal (deadline, client gone). Idempotent. */
  abort(reason: unknown): void;
  /** Removes it from the registry; call exactly once, when the response is done. */
  done(): void;
}

export class InFlightRequests {
  readonly #requests = new Set<{ readonly controller: AbortController; readonly longRunning: boolean }>();
  #idleWaiters: (() => void)[] = [];

  /** Number of requests in progress (long-running included). */
  get size(): number {
    return this.#requests.size;
  }

  track(longRunning: boolean): TrackedRequest {
    const entry = { controller: new AbortController(), longRunning };
    this.#requests.add(entry);
    return {
      signal: entry.controller.signal,
      longRunning,
      abort: (reason) => entry.controller.abort(reason),
      done: () => {
        this.#requests.delete(entry);
        if (this.#requests.size === 0) {
          const waiters = this.#idleWaiters;
          this.#idleWaiters = [];
          for (const w of waiters) w();
        }
      },
    };
  }

  /** Aborts every long-running request (the shutdown delay elapsed: watch clients re-connect to another replica); returns how many. */
  abortLongRunning(reason: unknown): number {
    let n = 0;
    for (const r of this.#requests) {
      if (!r.longRunning) continue;
      r.controller.abort(reason);
      n++;
    }
    return n;
  }

  /** Aborts everything still running (the drain bound passed). */
  abortAll(reason: unknown): void {
    for (const r of this.#requests) r.controller.abort(reason);
  }

  /** Resolves when no request is in progress (at once if none is). */
  idle(): Promise<void> {
    if (this.#requests.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
}
