/**
 * The server's metrics: one prom-client Registry with every family (/metrics serves it), the store wrapped
 * per resource to time its calls, the runtime and storage size collectors, and encryption at rest's
 * families and key reload. Whatever keeps running registers its stop in `cleanups`.
 */
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { Store } from '../../storage/interface.js';
import { instrumentStore } from '../../storage/instrumented-store.js';
import { openSizeMonitor } from '../../storage/size-monitor.js';
import type { ServerConfig } from '../config/server-config.js';
import type { EncryptionAtRest } from '../encryption/encryption-at-rest.js';
import type { Logger } from '../log/logger.js';
import { admissionMetrics, policyCheckMetrics } from '../metrics/admission-metrics.js';
import { AuthMetrics } from '../metrics/auth-metrics.js';
import { FlowControlMetrics } from '../metrics/flowcontrol-metrics.js';
import { RequestMetrics } from '../metrics/request-metrics.js';
import { runtimeMetrics } from '../metrics/runtime-metrics.js';
import { storageMetrics, storageSizeMetrics } from '../metrics/storage-metrics.js';
import { watchCacheMetrics } from '../metrics/watch-cache-metrics.js';
import type { Naming } from '../naming/naming.js';

export function assembleMetrics(
  config: ServerConfig,
  names: Naming,
  store: Store,
  encryption: EncryptionAtRest | undefined,
  logger: Logger,
  cleanups: (() => Promise<void>)[],
) {
  const metrics = new Registry();
  const cacheMetrics = watchCacheMetrics(metrics);
  // Request metrics (apiserver/metrics/request-metrics.ts): the families are always served; recording is
  // on unless --request-metrics=false (the benchmark's baseline).
  const requestMetrics = new RequestMetrics(metrics, names);
  const authMetrics = new AuthMetrics(metrics);
  const flowControlMetrics = new FlowControlMetrics(metrics);
  const recordRequests = config.requestMetrics !== false;
  if (recordRequests) {
    const stopInflightPeriods = requestMetrics.startInflightPeriods();
    cleanups.push(async () => stopInflightPeriods());
  }
  // Storage, admission and runtime metrics (apiserver/metrics/). Store calls are timed per resource by
  // one wrapper each (storage/instrumented-store.ts); sampled requests get another with the tracer's
  // per-call hook (tracing/traced-resource.ts).
  const storeMetrics = storageMetrics(metrics);
  const admissionTimings = admissionMetrics(metrics);
  const policyChecks = policyCheckMetrics(metrics);
  // --request-metrics=false also leaves store calls and admission unrecorded (the benchmark's baseline).
  const storeFor = (type: string): Store =>
    instrumentStore(store, type, recordRequests ? { metrics: storeMetrics } : {});
  if (encryption !== undefined) {
    encryption.instrument(metrics);
    if (config.encryption?.automaticReload === true) {
      const reload = encryption.startReload(metrics, logger.child({ component: 'encryption-config' }));
      cleanups.push(async () => reload.stop());
    }
  }
  const runtime = runtimeMetrics(metrics);
  cleanups.push(async () => runtime.stop());
  const storeSize = storageSizeMetrics(
    metrics,
    openSizeMonitor(config.storage.backend === 'etcd' ? { backend: 'etcd', endpoints: config.storage.endpoints, tls: config.storage.tls } : { backend: 'memory', dataDir: join(config.dataDir, 'store') }),
    { backend: config.storage.backend === 'etcd' ? 'etcd' : 'embedded', onError: (err) => logger.debug({ err }, 'reading the storage size') },
  );
  cleanups.push(() => storeSize.stop());
  return { metrics, cacheMetrics, requestMetrics, authMetrics, flowControlMetrics, recordRequests, storeMetrics, admissionTimings, policyChecks, storeFor };
}
