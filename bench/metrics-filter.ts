/**
 * The request metrics filter's own cost (issue 16: a few hundred nanoseconds per request), in process: the
 * filter around a resolved `next()` on contexts as the chain leaves them (request info and served resource
 * set), minus a bare `await next()`; and the recording alone (label indexes, the series, a counter and two
 * histograms). Best of three runs of 200,000 each.
 */
import { Registry } from 'prom-client';
import type { ServedResource } from '../apiserver/registry/served-resources.js';
import { dryRunIndex, scopeIndex, verbIndex } from '../apiserver/metrics/request-labels.js';
import { RequestMetrics } from '../apiserver/metrics/request-metrics.js';
import { naming } from '../apiserver/naming/naming.js';
import { configMaps } from '../apiserver/registry/kinds/core/configmap.js';
import { parseRequestInfo } from '../apiserver/request/request-info.js';
import { requestMetrics } from '../apiserver/server/filters/metrics.js';
import type { AppContext } from '../apiserver/request/request-state.js';

const served = { strategy: configMaps, group: '', set: '', registry: undefined as never } as unknown as ServedResource;

function context(method: string, path: string, status: number): AppContext {
  return {
    method,
    path,
    querystring: '',
    state: { requestInfo: parseRequestInfo(method, path, new URLSearchParams()), served },
    res: { statusCode: status },
    response: { length: 1234 },
    get: () => '',
  } as unknown as AppContext;
}

export interface FilterCost {
  /** ns the filter adds to a request. */
  readonly perRequestNs: number;
  /** ns of the recording alone. */
  readonly recordNs: number;
}

export async function metricsFilterCost(): Promise<FilterCost> {
  const m = new RequestMetrics(new Registry(), naming('platform.io'));
  const filter = requestMetrics(m);
  const ctxs = [
    context('GET', '/api/v1/namespaces/n/configmaps/x', 200),
    context('GET', '/api/v1/namespaces/n/configmaps', 200),
    context('POST', '/api/v1/namespaces/n/configmaps', 201),
    context('DELETE', '/api/v1/namespaces/n/configmaps/x', 404),
  ];
  const next = (): Promise<void> => Promise.resolve();
  const timed = async (n: number, body: (k: number) => Promise<void>): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let k = 0; k < n; k++) await body(k);
    return Number(process.hrtime.bigint() - start) / n;
  };
  const N = 200_000;
  const withFilter = (k: number): Promise<void> => filter(ctxs[k & 3]!, next) as Promise<void>;
  await timed(N, withFilter);
  await timed(N, next);
  const best = async (body: (k: number) => Promise<void>): Promise<number> =>
    Math.min(await timed(N, body), await timed(N, body), await timed(N, body));
  const perRequestNs = (await best(withFilter)) - (await best(next));
  const i = ctxs[1]!.state.requestInfo!;
  const noQuery = new URLSearchParams();
  const start = process.hrtime.bigint();
  for (let k = 0; k < 1_000_000; k++) m.record(i, served, '', verbIndex(i, 'GET', ''), scopeIndex(i), dryRunIndex(noQuery), 200, 0.001, 100);
  const recordNs = Number(process.hrtime.bigint() - start) / 1_000_000;
  return { perRequestNs, recordNs };
}
