import type { WatchBatch, WatchEvent } from '../interface.js';
import { compacted, lagging, type StorageError } from '../errors.js';
import type { EventLog } from './event-log.js';

/** What a watcher needs from its hub. */
export interface WatchSource {
  readonly events: EventLog;
  committedRevision(): number;
  compactedRevision(): number;
  remove(w: Watcher): void;
}

export interface WatchLimits {
  /** Buffered events beyond which the watch ends with `Lagging`. */
  readonly maxEvents: number;
  /** Buffered value bytes (kv + prev) beyond which the watch ends with `Lagging`. */
  readonly maxBytes: number;
}

/** Events merged into one catch-up batch at most (whole transactions are never split). */
const CATCH_UP_EVENTS = 1000;
const EVENT_OVERHEAD = 64;

type Waiter = { resolve(r: IteratorResult<WatchBatch>): void; reject(err: unknown): void };

/**
 * One watch: an async iterator over batches. It first CATCHES UP by reading the committed event log from
 * `nextRev` (no copying: the log is the buffer), and once at the end turns LIVE: the hub then pushes each
 * committed group into its bounded queue. Both happen on the event loop thread, and the hub appends to the
 * log before fanning out, so the switch loses and repeats nothing.
 *
 * The queue is bounded by `limits`; overflowing it ends the watch with `Lagging` and frees the queue at
 * once (a writer never waits for a reader). A batch always fits into an empty queue, so one huge
 * transaction does not by itself end a watch. Ending (return, abort, close, error) removes it from the hub.
 */
export class Watcher implements AsyncIterator<WatchBatch>, AsyncIterable<WatchBatch> {
  live = false;
  /** Scratch space for the hub's fan-out of one commit group. */
  pend: WatchEvent[] | undefined;
  pendSource: WatchBatch | null = null;
  pendRev = 0;

  private queue: WatchBatch[] = [];
  private queueHead = 0;
  private queuedEvents = 0;
  private queuedBytes = 0;
  private waiter: Waiter | undefined;
  /** undefined: running; null: ended cleanly; an error: ended with it (thrown once the queue is empty). */
  private ended: StorageError | null | undefined;
  private progressPending = false;
  private readonly onAbort = (): void => this.end(null);

  constructor(
    readonly prefix: string,
    /** The next revision this watch may deliver. */
    public nextRev: number,
    private readonly source: WatchSource,
    private readonly limits: WatchLimits,
    private readonly signal: AbortSignal | undefined,
  ) {
    if (signal?.aborted) this.ended = null;
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  get active(): boolean {
    return this.ended === undefined;
  }

  next(): Promise<IteratorResult<WatchBatch>> {
    if (this.queueHead < this.queue.length) return Promise.resolve({ value: this.shift(), done: false });
    if (this.ended === null) return Promise.resolve({ value: undefined, done: true });
    if (this.ended !== undefined) return Promise.reject(this.ended);
    if (!this.live) {
      let batch: WatchBatch | undefined;
      try {
        batch = this.catchUp();
      } catch (err) {
        this.end(err as StorageError);
        return Promise.reject(err);
      }
      if (batch !== undefined) return Promise.resolve({ value: batch, done: false });
    }
    if (this.progressPending) {
      this.progressPending = false;
      return Promise.resolve({ value: { events: [], revision: this.source.committedRevision() }, done: false });
    }
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  return(): Promise<IteratorResult<WatchBatch>> {
    this.end(null);
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Live delivery of one batch (already filtered to this prefix and to revisions >= nextRev). */
  deliver(batch: WatchBatch): void {
    if (this.ended !== undefined) return;
    this.nextRev = batch.revision + 1;
    if (this.waiter !== undefined) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: batch, done: false });
      return;
    }
    const n = batch.events.length;
    const bytes = batchBytes(batch);
    if (
      this.queueHead < this.queue.length &&
      (this.queuedEvents + n > this.limits.maxEvents || this.queuedBytes + bytes > this.limits.maxBytes)
    ) {
      this.end(lagging(`watch on ${JSON.stringify(this.prefix)} fell more than ${this.queuedEvents} events behind; re-watch from the last revision + 1`));
      return;
    }
    this.queue.push(batch);
    this.queuedEvents += n;
    this.queuedBytes += bytes;
  }

  /** A progress request: an empty batch at the committed revision, after whatever is queued. */
  progress(revision: number): void {
    if (this.ended !== undefined) return;
    if (!this.live) {
      this.progressPending = true;
      return;
    }
    const batch: WatchBatch = { events: [], revision };
    if (this.waiter !== undefined) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: batch, done: false });
      return;
    }
    const last = this.queue[this.queue.length - 1];
    if (this.queueHead < this.queue.length && last !== undefined && last.events.length === 0) {
      this.queue[this.queue.length - 1] = batch; // coalesce repeated requests
    } else {
      this.queue.push(batch);
    }
  }

  /**
   * Ends the watch: `null` cleanly (a pending `next` resolves done), or with an error (a pending `next`
   * rejects; later ones too). Frees the queue and leaves the hub. Idempotent.
   */
  end(err: StorageError | null): void {
    if (this.ended !== undefined) return;
    this.ended = err;
    this.queue = [];
    this.queueHead = 0;
    this.queuedEvents = 0;
    this.queuedBytes = 0;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.source.remove(this);
    const w = this.waiter;
    this.waiter = undefined;
    if (w === undefined) return;
    if (err === null) w.resolve({ value: undefined, done: true });
    else w.reject(err);
  }

  private shift(): WatchBatch {
    const b = this.queue[this.queueHead]!;
    this.queue[this.queueHead++] = undefined as unknown as WatchBatch; // let it be collected
    this.queuedEvents -= b.events.length;
    this.queuedBytes -= batchBytes(b);
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
    return b;
  }

  /**
   * Reads the next batch for this prefix from the committed event log, or turns live and returns
   * undefined at its end. Throws `Compacted` once `nextRev` falls below the compacted revision.
   */
  private catchUp(): WatchBatch | undefined {
    const src = this.source;
    const log = src.events;
    const compactedRev = src.compactedRevision();
    if (this.nextRev < compactedRev) throw compacted(this.nextRev, compactedRev, src.committedRevision());
    let events: WatchEvent[] | undefined;
    let whole: WatchBatch | undefined; // the one matching source batch, when all its events matched
    let matchedBatches = 0;
    let lastEventRev = 0;
    let lastScanned = 0;
    for (let pos = log.seek(this.nextRev); pos < log.end && (events === undefined || events.length < CATCH_UP_EVENTS); pos++) {
      const b = log.get(pos);
      lastScanned = b.revision;
      let matched = 0;
      for (const ev of b.events) {
        if (!ev.kv.key.startsWith(this.prefix)) continue;
        (events ??= []).push(ev);
        matched++;
      }
      if (matched === 0) continue;
      matchedBatches++;
      lastEventRev = b.revision;
      if (matched === b.events.length) whole = b;
    }
    if (lastScanned !== 0) this.nextRev = lastScanned + 1;
    if (events === undefined) {
      this.live = true;
      return undefined;
    }
    return matchedBatches === 1 && whole !== undefined ? whole : { events, revision: lastEventRev };
  }
}

function batchBytes(b: WatchBatch): number {
  let n = 0;
  for (const ev of b.events) n += EVENT_OVERHEAD + ev.kv.value.length + (ev.prev === undefined ? 0 : ev.prev.value.length);
  return n;
}
