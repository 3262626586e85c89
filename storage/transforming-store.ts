/**
 * A Store decorator that transforms values on their way to and from the backend: kube's value transformer
 * (storage/value), which encryption at rest plugs into. Everything above it (the registry, the watch cache,
 * controllers, the compactor) sees plaintext; the backend only ever holds what `toStorage` produced.
 *
 * It knows nothing of encryption, resources or keys' meaning: the caller passes `transformerFor(key)`, which
 * returns the transformer of the key's value, or undefined for a key whose value passes through untouched
 * (keys that are not objects of a resource, such as the compactor's `compact_rev_key`). It is asked on every
 * value, so a caller that swaps its configuration (a reload) is followed at once.
 *
 * Contract:
 * - writes (`create`, `update`, `txn` puts) store `toStorage(value, key)`;
 * - reads (`get`, `list`, watch events' `kv` and `prev`, `delete`'s `prev`, the `current` of a `Conflict` /
 *   `AlreadyExists` error and of a failed `txn`) hand out new `KeyValue`s with `fromStorage(value, key)`;
 *   the backend's objects are never mutated;
 * - a value the transformer cannot read throws `StorageError` `TransformFailed` naming the key (kube's
 *   InternalError "unable to transform key ..."): from the read, or from the watch iterator (the watch ends;
 *   a watch cache re-watches and meets it again, loudly, until the configuration can read it);
 * - a delete event's `kv` carries an empty value by contract and is not transformed;
 * - a value the transformer read with anything but its write provider and key is "stale"
 *   (`isStaleValue(kv)`): an update that would otherwise be skipped as a no-op must still write it, so a
 *   storage migration re-encrypts it (kube's GuaranteedUpdate). Staleness is remembered per handed-out
 *   `KeyValue` object (a WeakSet), so it follows that object through wrappers above this one.
 *
 * `key` is passed to the transformer too: authenticated encryption binds a value to its key (kube's
 * authenticated data is the etcd key), so a value copied to another key does not decrypt.
 */
import { StorageError, transformFailed } from './errors.js';
import { ForwardingStore } from './forwarding-store.js';
import type {
  Compare,
  DeleteResult,
  GetOptions,
  GetResult,
  KeyValue,
  ListOptions,
  ListResult,
  Store,
  TxnOp,
  TxnResult,
  WatchBatch,
  WatchEvent,
  WatchOptions,
  WriteOptions,
  WriteResult,
} from './interface.js';

/** What a read from storage gives: the plaintext, and whether it was written by an older provider or key. */
export interface TransformedValue {
  readonly value: Uint8Array;
  readonly stale: boolean;
}

/** Transforms one resource's values. Both directions throw an Error on failure (its message is kept). */
export interface ValueTransformer {
  fromStorage(stored: Uint8Array, key: string): TransformedValue;
  toStorage(plain: Uint8Array, key: string): Uint8Array;
}

/** The transformer of `key`'s value; undefined: the value passes through as it is. */
export type TransformerForKey = (key: string) => ValueTransformer | undefined;

const staleValues = new WeakSet<KeyValue>();

/** True when `kv` (as handed out by a transforming store) was read with a provider or key that does not write. */
export function isStaleValue(kv: KeyValue): boolean {
  return staleValues.has(kv);
}

/** `store` with its values transformed per key (see the file comment). */
export function transformStore(store: Store, transformerFor: TransformerForKey): Store {
  return new TransformingStore(store, transformerFor);
}

class TransformingStore extends ForwardingStore {
  constructor(
    inner: Store,
    private readonly transformerFor: TransformerForKey,
  ) {
    super(inner);
  }

  override async get(key: string, options?: GetOptions): Promise<GetResult> {
    const res = await this.inner.get(key, options);
    return res.kv === undefined ? res : { kv: this.read(res.kv), revision: res.revision };
  }

  override async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const res = await this.inner.list(prefix, options);
    if (res.items.length === 0) return res;
    return { ...res, items: res.items.map((kv) => this.read(kv)) };
  }

  override create(key: string, value: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    return this.fixError(this.inner.create(key, this.write(key, value), options));
  }

  override update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult> {
    return this.fixError(this.inner.update(key, this.write(key, value), expectedModRevision, options));
  }

  override async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const res = await this.fixError(this.inner.delete(key, expectedModRevision));
    return { revision: res.revision, prev: this.read(res.prev) };
  }

  override async txn(compares: readonly Compare[], ops: readonly TxnOp[]): Promise<TxnResult> {
    const stored = ops.map((op): TxnOp => (op.type === 'put' ? { type: 'put', key: op.key, value: this.write(op.key, op.value) } : op));
    const res = await this.inner.txn(compares, stored);
    if (res.current.length === 0) return res;
    return { ...res, current: res.current.map((kv) => (kv === undefined ? undefined : this.read(kv))) };
  }

  override watch(prefix: string, options?: WatchOptions): AsyncIterable<WatchBatch> {
    const inner = this.inner.watch(prefix, options);
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        for await (const batch of inner) {
          if (batch.events.length === 0) {
            yield batch;
            continue;
          }
          yield { revision: batch.revision, events: batch.events.map((e) => self.readEvent(e)) };
        }
      },
    };
  }

  private readEvent(e: WatchEvent): WatchEvent {
    if (e.type === 'put') return { type: 'put', kv: this.read(e.kv), prev: e.prev === undefined ? undefined : this.read(e.prev) };
    return { type: 'delete', kv: e.kv, prev: this.read(e.prev) };
  }

  private read(kv: KeyValue): KeyValue {
    const t = this.transformerFor(kv.key);
    if (t === undefined) return kv;
    let out: TransformedValue;
    try {
      out = t.fromStorage(kv.value, kv.key);
    } catch (err) {
      throw transformFailed(kv.key, err);
    }
    const plain: KeyValue = { key: kv.key, value: out.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
    if (out.stale) staleValues.add(plain);
    return plain;
  }

  private write(key: string, value: Uint8Array): Uint8Array {
    const t = this.transformerFor(key);
    if (t === undefined) return value;
    try {
      return t.toStorage(value, key);
    } catch (err) {
      throw transformFailed(key, err);
    }
  }

  /** The `current` a Conflict / AlreadyExists error carries, read through the transformer. */
  private async fixError<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (err) {
      if (err instanceof StorageError && err.current !== undefined) {
        throw new StorageError(err.code, err.message, {
          key: err.key,
          current: this.read(err.current),
          compactedRevision: err.compactedRevision,
          currentRevision: err.currentRevision,
          requestedRevision: err.requestedRevision,
          cause: err.cause,
        });
      }
      throw err;
    }
  }
}
