/**
 * The request trace of the code running now, for the places that have no request context to carry it:
 * the admission chain (it sees only the admission attributes) and the store calls (the Store contract has
 * no per-call context). Everything with `ctx` reads `ctx.state.trace` instead.
 *
 * One AsyncLocalStorage for the process. It is enabled only by `runInTrace`, which the tracing filter calls
 * for sampled requests, so a server without `--tracing-config-file` never installs Node's promise hooks
 * (`activeTrace()` is then a property read that returns undefined). Once a server traced one request the
 * hooks stay installed; their cost is part of the measured cost of tracing (docs/tracing.md).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { TraceScope } from './request-tracing.js';

const active = new AsyncLocalStorage<TraceScope>();

/** The trace of the sampled request (or admission phase) this code runs for; undefined otherwise. */
export function activeTrace(): TraceScope | undefined {
  return active.getStore();
}

/** Runs `fn` (and every asynchronous continuation it starts) with `scope` as the active trace. */
export function runInTrace<T>(scope: TraceScope, fn: () => T): T {
  return active.run(scope, fn);
}
