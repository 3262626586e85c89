/**
 * Records every request in kube-apiserver's request metrics (apiserver/metrics/request-metrics.ts):
 * `apiserver_request_total`, `apiserver_request_duration_seconds`, the SLI histogram, response sizes, and
 * `apiserver_requested_deprecated_apis` for deprecated versions. It sits right after request-id (and
 * tracing), outside recover, so the recorded code is the final one and the duration covers the whole
 * chain; a watch is recorded when its stream ends, with its full duration, as kube does.
 *
 * Labels come from what the chain found out on the way: the request info (parsed by authorization, or
 * here for requests refused before it), the served resource the router picked (`ctx.state.served`). The
 * filter leaves the metrics on `ctx.state.requestMetrics` for the watch handler (long-running gauge,
 * watch events). Not installed at all with `--request-metrics=false` (the benchmark's baseline).
 */
import type { RequestMetrics } from '../../metrics/request-metrics.js';
import { VERB_GET, VERB_LIST, dryRunIndex, scopeIndex, verbIndex } from '../../metrics/request-labels.js';
import type { RequestInfo } from '../../request/request-info.js';
import { queryOf, requestInfoOf, type AppContext, type Filter } from '../../request/request-state.js';

export function requestMetrics(metrics: RequestMetrics): Filter {
  return async function metricsFilter(ctx, next) {
    const start = performance.now();
    ctx.state.requestMetrics = metrics;
    let code = 0;
    try {
      await next();
    } catch (err) {
      // Recover renders every error below; what still escapes is answered by Koa with the error's status.
      const status = (err as { status?: unknown }).status;
      code = typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
      throw err;
    } finally {
      record(ctx, metrics, code === 0 ? ctx.res.statusCode : code, (performance.now() - start) / 1000);
    }
  };
}

/** Stands in for request info that cannot be parsed (a 400 before authorization): counted by method, unknown resource. */
const unparsable: RequestInfo = {
  isResourceRequest: false, path: '', verb: '', apiPrefix: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '', parts: [],
};

function record(ctx: AppContext, metrics: RequestMetrics, code: number, seconds: number): void {
  const state = ctx.state;
  let info: RequestInfo | undefined;
  try {
    info = requestInfoOf(ctx);
  } catch {
    info = undefined;
  }
  const method = ctx.method;
  const labelsOf = info ?? unparsable;
  const verb = verbIndex(labelsOf, method, method === 'PATCH' ? ctx.get('Content-Type') : '');
  // Sizes are only recorded for GET and LIST: the length is read only for them.
  const bytes = verb === VERB_GET || verb === VERB_LIST ? (ctx.response.length ?? 0) : 0;
  metrics.record(info, state.served, ctx.path, verb, info === undefined ? 0 : scopeIndex(info), dryRunIndex(queryOf(ctx)), code, seconds, bytes);
}
