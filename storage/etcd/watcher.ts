import type { WatchBatch } from '../interface.js';
import { compacted, lagging, type StorageError } from '../errors.js';
import type { CompactionTracker } from './compaction.js';
import { prefixEnd } from './key-value.js';
import type { RawWatchResponse } from './proto.js';
import { toWatchEvent } from './watch-events.js';
import type { WatchStream } from './watch-stream.js';

/** How long a catching-up watcher must hear nothing before etcd's progress broadcasts are trusted for it. */
const SYNC_GRACE_MS = 1_000;

/** How long a progress broadcast waits behind the events etcd may still have in flight for a watcher. */
const PROGRESS_SETTLE_MS = 25;

/** What a watcher needs from the hub that owns the streams. */
export interface WatchHost {
  /** The watcher ended (consumer left, failed): cancel it on its stream. */
  release(watcher: Watcher): void;
  /** etcd canceled the watch for a transient reason: create it again (with backoff) from `nextRevision`. */
  resume(watcher: Watcher): void;
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

  /**
   * Whether etcd has this watcher in its "synced" group (caught up with the store). Progress broadcast by
   * etcd 3.4 < 3.4.25 in answer to a progress request is sent regardless of catching-up watchers (and may
   * even overtake buffered events: etcd#15220), so it is only passed on to watchers known to be synced:
   * started after the current revision, or delivered an event at or after their creation revision, or got
   * a per-watcher progress notification, or (a heuristic) heard nothing for `SYNC_GRACE_MS` since their
   * creation or last catch-up batch: etcd syncs lagging watchers every 100 ms, so a watcher that got no
   * catch-up batch for that long has nothing left to catch up with (unless the server is badly overloaded).
   */
  private synced = false;
  private createdAt = 0;
  private lastCatchUpAt = 0;
  /** Revision of the last progress batch pushed with no events since (repeats carry no news). */
  private lastProgress = -1;
  /** A progress broadcast waiting `PROGRESS_SETTLE_MS` before it is passed on. */
  private pendingProgress: NodeJS.Timeout | undefined;
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

  /** The stream is (re)creating this watch now. */
  starting(): void {
    this.synced = false;
  }

  /** One watch response addressed to this watcher. */
  onResponse(res: RawWatchResponse): void {
    if (!this.active) return;
    const headerRevision = Number(res.header?.revision ?? 0);
    if (res.canceled) {
      const compactRevision = Number(res.compact_revision);
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
      this.createdAt = headerRevision;
      // etcd puts a watcher straight into its synced group when it starts after the current revision.
      this.synced = this.nextRevision > headerRevision;
      this.lastCatchUpAt = Date.now();
      return;
    }
    const raw = res.events;
    if (raw.length > 0) {
      const events = [];
      for (let i = 0; i < raw.length; i++) {
        const event = toWatchEvent(raw[i]!);
        if (event.kv.modRevision >= this.nextRevision) events.push(event);
      }
      if (events.length === 0) return;
      const revision = events[events.length - 1]!.kv.modRevision;
      this.nextRevision = revision + 1;
      if (revision >= this.createdAt) this.synced = true;
      else this.lastCatchUpAt = Date.now();
      this.push({ events, revision });
      return;
    }
    // A progress notification for this watcher: etcd sends those only to synced watchers, in order with
    // the events, so everything up to the header revision has been delivered and the watch can resume after
    // it.
    this.synced = true;
    if (headerRevision >= this.nextRevision) {
      this.nextRevision = headerRevision + 1;
      this.push({ events: [], revision: headerRevision });
    }
  }

  /**
   * A progress broadcast (answer to a progress request) for every watch on the stream. Passed on only when
   * synced, and it does not move the resume point: should it have overtaken an event (etcd#15220), the
   * event is still delivered rather than lost.
   */
  onProgress(revision: number): void {
    if (!this.active || this.stream === undefined || revision < this.nextRevision - 1) return;
    if (!this.synced && Date.now() - this.lastCatchUpAt < SYNC_GRACE_MS) return;
    this.synced = true;
    if (revision === this.lastProgress || this.pendingProgress !== undefined) return;
    // etcd < 3.4.25 may send this answer ahead of events it already took for the watcher (etcd#15220): a
    // consistent read trusting it at once could miss a write it must see. Passed on a moment later, after
    // whatever etcd had in flight for the watcher (delivered meanwhile into the buffer ahead of it).
    this.pendingProgress = setTimeout(() => {
      this.pendingProgress = undefined;
      if (this.active && revision >= this.nextRevision - 1 && revision !== this.lastProgress) this.push({ events: [], revision });
    }, PROGRESS_SETTLE_MS);
    this.pendingProgress.unref?.();
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
    clearTimeout(this.pendingProgress);
    this.pendingProgress = undefined;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.host.release(this);
  }
}
