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
  WatchBatch,
  WatchOptions,
  WriteOptions,
  WriteResult,
} from './interface.js';

/**
 * A Store that hands every call to `inner` unchanged: the base of the wrappers that change a few calls
 * (instrumented-store.ts times them, transforming-store.ts transforms values) and forward the rest.
 */
export class ForwardingStore implements Store {
  constructor(protected readonly inner: Store) {}

  get(key: string, options?: GetOptions): Promise<GetResult> {
    return this.inner.get(key, options);
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, options);
  }

  create(key: string, value: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    return this.inner.create(key, value, options);
  }

  update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult> {
    return this.inner.update(key, value, expectedModRevision, options);
  }

  delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    return this.inner.delete(key, expectedModRevision);
  }

  txn(compares: readonly Compare[], ops: readonly TxnOp[]): Promise<TxnResult> {
    return this.inner.txn(compares, ops);
  }

  watch(prefix: string, options?: WatchOptions): AsyncIterable<WatchBatch> {
    return this.inner.watch(prefix, options);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  requestProgress(): Promise<void> {
    return this.inner.requestProgress();
  }

  check(): Promise<void> {
    return this.inner.check();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
