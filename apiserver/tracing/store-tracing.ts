/**
 * The tracer's hook into the instrumented store (storage/instrumented-store.ts): a child span per store
 * call of a sampled request, under that request's span (the hook is made per request, so the parent is
 * passed explicitly: no AsyncLocalStorage). Spans are named as kube-apiserver's storage spans (`Create
 * etcd3`, `Get etcd3`, `GuaranteedUpdate etcd3`...) with the backend's name (`etcd3`, or `embedded` for
 * the embedded store) and carry kube's attributes (`audit-id`, `key`, `resource`) plus `operation` (the
 * etcd_request_duration_seconds label).
 *
 * A call that throws marks its span failed, except for the answers a Store gives by throwing (NotFound,
 * AlreadyExists, Conflict), which are recorded as the span's `outcome`.
 */
import { isBackendFailure, type StoreCallHook, type StoreOperation } from '../../storage/instrumented-store.js';
import type { StorageError } from '../../storage/errors.js';
import type { TraceScope } from './request-tracing.js';
import { markError } from './spans.js';

export type StoreBackend = 'etcd' | 'memory';

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

const spanNames = (backend: StoreBackend): Readonly<Record<StoreOperation, string>> =>
  Object.freeze(Object.fromEntries(Object.entries(VERBS).map(([op, verb]) => [op, `${verb} ${backend === 'etcd' ? 'etcd3' : 'embedded'}`])) as Record<StoreOperation, string>);

const NAMES: Readonly<Record<StoreBackend, Readonly<Record<StoreOperation, string>>>> = { etcd: spanNames('etcd'), memory: spanNames('memory') };

/** The hook of one sampled request's store calls. */
export function storeTracingHook(parent: TraceScope, backend: StoreBackend): StoreCallHook {
  const names = NAMES[backend];
  return {
    begin(operation, type, key) {
      const span = parent.tracing.child(parent, names[operation], { operation, resource: type, key });
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
