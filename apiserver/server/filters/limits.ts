import { requestEntityTooLarge, tooManyRequests } from '../../errors/constructors.js';
import { isHealthPath } from '../public-paths.js';
import type { Filter } from '../../request/request-state.js';

export interface LimitsOptions {
  /** Non-mutating requests in flight at once; 0: unlimited. */
  readonly maxReadOnly: number;
  /** Mutating requests (POST, PUT, PATCH, DELETE) in flight at once; 0: unlimited. */
  readonly maxMutating: number;
  /** Largest request body accepted, by its declared Content-Length (3 MiB as kube-apiserver). */
  readonly maxBodyBytes: number;
  /** Told the in-flight counts each time a request takes a slot (`apiserver_current_inflight_requests`). */
  readonly inflight?: { recordInflight(readOnly: number, mutating: number): void };
}

const mutating = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Cheap limits before any work: a declared body larger than the limit gets 413 (a body decoder must still
 * cap chunked bodies while reading them), and more than the allowed number of requests in flight gets
 * 429 with `Retry-After: 1`. Long-running requests (watches) take no slot, as in kube-apiserver; health
 * probes take none either, so an overloaded server is not also reported dead. Runs after request-lifecycle
 * (it reads `ctx.state.longRunning`).
 */
export function limits(options: LimitsOptions): Filter {
  let readOnly = 0;
  let mutatingCount = 0;
  return async function limitsFilter(ctx, next) {
    const length = Number(ctx.get('Content-Length') || '0');
    if (length > options.maxBodyBytes) {
      throw requestEntityTooLarge(`limit is ${options.maxBodyBytes}`);
    }
    if (ctx.state.longRunning || isHealthPath(ctx.path)) {
      await next();
      return;
    }
    const isMutating = mutating.has(ctx.method);
    const max = isMutating ? options.maxMutating : options.maxReadOnly;
    const current = isMutating ? mutatingCount : readOnly;
    if (max > 0 && current >= max) throw tooManyRequests();
    if (isMutating) mutatingCount++;
    else readOnly++;
    options.inflight?.recordInflight(readOnly, mutatingCount);
    try {
      await next();
    } finally {
      if (isMutating) mutatingCount--;
      else readOnly--;
    }
  };
}
