import { tooManyRequests } from '../../errors/constructors.js';
import { mastersGroup } from '../../auth/user-info.js';
import type { FlowControlMetrics } from '../../metrics/flowcontrol-metrics.js';
import { isHealthPath } from '../public-paths.js';
import type { Filter } from '../../request/request-state.js';
import { InflightCounts, isMutatingMethod, type InflightRecorder } from './inflight-counts.js';

export interface MaxInflightOptions {
  /** `--max-requests-inflight`: non-mutating requests executing at once; 0: unlimited. */
  readonly maxReadOnly: number;
  /** `--max-mutating-requests-inflight`: POST, PUT, PATCH, DELETE executing at once; 0: unlimited. */
  readonly maxMutating: number;
  /** `apiserver_current_inflight_requests` (request metrics on). */
  readonly inflight?: InflightRecorder;
  /** `apiserver_dropped_requests_total`. */
  readonly metrics?: FlowControlMetrics;
}

/**
 * kube-apiserver's max-in-flight limit, used when priority and fairness is off
 * (`--enable-priority-and-fairness=false`): after impersonation, more than the allowed number of requests
 * of a kind executing at once get 429 `Too many requests, please try again later.` with `Retry-After: 1`
 * and count in `apiserver_dropped_requests_total{request_kind}`. Long-running requests (watches) and
 * `system:masters` take no slot, as in kube; health probes take none either (kube counts them), so an
 * overloaded server is not also reported dead.
 */
export function maxInflight(options: MaxInflightOptions): Filter {
  const { maxReadOnly, maxMutating, metrics } = options;
  const counts = new InflightCounts(options.inflight);
  return async function maxInflightFilter(ctx, next) {
    if (ctx.state.longRunning || isHealthPath(ctx.path) || ctx.state.user?.groups.includes(mastersGroup) === true) {
      await next();
      return;
    }
    const mutating = isMutatingMethod(ctx.method);
    const max = mutating ? maxMutating : maxReadOnly;
    if (max > 0 && (mutating ? counts.mutating : counts.readOnly) >= max) {
      if (metrics !== undefined) (mutating ? metrics.droppedMutating : metrics.droppedReadOnly).inc();
      throw tooManyRequests();
    }
    counts.start(mutating);
    try {
      await next();
    } finally {
      counts.end(mutating);
    }
  };
}
