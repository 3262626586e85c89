import { Registry } from 'prom-client';
import type { ServedResource } from '../registry/served-resources.js';
import { naming } from '../naming/naming.js';
import { configMaps } from '../registry/kinds/core/configmap.js';
import { parseRequestInfo, type RequestInfo } from '../request/request-info.js';
import { scopeIndex, verbIndex } from './request-labels.js';
import { RequestMetrics, nonResourcePathLabel } from './request-metrics.js';

const served = (over: Partial<ServedResource> = {}): ServedResource =>
  ({ strategy: configMaps, group: '', set: '', registry: undefined as never, ...over });

const info = (method: string, path: string): RequestInfo => parseRequestInfo(method, path, new URLSearchParams());

describe('RequestMetrics', () => {
  it('folds unknown sub-resources and unserved resources; keeps bounded non-resource paths', async () => {
    const registry = new Registry();
    const m = new RequestMetrics(registry, naming('platform.io'));
    const cm = served();
    const record = (i: RequestInfo, s: ServedResource | undefined, path: string, code: number) =>
      m.record(i, s, path, verbIndex(i, i.isResourceRequest ? 'GET' : 'GET', ''), scopeIndex(i), 0, code, 0.001, 10);
    for (const sub of ['a', 'b', 'c']) record(info('GET', `/api/v1/namespaces/n/configmaps/x/${sub}`), cm, '', 404);
    record(info('GET', '/api/v1/namespaces/n/nothings'), undefined, '', 404);
    record(info('GET', '/apis/x.example/v1/things'), undefined, '', 404);
    record(info('GET', '/healthz/etcd'), undefined, '/healthz/etcd', 200);
    record(info('GET', '/random/path'), undefined, '/random/path', 404);
    const text = await registry.metrics();
    const lines = text.split('\n').filter((l) => l.startsWith('apiserver_request_total{'));
    expect(lines).toEqual([
      'apiserver_request_total{verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="unknown",scope="resource",component="apiserver",code="404"} 3',
      'apiserver_request_total{verb="LIST",dry_run="",group="",version="",resource="unknown",subresource="",scope="namespace",component="apiserver",code="404"} 1',
      'apiserver_request_total{verb="LIST",dry_run="",group="",version="",resource="unknown",subresource="",scope="cluster",component="apiserver",code="404"} 1',
      'apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="/healthz/*",scope="",component="apiserver",code="200"} 1',
      'apiserver_request_total{verb="GET",dry_run="",group="",version="",resource="",subresource="other",scope="",component="apiserver",code="404"} 1',
    ]);
    expect(['/api', '/apis/', '/apis/apps', '/apis/apps/v1', '/api/v1', '/openapi/v3/apis/apps/v1', '/metrics', '/x'].map(nonResourcePathLabel))
      .toEqual(['/api', '/apis', '/apis/*', '/apis/*', '/api/*', '/openapi/v3/*', '/metrics', 'other']);
  });

  it('sets apiserver_requested_deprecated_apis once a deprecated version is requested', async () => {
    const registry = new Registry();
    const m = new RequestMetrics(registry, naming('platform.io'));
    const crd = served({ strategy: { ...configMaps, group: 'x.example', version: 'v1beta1', resource: 'things', deprecationWarning: 'old' }, group: 'x.example', set: 'things.x.example' });
    const i = info('GET', '/apis/x.example/v1beta1/things');
    expect(await registry.metrics()).not.toContain('apiserver_requested_deprecated_apis{');
    m.record(i, crd, '', verbIndex(i, 'GET', ''), scopeIndex(i), 0, 200, 0.01, 10);
    expect(await registry.metrics()).toContain('apiserver_requested_deprecated_apis{group="x.example",version="v1beta1",resource="things",subresource="",removed_release=""} 1');
  });

  it('keeps the in-flight maximum of each period, then starts again from 0 (kube\'s watermark)', async () => {
    const registry = new Registry();
    const m = new RequestMetrics(registry, naming('platform.io'));
    m.recordInflight(3, 1);
    m.recordInflight(1, 2);
    m.flushInflightPeriod();
    const text = await registry.metrics();
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 3');
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 2');
    m.flushInflightPeriod();
    expect(await registry.metrics()).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 0');
  });
});
