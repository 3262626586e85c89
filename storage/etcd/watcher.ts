import type { WatchBatch } from '../interface.js';
import { compacted, lagging, type StorageError } from '../errors.js';
import type { CompactionTracker } from './compaction.js';
import { prefixEnd } from './key-value.js';
import type { RawWatchResponse } from './proto.js';
import { toWatchEvent } from './watch-events.js';
import type { WatchStream } from './watch-stream.js';

/** How long a catching-up watcher must hear nothing before etcd's progress broadcasts are trusted for it. */
const SYNC_GRACE_MS = 1_000;

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
  /** A broadcast revision waiting to be confirmed by a later answer (see `onProgress`), and that answer's number. */
  private candidate: { readonly revision: number; readonly answer: number } | undefined;
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
    this.candidate = undefined;
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
   * A progress broadcast (etcd's answer to a progress request, for every watch on the stream), numbered
   * `answer` on the stream; `confirmsThrough`: the answers received before the request it answers was sent.
   *
   * etcd < 3.4.25 sends it ahead of events it already holds for the watcher (etcd#15220: its send loop picks
   * between the two at random), so a consistent read trusting it at once could miss a write it must see.
   * Its revision is therefore only a candidate, passed on when a later answer confirms it: one to a request
   * sent after the candidate's answer arrived, by which time etcd had sent what it held (in order, on the same
   * stream, ahead of that answer). Only synced watchers take candidates (etcd 3.4 broadcasts to catching-up
   * ones too). The resume point does not move: should an event come late after all, it is still delivered.
   * Returns true when this answer left a candidate waiting for confirmation.
   */
  onProgress(revision: number, answer: number, confirmsThrough: number): boolean {
    if (!this.active || this.stream === undefined) return false;
    const c = this.candidate;
    if (c !== undefined && c.answer <= confirmsThrough) {
      this.candidate = undefined;
      if (c.revision >= this.nextRevision && c.revision !== this.lastProgress) this.push({ events: [], revision: c.revision });
    }
    if (this.candidate !== undefined) return true;
    if (revision < this.nextRevision - 1 || revision === this.lastProgress) return false;
    if (!this.synced && Date.now() - this.lastCatchUpAt < SYNC_GRACE_MS) return false;
    this.synced = true;
    // At the last delivered event's revision nothing can be missing: no confirmation needed.
    if (revision === this.nextRevision - 1) {
      this.push({ events: [], revision });
      return false;
    }
    this.candidate = { revision, answer };
    return true;
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
