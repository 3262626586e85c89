/**
 * One allocation record per range in the store, as Kubernetes' bitmap allocator keeps
 * `/registry/ranges/serviceips` and `/registry/ranges/servicenodeports`: a RangeAllocation object whose
 * `data` is a bitmap (bit i of byte i/8 set = index i taken), changed only by compare-and-swap on the
 * key's modRevision. The store's transaction decides every allocation, so two replicas can never hand
 * out the same value.
 *
 * Batching: every operation (allocate a given index, allocate any free index, release) is queued; one
 * flush at a time applies ALL queued operations to the newest known record and writes it with one CAS. A
 * conflict (another replica wrote first) returns the current record, and the whole batch is applied again
 * to it. So N concurrent allocations on a replica cost about one CAS per round trip instead of N
 * contending ones, and two replicas contend batch against batch.
 *
 * Free indexes are picked at random, from the upper band (above `offset`) first and then the lower one,
 * as Kubernetes' allocators do. `peek*` answer dry runs from the newest known record without writing.
 * The record is created on the first write; `range` names what the bitmap covers, and a record made for
 * another range is refused (500), as Kubernetes refuses to start on a changed range.
 */
import { randomInt } from 'node:crypto';
import { isStorageError } from '../../../../../storage/errors.js';
import type { KeyValue, Store } from '../../../../../storage/interface.js';

export type AllocationOutcome = { readonly ok: true; readonly index: number } | { readonly ok: false; readonly reason: 'allocated' | 'full' };

type Op =
  | { readonly kind: 'allocate'; readonly index: number; readonly resolve: (o: AllocationOutcome) => void }
  | { readonly kind: 'next'; readonly resolve: (o: AllocationOutcome) => void }
  | { readonly kind: 'release'; readonly index: number; readonly resolve: (o: AllocationOutcome) => void };

interface Pending {
  readonly op: Op;
  readonly reject: (err: unknown) => void;
}

/** The stored form (JSON): core/v1 RangeAllocation's fields. */
interface RangeAllocationRecord {
  readonly apiVersion: 'v1';
  readonly kind: 'RangeAllocation';
  readonly metadata: { readonly creationTimestamp: string };
  readonly range: string;
  /** base64 of the bitmap. */
  readonly data: string;
}

export interface BitmapAllocatorOptions {
  readonly store: Store;
  /** `/registry/ranges/serviceips` ... */
  readonly key: string;
  /** What the bitmap covers (`10.0.0.0/24`, `30000-32767`): stored, and checked on every read. */
  readonly range: string;
  readonly size: number;
  /** Size of the lower band dynamic allocation uses last (see ip-range.ts `staticBandSize`). */
  readonly offset: number;
}

export class BitmapAllocator {
  private readonly queue: Pending[] = [];
  private flushing = false;
  /** The newest record seen (its modRevision is the next CAS's compare); undefined until read. */
  private known: KeyValue | undefined;
  private knownRead = false;

  constructor(private readonly o: BitmapAllocatorOptions) {}

  get size(): number {
    return this.o.size;
  }

  /** Takes `index` if it is free. */
  allocate(index: number): Promise<AllocationOutcome> {
    return this.enqueue((resolve) => ({ kind: 'allocate', index, resolve }));
  }

  /** Takes any free index (`full` when none is left). */
  allocateNext(): Promise<AllocationOutcome> {
    return this.enqueue((resolve) => ({ kind: 'next', resolve }));
  }

  /** Frees `index` (no-op when it is free). */
  async release(index: number): Promise<void> {
    await this.enqueue((resolve) => ({ kind: 'release', index, resolve }));
  }

  /** Dry run of `allocate`: whether `index` is free now. Reserves nothing. */
  async peek(index: number): Promise<AllocationOutcome> {
    const bits = await this.freshBits();
    return isSet(bits, index) ? { ok: false, reason: 'allocated' } : { ok: true, index };
  }

  /** Dry run of `allocateNext`: a random free index now. Reserves nothing. */
  async peekNext(): Promise<AllocationOutcome> {
    const bits = await this.freshBits();
    const i = this.pickFree(bits, new Set());
    return i === undefined ? { ok: false, reason: 'full' } : { ok: true, index: i };
  }

  /** The indexes taken now, read from the store (repair passes and tests). */
  async allocated(): Promise<number[]> {
    const { kv } = await this.o.store.get(this.o.key);
    this.remember(kv);
    const bits = this.decode(kv);
    const out: number[] = [];
    for (let i = 0; i < this.o.size; i++) if (isSet(bits, i)) out.push(i);
    return out;
  }

  private enqueue(make: (resolve: (o: AllocationOutcome) => void) => Op): Promise<AllocationOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ op: make(resolve), reject });
      if (!this.flushing) void this.flush();
    });
  }

  private remember(kv: KeyValue | undefined): void {
    if (kv === undefined || this.known === undefined || kv.modRevision >= this.known.modRevision) this.known = kv;
    this.knownRead = true;
  }

  /** The bitmap as the store holds it now (one read: a dry run must not answer from a stale copy). */
  private async freshBits(): Promise<Uint8Array> {
    this.remember((await this.o.store.get(this.o.key)).kv);
    return this.decode(this.known);
  }

  private decode(kv: KeyValue | undefined): Uint8Array {
    const bits = new Uint8Array(Math.ceil(this.o.size / 8));
    if (kv === undefined) return bits;
    const record = JSON.parse(Buffer.from(kv.value).toString('utf8')) as Partial<RangeAllocationRecord>;
    if (record.range !== this.o.range) {
      throw new Error(`the allocation record ${this.o.key} is for range ${String(record.range)}, not ${this.o.range}`);
    }
    bits.set(Buffer.from(record.data ?? '', 'base64').subarray(0, bits.length));
    return bits;
  }

  private encode(bits: Uint8Array, kv: KeyValue | undefined): Uint8Array {
    let created = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    if (kv !== undefined) created = (JSON.parse(Buffer.from(kv.value).toString('utf8')) as RangeAllocationRecord).metadata?.creationTimestamp ?? created;
    const record: RangeAllocationRecord = {
      apiVersion: 'v1',
      kind: 'RangeAllocation',
      metadata: { creationTimestamp: created },
      range: this.o.range,
      data: Buffer.from(bits).toString('base64'),
    };
    return Buffer.from(JSON.stringify(record));
  }

  /** A random free index not in `taken`: the upper band first, then the lower one. */
  private pickFree(bits: Uint8Array, taken: ReadonlySet<number>): number | undefined {
    const free = (i: number): boolean => !isSet(bits, i) && !taken.has(i);
    const scan = (from: number, to: number): number | undefined => {
      const n = to - from;
      if (n <= 0) return undefined;
      const start = randomInt(n);
      for (let k = 0; k < n; k++) {
        const i = from + ((start + k) % n);
        if (free(i)) return i;
      }
      return undefined;
    };
    return scan(this.o.offset, this.o.size) ?? scan(0, this.o.offset);
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.queue.length);
        try {
          await this.apply(batch);
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Applies every operation of `batch` to the newest record and writes it with one CAS, again on conflicts. */
  private async apply(batch: readonly Pending[]): Promise<void> {
    if (!this.knownRead) this.remember((await this.o.store.get(this.o.key)).kv);
    for (;;) {
      const kv = this.known;
      const bits = this.decode(kv);
      const outcomes: AllocationOutcome[] = [];
      let changed = false;
      for (const { op } of batch) {
        if (op.kind === 'release') {
          if (op.index >= 0 && op.index < this.o.size && isSet(bits, op.index)) {
            clear(bits, op.index);
            changed = true;
          }
          outcomes.push({ ok: true, index: op.index });
        } else if (op.kind === 'allocate') {
          if (isSet(bits, op.index)) outcomes.push({ ok: false, reason: 'allocated' });
          else {
            set(bits, op.index);
            changed = true;
            outcomes.push({ ok: true, index: op.index });
          }
        } else {
          const i = this.pickFree(bits, new Set());
          if (i === undefined) outcomes.push({ ok: false, reason: 'full' });
          else {
            set(bits, i);
            changed = true;
            outcomes.push({ ok: true, index: i });
          }
        }
      }
      if (changed) {
        try {
          const value = this.encode(bits, kv);
          const res = kv === undefined
            ? await this.o.store.create(this.o.key, value)
            : await this.o.store.update(this.o.key, value, kv.modRevision);
          this.known = { key: this.o.key, value, createRevision: kv?.createRevision ?? res.revision, modRevision: res.revision };
        } catch (err) {
          if (isStorageError(err, 'Conflict') || isStorageError(err, 'AlreadyExists') || isStorageError(err, 'NotFound')) {
            this.known = err.current;
            this.knownRead = true;
            continue;
          }
          throw err;
        }
      }
      batch.forEach((p, i) => p.op.resolve(outcomes[i]!));
      return;
    }
  }
}

const isSet = (bits: Uint8Array, i: number): boolean => ((bits[i >> 3] ?? 0) & (1 << (i & 7))) !== 0;
const set = (bits: Uint8Array, i: number): void => {
  bits[i >> 3] = (bits[i >> 3] ?? 0) | (1 << (i & 7));
};
const clear = (bits: Uint8Array, i: number): void => {
  bits[i >> 3] = (bits[i >> 3] ?? 0) & ~(1 << (i & 7));
};
