/**
 * The resource metrics API source against a fake metrics server (HTTPS in the test process) registered as
 * the APIService `v1beta1.metrics.k8s.io` in the embedded store: the request it sends (path, selector,
 * the controller's identity headers, TLS verified against the caBundle under the Service's name), the
 * PodMetricsList reduced as kube's client reduces it, and the errors a missing, unavailable or failing
 * metrics API gives; then the HPA controller scaling a ReplicationController from those metrics.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { createInformerFactory, type InformerFactory, type Informer } from '../informer.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { startHorizontalPodAutoscalerController } from './hpa-controller.js';
import { createMetricsApiSource, METRICS_API_SERVICE, parseGoDuration, podMetricsOf, type MetricsApiSource } from './metrics-api-source.js';
import { NO_METRICS_RETURNED } from './metrics-source.js';
import { startFakeMetricsServer, type FakeMetricsServer } from './testing-metrics-server.js';
import { until } from '../../../test/harness/until.js';

const names = naming('k8s.io');
let store: ServedStore;
let apiServices: GenericRegistry;
let informers: InformerFactory;
let informer: Informer;
let backend: FakeMetricsServer;
let source: MetricsApiSource;


async function register(available: boolean, caBundle = backend.caBundle): Promise<void> {
  const existing = await apiServices.get('', METRICS_API_SERVICE).catch(() => undefined);
  if (existing !== undefined) await apiServices.delete('', METRICS_API_SERVICE);
  await apiServices.create('', {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: METRICS_API_SERVICE },
    spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { namespace: 'kube-system', name: 'metrics-server', port: 443 }, caBundle },
  });
  const condition = { type: 'Available', status: available ? 'True' : 'False', lastTransitionTime: rfc3339(new Date()), reason: available ? 'Passed' : 'FailedDiscoveryCheck', message: available ? 'all checks passed' : 'down' };
  await apiServices.patch('', METRICS_API_SERVICE, (a) => ({ ...a, status: { conditions: [condition] } }), { subresource: 'status' });
  await until('the informer', async () => (informer.get('', METRICS_API_SERVICE)?.status as { conditions?: Array<{ status: string }> } | undefined)?.conditions?.[0]?.status === condition.status ? true : undefined);
}

beforeEach(async () => {
  store = await openServedStore(names);
  apiServices = store.served.lookup('apiregistration.k8s.io', 'v1', 'apiservices')!.registry;
  informers = createInformerFactory({ rewatchDelayMs: 50 });
  informer = informers.informer(apiServices);
  await informer.synced;
  backend = await startFakeMetricsServer({ service: 'metrics-server', namespace: 'kube-system' });
  source = createMetricsApiSource({
    apiService: () => informer.get('', METRICS_API_SERVICE),
    naming: names,
    resolve: (s) => {
      if (s.namespace !== 'kube-system' || s.name !== 'metrics-server' || s.port !== 443) throw new Error(`unexpected service ${s.namespace}/${s.name}:${s.port}`);
      return { host: '127.0.0.1', port: backend.port };
    },
    timeoutMs: 5000,
  });
});

afterEach(async () => {
  source.close();
  await backend.stop();
  await informers.stop();
  await store.close();
});

test('reads the pods of a selector from the registered metrics API, as the HPA controller', async () => {
  await register(true);
  backend.setPod('ns1', 'a', { app: 'web' }, 120);
  backend.setPod('ns1', 'b', { app: 'web' }, 80);
  backend.setPod('ns1', 'other', { app: 'db' }, 900);
  backend.setPod('ns2', 'c', { app: 'web' }, 700);
  const got = await source.podCpu('ns1', 'app=web');
  expect([...got.metrics.entries()].map(([n, m]) => [n, m.milliCpu, m.windowMs]).sort()).toEqual([['a', 120, 30_000], ['b', 80, 30_000]]);
  expect(Math.abs(got.timestamp.getTime() - Date.now())).toBeLessThan(5000);
  const seen = backend.requests.at(-1)!;
  expect(seen.path).toBe('/apis/metrics.k8s.io/v1beta1/namespaces/ns1/pods');
  expect(seen.query).toBe('?labelSelector=app%3Dweb');
  expect(seen.remoteUser).toBe('system:serviceaccount:kube-system:horizontal-pod-autoscaler');
  expect(seen.remoteGroups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']);
});

test('errors: none registered, not Available, a backend error, no items, a caBundle that does not verify', async () => {
  const prefix = 'unable to fetch metrics from resource metrics API: ';
  await expect(source.podCpu('ns1', 'app=web')).rejects.toThrow(`${prefix}the server could not find the requested resource (get pods.metrics.k8s.io)`);
  await register(false);
  await expect(source.podCpu('ns1', 'app=web')).rejects.toThrow(`${prefix}the server is currently unable to handle the request (get pods.metrics.k8s.io)`);
  await register(true);
  await expect(source.podCpu('ns1', 'app=web')).rejects.toThrow(NO_METRICS_RETURNED);
  backend.failWith(500);
  await expect(source.podCpu('ns1', 'app=web')).rejects.toThrow(`${prefix}metrics unavailable (500)`);
  backend.failWith(undefined);
  // A caBundle of another CA: TLS fails, with Go's words.
  const other = await startFakeMetricsServer({ service: 'metrics-server', namespace: 'kube-system' });
  try {
    await register(true, other.caBundle);
    await expect(source.podCpu('ns1', 'app=web')).rejects.toThrow(/^unable to fetch metrics from resource metrics API: Get "https:\/\/127\.0\.0\.1:\d+\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/ns1\/pods\?labelSelector=app%3Dweb": .*certificate/);
  } finally {
    await other.stop();
  }
});

test("kube's reduction of a PodMetricsList and Go durations", () => {
  expect(() => podMetricsOf({ items: [] })).toThrow(NO_METRICS_RETURNED);
  const got = podMetricsOf({
    items: [
      { metadata: { name: 'two' }, timestamp: '2024-01-01T00:00:00Z', window: '1m0.5s', containers: [{ name: 'a', usage: { cpu: '250m' } }, { name: 'b', usage: { cpu: '1' } }] },
      { metadata: { name: 'nocpu' }, timestamp: '2024-01-01T00:00:00Z', window: '30s', containers: [{ name: 'a', usage: { cpu: '1' } }, { name: 'b', usage: { memory: '1Mi' } }] },
      { metadata: { name: 'empty' }, timestamp: '2024-01-01T00:00:00Z', window: '30s', containers: [] },
      { metadata: { name: 'nano' }, timestamp: '2024-01-01T00:00:01Z', window: '500ms', containers: [{ name: 'a', usage: { cpu: '1500001n' } }] },
    ],
  });
  expect([...got.metrics.keys()]).toEqual(['two', 'nano']);
  expect(got.metrics.get('two')).toEqual({ milliCpu: 1250, timestamp: new Date('2024-01-01T00:00:00Z'), windowMs: 60_500 });
  expect(got.metrics.get('nano')?.milliCpu).toBe(2); // MilliValue rounds up
  expect(got.timestamp).toEqual(new Date('2024-01-01T00:00:00Z'));
  expect([parseGoDuration('30s'), parseGoDuration('1h2m'), parseGoDuration('1.5s'), parseGoDuration('x'), parseGoDuration('')]).toEqual([30_000, 3_720_000, 1500, 0, 0]);
});

test('the HPA controller scales a ReplicationController from the metrics server', async () => {
  await register(true);
  const rcs = store.served.lookup('', 'v1', 'replicationcontrollers')!.registry;
  const pods = store.served.lookup('', 'v1', 'pods')!.registry;
  const hpas = store.served.lookup('autoscaling', 'v1', 'horizontalpodautoscalers')!.registry;
  await rcs.create('default', {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'web' },
    spec: { replicas: 2, selector: { app: 'web' }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  });
  const longAgo = rfc3339(new Date(Date.now() - 3_600_000));
  for (const name of ['web-1', 'web-2']) {
    await pods.create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '200m' } } }] } });
    await pods.patch('default', name, (p) => ({ ...p, status: { phase: 'Running', startTime: longAgo, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: longAgo }] } }), { subresource: 'status' });
    backend.setPod('default', name, { app: 'web' }, 150); // 75 % of 200m against 50 %: ceil(1.5 × 2) = 3
  }
  await hpas.create('default', {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web' },
    spec: { scaleTargetRef: { apiVersion: 'v1', kind: 'ReplicationController', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: 50 },
  });
  const errors: unknown[] = [];
  const controller = startHorizontalPodAutoscalerController({ resources: store.served, informers, naming: names, metrics: source, syncPeriodMs: 40, onError: (err) => errors.push(err) });
  try {
    await until('the scale-up', async () => (((await rcs.get('default', 'web')).spec as { replicas: number }).replicas === 3 ? true : undefined));
    await until('the status', async () => (((await hpas.get('default', 'web')).status as { desiredReplicas?: number }).desiredReplicas === 3 ? true : undefined));
    const hpa: KubeObject = await hpas.get('default', 'web');
    expect(hpa.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 75 });
    expect(backend.requests.some((r) => r.query === '?labelSelector=app%3Dweb')).toBe(true);
    expect(errors).toEqual([]);
  } finally {
    await controller.stop();
  }
});
