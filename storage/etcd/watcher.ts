import type { WatchBatch } from '../interface.js';
import { compacted, lagging, type StorageError } from '../errors.js';
import type { CompactionTracker } from './compaction.js';
import { prefixEnd } from './key-value.js';
import type { PrefixCheck } from './prefix-unchanged.js';
import type { RawWatchResponse } from './proto.js';
import { toWatchEvent } from './watch-events.js';
import type { WatchStream } from './watch-stream.js';

/** What a watcher needs from the hub that owns the streams. */
export interface WatchHost {
  /** The watcher ended (consumer left, failed): cancel it on its stream. */
  release(watcher: Watcher): void;
  /** etcd canceled the watch for a transient reason: create it again (with backoff) from `nextRevision`. */
  resume(watcher: Watcher): void;
  /** Whether etcd's progress broadcasts are exact (every member orders them: progress-order.ts). */
  progressOrdered(): boolean;
  /** Reads from etcd whether the watcher's prefix is the same at `to` as at `from - 1` (prefix-unchanged.ts). */
  checkUnchanged(watcher: Watcher, from: number, to: number, countBefore: number | undefined): Promise<PrefixCheck>;
}

/**
 * One `watch()` call: the consumer's async iterator and a bounded buffer, fed by whichever raw stream
 * currently carries it (it moves to a new stream after any stream failure).
 *
 * `nextRevision` is the resume point: the revision after the last event delivered into the buffer (0 until
 * etcd pinned "now" for a watch from 0). We track it ourselves because etcd3's Watcher resumes from a wrong
 * revision while catching up; every (re)create starts there, and any event below it is dropped, so a
 * resumed watch neither skips nor repeats a revision.
 *
 * The buffer holds at most `limit` events (one batch larger than that is still accepted into an empty
 * buffer, or it could never be delivered). On overflow the buffered batches are dropped and the iterator
 * throws `Lagging`; the stream is never paused, so one slow consumer holds up no one else.
 */
export class Watcher implements AsyncIterator<WatchBatch>, AsyncIterable<WatchBatch> {
  readonly key: Buffer;
  readonly rangeEnd: Buffer;
  nextRevision: number;
  /** Consecutive failed (re)starts, for backoff; reset by any answer from etcd. */
  attempts = 0;
  /** The stream carrying this watch and its id there; undefined while (re)starting. */
  stream: WatchStream | undefined;
  watchId = 0;

  /** Revision of the last progress batch pushed with no events since (repeats carry no news). */
  private lastProgress = -1;
  /** The newest progress answer beyond the last event not checked yet (0: none), and whether a check runs. */
  private unchecked = 0;
  private checking = false;
  /** Keys under the prefix at `nextRevision - 1`, once a check has read it; the delivered events keep it current. */
  private keyCount: number | undefined;
  private readonly queue: WatchBatch[] = [];
  private head = 0;
  private queued = 0;
  private waiter: { resolve: (r: IteratorResult<WatchBatch>) => void; reject: (e: unknown) => void } | undefined;
  private error: StorageError | undefined;
  private ended = false;
  private readonly onAbort = (): void => this.end();

  constructor(
    prefix: string,
    fromRevision: number,
    private readonly limit: number,
    private readonly host: WatchHost,
    private readonly compaction: CompactionTracker,
    private readonly signal: AbortSignal | undefined,
    /** The contract's `WatchOptions.progressWanted`: progress ahead of the last event is checked only while true. */
    private readonly progressWanted: (() => boolean) | undefined,
  ) {
    this.key = Buffer.from(prefix);
    this.rangeEnd = prefixEnd(this.key);
    this.nextRevision = fromRevision;
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted) this.end();
  }

  /** False once the consumer left or the watch failed: nothing more is delivered. */
  get active(): boolean {
    return !this.ended && this.error === undefined;
  }

  /** One watch response addressed to this watcher. */
  onResponse(res: RawWatchResponse): void {
    if (!this.active) return;
    const headerRevision = (res.header?.revision ?? 0);
    if (res.canceled) {
      const compactRevision = res.compact_revision;
      if (compactRevision > 0) {
        this.compaction.observe(compactRevision);
        this.fail(compacted(this.nextRevision, compactRevision, headerRevision || undefined));
      } else {
        this.host.resume(this);
      }
      return;
    }
    this.attempts = 0;
    if (res.created) {
      if (this.nextRevision === 0) this.nextRevision = headerRevision + 1;
      return;
    }
    const raw = res.events;
    if (raw.length > 0) {
      const events = [];
      let count = this.keyCount;
      for (let i = 0; i < raw.length; i++) {
        const event = toWatchEvent(raw[i]!);
        if (event.kv.modRevision < this.nextRevision) continue;
        events.push(event);
        // A put that (re)created its key adds one; a delete removes one.
        if (count !== undefined) count += event.type === 'delete' ? -1 : event.kv.createRevision === event.kv.modRevision ? 1 : 0;
      }
      if (events.length === 0) return;
      const revision = events[events.length - 1]!.kv.modRevision;
      this.nextRevision = revision + 1;
      this.keyCount = count;
      this.push({ events, revision });
      return;
    }
    // A progress notification for this watcher: etcd sends those only to synced watchers, in order with
    // the events, so everything up to the header revision has been delivered and the watch can resume after
    // it.
    if (headerRevision >= this.nextRevision) {
      this.nextRevision = headerRevision + 1;
      this.push({ events: [], revision: headerRevision });
    }
  }

  /**
   * A progress broadcast: etcd's answer to a progress request, for every watch on the stream, carrying its
   * current revision. From a cluster whose members all order them (progress-order.ts) it is exact: sent
   * behind every event of the stream's watchers up to its revision, once all of them caught up. etcd < 3.4.25
   * sends it ahead of events it already holds for the watcher (etcd#15220: its send loop picks between the
   * two at random, and an event that found the watch's channel full waits in etcd's victim list), and sends
   * it to watchers still catching up too, so a consistent read trusting it at once could miss a write it
   * must see; no later answer on the stream proves otherwise. An answer at the
   * last delivered event's revision is exact (nothing can be missing); one beyond it is passed on only after
   * etcd's MVCC state confirms it (`checkUnchanged`: the prefix at that revision is the prefix the delivered
   * events made), and only while the consumer wants progress (the read costs etcd a scan of the prefix).
   * One check runs at a time; answers arriving meanwhile leave only the newest for the next one.
   *
   * What the check cannot see is a key created and deleted again in between: the state is the same, but
   * those two events may still come, after the progress batch (the resume point does not move, so they are
   * delivered, not lost).
   */
  onProgress(revision: number): void {
    // A watch from "now" has no resume point until etcd created it.
    if (!this.active || this.nextRevision === 0) return;
    const last = this.nextRevision - 1;
    if (revision < last || revision <= this.lastProgress) return;
    if (revision === last || this.host.progressOrdered()) return this.push({ events: [], revision });
    if (revision > this.unchecked) this.unchecked = revision;
    this.check();
  }

  /** Checks the newest unchecked answer with etcd, if the consumer wants progress and no check runs. */
  private check(): void {
    if (this.checking || this.unchecked === 0 || !this.active || this.progressWanted?.() !== true) return;
    const to = this.unchecked;
    const from = this.nextRevision;
    this.unchecked = 0;
    if (to <= this.lastProgress || to < from) return;
    this.checking = true;
    this.host.checkUnchanged(this, from, to, this.keyCount).then(
      (result) => {
        this.checking = false;
        if (!this.active) return;
        if (this.nextRevision !== from) {
          // Events came meanwhile: the answer says nothing about the new resume point until checked again.
          this.onProgress(to);
        } else {
          this.keyCount = result.countBefore;
          if (result.unchanged) this.push({ events: [], revision: to });
        }
        this.check();
      },
      // etcd unreachable, or `from - 1` compacted before the count was known: the next answer tries again.
      () => {
        this.checking = false;
      },
    );
  }

  /** Ends the watch with `err` (after the buffered batches, unless `dropBuffered`). */
  fail(err: StorageError, dropBuffered = false): void {
    if (!this.active) return;
    if (dropBuffered) {
      this.queue.length = 0;
      this.head = 0;
      this.queued = 0;
    }
    this.error = err;
    this.detach();
    if (this.waiter !== undefined && this.head === this.queue.length) {
      const { reject } = this.waiter;
      this.waiter = undefined;
      this.ended = true;
      this.error = undefined;
      reject(err);
    }
  }

  /** Ends the watch without an error (abort, break). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.error = undefined;
    this.queue.length = 0;
    this.head = 0;
    this.queued = 0;
    this.detach();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<WatchBatch>> {
    if (this.head < this.queue.length) return Promise.resolve({ value: this.take(), done: false });
    if (this.error !== undefined) {
      const err = this.error;
      this.error = undefined;
      this.ended = true;
      return Promise.reject(err);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<WatchBatch>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private push(batch: WatchBatch): void {
    const n = batch.events.length;
    this.lastProgress = n === 0 ? batch.revision : -1;
    if (n === 0) {
      // Progress carries no data: keep only the newest one queued behind the last events.
      const tail = this.queue[this.queue.length - 1];
      if (this.queue.length > this.head && tail!.events.length === 0) this.queue[this.queue.length - 1] = batch;
      else this.queue.push(batch);
    } else {
      if (this.queued > 0 && this.queued + n > this.limit) {
        this.fail(lagging(`watch consumer fell behind by more than ${this.limit} events`), true);
        return;
      }
      this.queue.push(batch);
      this.queued += n;
    }
    if (this.waiter !== undefined) {
      const { resolve } = this.waiter;
      this.waiter = undefined;
      resolve({ value: this.take(), done: false });
    }
  }

  private take(): WatchBatch {
    const batch = this.queue[this.head]!;
    this.queue[this.head] = undefined as unknown as WatchBatch;
    this.head += 1;
    this.queued -= batch.events.length;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    return batch;
  }

  private detach(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.host.release(this);
  }
}
