import { requestEntityTooLarge } from '../../errors/constructors.js';
import type { Filter } from '../../request/request-state.js';

export interface LimitsOptions {
  /** Largest request body accepted, by its declared Content-Length (3 MiB as kube-apiserver). */
  readonly maxBodyBytes: number;
}

/**
 * Cheap limits before any work: a declared body larger than the limit gets 413 (a body decoder must still
 * cap chunked bodies while reading them). The in-flight limits come later, once the user is known
 * (max-inflight.ts, priority-and-fairness.ts).
 */
export function limits(options: LimitsOptions): Filter {
  return async function limitsFilter(ctx, next) {
    const length = Number(ctx.get('Content-Length') || '0');
    if (length > options.maxBodyBytes) {
      throw requestEntityTooLarge(`limit is ${options.maxBodyBytes}`);
    }
    await next();
  };
}
