/**
 * A Store decorator that times every call the API layer makes for one resource, for metrics (kube's
 * `etcd_request_duration_seconds{operation,type}` and its counters, on either backend) and for tracing (a
 * child span per store call), through one wrapper.
 *
 * It knows nothing of prom-client or OpenTelemetry: the API layer passes `StoreMetrics` (bound to
 * prom-client in apiserver/metrics/storage-metrics.ts) and optionally a `StoreCallHook` (the tracer's).
 * One wrapper is made per served resource with its `type` label (`pods`, `deployments.apps`), and the
 * recorders of its operations are resolved once then, so a call costs two clock reads and one histogram
 * observation plus a counter increment, with nothing looked up by label.
 *
 * Operation names are kube-apiserver 1.32's: `get`, `list` (a recursive list), `listWithCount` (a
 * count-only list, kube's `Count`), `create`, `update`, `delete`; `txn` for a multi-key transaction (kube
 * has none through its storage interface). `currentRevision` is recorded as `list`: kube reads the current
 * resource version for a consistent read from the cache with a one-item list of the resource.
 *
 * A call "fails" (`etcd_request_errors_total`) when the backend could not answer: not for the answers
 * kube's etcd client reports without an error (a missing key, a create of an existing key, a failed
 * compare), which the Store contract throws as `NotFound`, `AlreadyExists` and `Conflict`.
 *
 * Calls not timed, as kube does not time them per resource: `watch` (long-running), `compactedRevision`,
 * `compact`, `requestProgress`, `check`, `close`; they pass through.
 */
import { StorageError } from './errors.js';
import { ForwardingStore } from './forwarding-store.js';
import type {
  Compare,
  DeleteResult,
  GetOptions,
  GetResult,
  ListOptions,
  ListResult,
  Store,
  TxnOp,
  TxnResult,
  WriteOptions,
  WriteResult,
} from './interface.js';

export type StoreOperation = 'get' | 'list' | 'listWithCount' | 'create' | 'update' | 'delete' | 'txn';

export const STORE_OPERATIONS: readonly StoreOperation[] = Object.freeze(['get', 'list', 'listWithCount', 'create', 'update', 'delete', 'txn']);

/** One operation of one resource, resolved once: records a finished call. */
export interface StoreCallRecorder {
  /** `seconds` the call took; `failed` when the backend could not answer (see the file comment). */
  record(seconds: number, failed: boolean): void;
}

/** The metrics side: the recorders of one resource's operations, asked for once per wrapper. */
export interface StoreMetrics {
  recorders(type: string): Readonly<Record<StoreOperation, StoreCallRecorder>>;
}

/**
 * Called with the error a call threw (undefined when it succeeded, also for the failed compare of a
 * `txn`, which is an answer).
 */
export type StoreCallEnd = (error: unknown) => void;

/**
 * The generic per-call hook (the tracer opens a child span): `begin` runs right before the backend call
 * and returns what to call when it settles, or undefined to skip (a request that is not sampled). A
 * wrapper without a hook does not call anything.
 */
export interface StoreCallHook {
  begin(operation: StoreOperation, type: string, key: string): StoreCallEnd | undefined;
}

export interface StoreInstrumentation {
  readonly metrics?: StoreMetrics;
  readonly hook?: StoreCallHook;
}

/** Answers the Store contract throws for outcomes that are not backend errors. */
const ANSWERS: ReadonlySet<string> = new Set(['NotFound', 'AlreadyExists', 'Conflict']);

/** True when `err` means the backend could not answer the call. */
export function isBackendFailure(err: unknown): boolean {
  return !(err instanceof StorageError && ANSWERS.has(err.code));
}

const NOOP: StoreCallRecorder = Object.freeze({ record: () => undefined });
const NOOP_RECORDERS: Readonly<Record<StoreOperation, StoreCallRecorder>> = Object.freeze(
  Object.fromEntries(STORE_OPERATIONS.map((op) => [op, NOOP])) as Record<StoreOperation, StoreCallRecorder>,
);

/**
 * `store` seen through the instrumentation for the resource labelled `type`. Returns `store` itself when
 * there is nothing to record (no metrics, no hook), so an uninstrumented server pays nothing.
 */
export function instrumentStore(store: Store, type: string, instrumentation: StoreInstrumentation): Store {
  if (instrumentation.metrics === undefined && instrumentation.hook === undefined) return store;
  return new InstrumentedStore(store, type, instrumentation.metrics?.recorders(type) ?? NOOP_RECORDERS, instrumentation.hook);
}

/** The clock of the timings: monotonic, milliseconds with sub-microsecond resolution. */
const now = (): number => performance.now();

class InstrumentedStore extends ForwardingStore {
  constructor(
    inner: Store,
    private readonly type: string,
    private readonly ops: Readonly<Record<StoreOperation, StoreCallRecorder>>,
    private readonly hook: StoreCallHook | undefined,
  ) {
    super(inner);
  }

  override get(key: string, options?: GetOptions): Promise<GetResult> {
    const end = this.hook?.begin('get', this.type, key);
    return this.settle(this.ops.get, end, now(), this.inner.get(key, options));
  }

  override list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const op = options?.countOnly === true ? 'listWithCount' : 'list';
    const end = this.hook?.begin(op, this.type, prefix);
    return this.settle(this.ops[op], end, now(), this.inner.list(prefix, options));
  }

  override create(key: string, value: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    const end = this.hook?.begin('create', this.type, key);
    return this.settle(this.ops.create, end, now(), this.inner.create(key, value, options));
  }

  override update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult> {
    const end = this.hook?.begin('update', this.type, key);
    return this.settle(this.ops.update, end, now(), this.inner.update(key, value, expectedModRevision, options));
  }

  override delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const end = this.hook?.begin('delete', this.type, key);
    return this.settle(this.ops.delete, end, now(), this.inner.delete(key, expectedModRevision));
  }

  override txn(compares: readonly Compare[], ops: readonly TxnOp[]): Promise<TxnResult> {
    const end = this.hook?.begin('txn', this.type, compares[0]?.key ?? ops[0]?.key ?? '');
    return this.settle(this.ops.txn, end, now(), this.inner.txn(compares, ops));
  }

  override currentRevision(): Promise<number> {
    const end = this.hook?.begin('list', this.type, '');
    return this.settle(this.ops.list, end, now(), this.inner.currentRevision());
  }

  /**
   * Waits for `call` and records it. One async frame, no closure per call. A backend that throws
   * synchronously (it should not: every method is async) is not timed.
   */
  private async settle<T>(recorder: StoreCallRecorder, end: StoreCallEnd | undefined, start: number, call: Promise<T>): Promise<T> {
    try {
      const result = await call;
      recorder.record((now() - start) / 1000, false);
      if (end !== undefined) end(undefined);
      return result;
    } catch (err) {
      recorder.record((now() - start) / 1000, isBackendFailure(err));
      if (end !== undefined) end(err);
      throw err;
    }
  }
}
