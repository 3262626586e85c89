import type { FlowControl } from '../../flowcontrol/flow-control.js';
import type { ClassifiedRequest } from '../../flowcontrol/flow-schemas.js';
import type { FlowControlMetrics } from '../../metrics/flowcontrol-metrics.js';
import { internalError, tooManyRequests } from '../../errors/constructors.js';
import { requestInfoOf, type Filter } from '../../request/request-state.js';
import { isMutatingMethod, type InflightRecorder, InflightCounts } from './inflight-counts.js';

export interface PriorityAndFairnessOptions {
  readonly flowControl: FlowControl;
  /** `apiserver_current_inflight_requests` (request metrics on). */
  readonly inflight?: InflightRecorder;
  /** `apiserver_dropped_requests_total` and the flowcontrol families. */
  readonly metrics?: FlowControlMetrics;
}

/**
 * API Priority and Fairness (`--enable-priority-and-fairness`, default true, replacing the max-in-flight
 * filter as in kube-apiserver): after impersonation, so the request is classified as the user it acts as;
 * before authorization. Each request is classified by the built-in flow schemas into a priority level
 * (apiserver/flowcontrol/) and takes one of that level's seats, at once or after waiting in its flow's fair
 * queue; refused (queue full, wait limit passed, a level without queues full, or the client gone while
 * waiting) it gets kube's 429 `Too many requests, please try again later.` with `Retry-After: 1`.
 * `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID` name the classification.
 *
 * Long-running requests (watches, streaming sub-resources) take no seat (kube holds a seat only while a
 * watch initializes). `system:masters` and the health probes are exempt, so a flood from one user never
 * starves them.
 */
export function priorityAndFairness(options: PriorityAndFairnessOptions): Filter {
  const { flowControl, metrics } = options;
  const counts = new InflightCounts(options.inflight);
  return async function priorityAndFairnessFilter(ctx, next) {
    if (ctx.state.longRunning) {
      await next();
      return;
    }
    const user = ctx.state.user;
    if (user === undefined) throw internalError('no user found for request');
    const req: ClassifiedRequest = { user, method: ctx.method, path: ctx.path, info: () => requestInfoOf(ctx) };
    const fs = flowControl.classify(req);
    ctx.set('X-Kubernetes-PF-FlowSchema-UID', fs.schema.uid);
    ctx.set('X-Kubernetes-PF-PriorityLevel-UID', fs.priorityLevelUid);
    const mutating = isMutatingMethod(ctx.method);
    if (!fs.tryStart()) {
      const refused = await fs.wait(req, ctx.state.signal);
      if (refused !== undefined) {
        if (metrics !== undefined) (mutating ? metrics.droppedMutating : metrics.droppedReadOnly).inc();
        throw tooManyRequests();
      }
    }
    counts.start(mutating);
    try {
      await next();
    } finally {
      counts.end(mutating);
      fs.finish();
    }
  };
}
