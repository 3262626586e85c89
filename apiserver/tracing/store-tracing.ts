/**
 * The tracer's hook into the instrumented store (storage/instrumented-store.ts): a child span per store
 * call made for a sampled request, named as kube-apiserver's storage spans (`Create etcd3`, `Get etcd3`,
 * `GuaranteedUpdate etcd3`...) with the backend's name (`etcd3`, or `embedded` for the embedded store) and
 * kube's attributes (`audit-id`, `key`, `resource`), plus `operation` (the etcd_request_duration_seconds
 * label). Calls of no sampled request (watch caches, controllers, unsampled requests) get no span: the hook
 * returns undefined after one AsyncLocalStorage read.
 *
 * A call that throws marks its span failed, except for the answers a Store gives by throwing (NotFound,
 * AlreadyExists, Conflict), which are recorded as the span's `outcome`.
 */
import { isBackendFailure, type StoreCallHook, type StoreOperation } from '../../storage/instrumented-store.js';
import type { StorageError } from '../../storage/errors.js';
import { activeTrace } from './active-trace.js';
import { markError } from './spans.js';

/** kube's verbs of its storage spans, per store operation. */
const VERBS: Readonly<Record<StoreOperation, string>> = {
  get: 'Get',
  list: 'List',
  listWithCount: 'Count',
  create: 'Create',
  update: 'GuaranteedUpdate',
  delete: 'Delete',
  txn: 'Txn',
};

/** The hook for a store of `backend` (`etcd` or `memory`). */
export function storeTracingHook(backend: 'etcd' | 'memory'): StoreCallHook {
  const names = Object.fromEntries(
    Object.entries(VERBS).map(([op, verb]) => [op, `${verb} ${backend === 'etcd' ? 'etcd3' : 'embedded'}`]),
  ) as Record<StoreOperation, string>;
  return {
    begin(operation, type, key) {
      const trace = activeTrace();
      if (trace === undefined) return undefined;
      const span = trace.tracing.child(trace, names[operation], { operation, resource: type, key });
      return (err) => {
        if (err !== undefined) {
          if (isBackendFailure(err)) markError(span, err);
          else span.setAttribute('outcome', (err as StorageError).code);
        }
        span.end();
      };
    },
  };
}
