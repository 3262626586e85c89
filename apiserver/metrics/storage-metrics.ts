/**
 * The storage metrics of kube-apiserver 1.32 (its storage/etcd3/metrics), for either backend under the
 * same names, so etcd latency panels and alerts written for kube read the embedded store too:
 *
 * | metric | labels | from |
 * |---|---|---|
 * | `etcd_request_duration_seconds` (histogram, kube's buckets 5 ms .. 60 s) | operation, type | every store call of a served resource (storage/instrumented-store.ts) |
 * | `etcd_requests_total`, `etcd_request_errors_total` | operation, type | the same calls; errors: the backend could not answer |
 * | `apiserver_storage_objects` | resource | the watch cache's object count, after every change |
 * | `apiserver_storage_size_bytes` | storage_cluster_id (`etcd-0`; `embedded-0`) | the database size, polled |
 * | `apiserver_storage_db_total_size_in_bytes` | endpoint | the same per member (kube deprecated it in 1.28 and hides it since 1.29; served because dashboards and the issue read it) |
 *
 * `type` and `resource` are kube's group-resource string: `pods`, `deployments.apps` (the stored
 * resource: events.k8s.io Events count under `events`).
 */
import { Gauge, type Registry } from 'prom-client';
import { STORE_OPERATIONS, type StoreCallRecorder, type StoreMetrics, type StoreOperation } from '../../storage/instrumented-store.js';
import type { StoreSizeMonitor } from '../../storage/size-monitor.js';
import type { WatchCache } from '../../storage/cache/types.js';
import { CounterFamily, HistogramFamily, type CounterCell, type HistogramCell } from './metric-families.js';

/** kube's etcd request latency buckets (the same as its request SLO buckets up to 60 s). */
export const ETCD_REQUEST_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
]);

/** kube's group-resource string: `pods` for the core group, else `<resource>.<group>`. */
export const groupResourceString = (group: string, resource: string): string => (group === '' ? resource : `${resource}.${group}`);

export interface StorageMetrics extends StoreMetrics {
  /** `apiserver_storage_objects{resource}` of one resource. */
  objects(resource: string): ObjectCount;
}

/** One resource's stored-object gauge. */
export interface ObjectCount {
  set(count: number): void;
  /** Drops the series (the resource is no longer served: a CustomResourceDefinition was deleted). */
  remove(): void;
}

export function storageMetrics(registry: Registry): StorageMetrics {
  const latency = new HistogramFamily({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    labelNames: ['operation', 'type'],
    buckets: ETCD_REQUEST_BUCKETS,
    registry,
  });
  const requests = new CounterFamily({
    name: 'etcd_requests_total',
    help: 'Etcd request counts for each operation and object type.',
    labelNames: ['operation', 'type'],
    registry,
  });
  const errors = new CounterFamily({
    name: 'etcd_request_errors_total',
    help: 'Etcd failed request counts for each operation and object type.',
    labelNames: ['operation', 'type'],
    registry,
  });
  // prom-client's Gauge (it can drop a series); set once per cache change, not per request.
  const objectCounts = new Gauge({
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    labelNames: ['resource'],
    registers: [registry],
  });
  return {
    recorders(type) {
      const out = {} as Record<StoreOperation, StoreCallRecorder>;
      for (const operation of STORE_OPERATIONS) out[operation] = new OperationRecorder(latency, requests, errors, operation, type);
      return Object.freeze(out);
    },
    objects(resource) {
      const labels = { resource };
      return { set: (count) => objectCounts.set(labels, count), remove: () => objectCounts.remove(labels) };
    },
  };
}

/**
 * One operation of one resource. Its series are resolved on the first call, not when the resource is
 * served, so `/metrics` lists only the operations that happened (as kube's vectors do), and each later
 * call is a field check and plain additions.
 */
class OperationRecorder implements StoreCallRecorder {
  private latency: HistogramCell | undefined;
  private count: CounterCell | undefined;
  private failures: CounterCell | undefined;

  constructor(
    private readonly latencies: HistogramFamily,
    private readonly requests: CounterFamily,
    private readonly errors: CounterFamily,
    private readonly operation: StoreOperation,
    private readonly type: string,
  ) {}

  record(seconds: number, failed: boolean): void {
    (this.latency ??= this.latencies.child(this.operation, this.type)).observe(seconds);
    (this.count ??= this.requests.child(this.operation, this.type)).inc();
    if (failed) (this.failures ??= this.errors.child(this.operation, this.type)).inc();
  }
}

export interface StorageSizeOptions {
  /** `etcd` or `embedded`: the prefix of `storage_cluster_id` (`etcd-0`). */
  readonly backend: 'etcd' | 'embedded';
  /** How often the size is read. Default 30 s (kube's `--etcd-db-metric-poll-interval`). */
  readonly intervalMs?: number;
  readonly onError?: (err: unknown) => void;
}

export interface StorageSizePoller {
  /** Reads the sizes now (also done at start and every interval). */
  poll(): Promise<void>;
  /** Stops the timer and closes the monitor. */
  stop(): Promise<void>;
}

/**
 * Polls `monitor` at start and every interval into `apiserver_storage_size_bytes` (the first member that
 * answered, as kube reports its storage cluster) and `apiserver_storage_db_total_size_in_bytes{endpoint}`.
 * A member that does not answer keeps its last value. The timer does not keep the process alive.
 */
export function storageSizeMetrics(registry: Registry, monitor: StoreSizeMonitor, o: StorageSizeOptions): StorageSizePoller {
  const registers = [registry];
  const size = new Gauge({
    name: 'apiserver_storage_size_bytes',
    help: 'Size of the storage database file physically allocated in bytes.',
    labelNames: ['storage_cluster_id'],
    registers,
  });
  const perEndpoint = new Gauge({
    name: 'apiserver_storage_db_total_size_in_bytes',
    help: '(Deprecated since 1.28.0) Total size of the storage database file physically allocated in bytes.',
    labelNames: ['endpoint'],
    registers,
  });
  const clusterId = { storage_cluster_id: `${o.backend}-0` };
  let stopped = false;
  const poll = async (): Promise<void> => {
    try {
      const readings = await monitor.sample();
      if (stopped) return;
      for (const r of readings) perEndpoint.set({ endpoint: r.endpoint }, r.bytes);
      if (readings[0] !== undefined) size.set(clusterId, readings[0].bytes);
    } catch (err) {
      o.onError?.(err);
    }
  };
  const timer = setInterval(() => void poll(), o.intervalMs ?? 30_000);
  timer.unref();
  void poll();
  return {
    poll,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await monitor.close();
    },
  };
}

/**
 * `cache` whose `stop()` also drops its resource's `apiserver_storage_objects` series, as kube deletes the
 * stats of a resource it stops serving; everything else is the cache's own.
 */
export function dropCountOnStop<T>(cache: WatchCache<T>, objects: ObjectCount): WatchCache<T> {
  return {
    get revision() {
      return cache.revision;
    },
    ready: () => cache.ready(),
    waitUntilFresh: (rev, signal) => cache.waitUntilFresh(rev, signal),
    get: (key, minRevision) => cache.get(key, minRevision),
    peek: (key) => cache.peek(key),
    noteWrite: (key, revision, value) => cache.noteWrite(key, revision, value),
    ownWrite: (key) => cache.ownWrite(key),
    list: (options) => cache.list(options),
    watch: (options) => cache.watch(options),
    stop() {
      cache.stop();
      objects.remove();
    },
  };
}
