import { lagging, unavailable, type StorageError } from '../errors.js';
import type { CacheFilter, CacheWatchEvent, CacheWatcher } from './types.js';

/** What a watcher needs from its cache. */
export interface WatcherHost {
  /** The watcher ended (for any reason): forget it. Called once. */
  release(w: CacheWatcherImpl<unknown>): void;
  /** The watcher was ended for being slow (metrics). */
  slow(): void;
}

export interface WatcherLimits {
  /** Live events queued beyond this count as falling behind. */
  readonly queueEvents: number;
}

/** kube's time budget: a slow watcher may stay over its queue limit this long in total, refilled over time. */
const MAX_BUDGET_MS = 100;
const REFILL_PER_MS = 50 / 1000;

type Phase = 'starting' | 'catchup' | 'live' | 'ended';

/**
 * One watch on the cache. Events come from three places, in this order, without gap or repeat:
 * `initial` (synthetic ADDED of a state start, ring events of a resume, store events of a catch-up — all
 * produced at the consumer's pace, so they do not count against the queue limit), then `queue` (live
 * events pushed by the dispatcher, bounded).
 *
 * The dispatcher never waits: `pushLive` appends and returns. A queue over `queueEvents` starts spending the
 * watcher's time budget (at most 100 ms, refilled 50 ms/s); if the consumer has not drained it below the
 * limit when the budget runs out, or the queue reaches twice the limit, the watcher ends with `Lagging` and
 * its queue is freed. Other watchers and the writer never notice.
 */
export class CacheWatcherImpl<T> implements CacheWatcher<T>, AsyncIterator<CacheWatchEvent<T>> {
  private phase: Phase = 'starting';
  /** Live events at or below this revision were already delivered (from the ring or the store): skip them. */
  minLiveRevision = 0;
  /** Epoch ms of the next periodic bookmark (Infinity: none). */
  nextBookmarkAt = Infinity;
  readonly started: Promise<void>;

  /** While catching up from the store: produces more `initial` events or turns the watcher live. */
  private catchUp: (() => Promise<void>) | undefined;
  private onEnd: (() => void) | undefined;
  private stepping: Promise<void> | undefined;
  private initial: CacheWatchEvent<T>[] = [];
  private initialHead = 0;
  private queue: CacheWatchEvent<T>[] = [];
  private queueHead = 0;
  private error: StorageError | undefined;
  private wakers: (() => void)[] = [];
  private settleStart!: { resolve(): void; reject(err: unknown): void };
  private budgetMs = MAX_BUDGET_MS;
  private budgetAt = Date.now();
  private overflowSince: number | undefined;
  private overflowBatch = 0;
  private overflowTimer: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.end();

  constructor(
    readonly filter: CacheFilter<T>,
    readonly bookmarks: boolean,
    readonly deadline: number | undefined,
    private readonly limits: WatcherLimits,
    private readonly host: WatcherHost,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.started = new Promise<void>((resolve, reject) => {
      this.settleStart = { resolve, reject };
    });
    // Awaiting `started` is optional: the iterator reports the same error.
    this.started.catch(() => undefined);
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  get active(): boolean {
    return this.phase !== 'ended';
  }

  /** Events queued by the dispatcher and not yet taken. */
  get queued(): number {
    return this.queue.length - this.queueHead;
  }

  async next(): Promise<IteratorResult<CacheWatchEvent<T>>> {
    for (;;) {
      if (this.initialHead < this.initial.length) return { value: this.takeInitial(), done: false };
      if (this.queueHead < this.queue.length) return { value: this.takeQueued(), done: false };
      if (this.error !== undefined) {
        const err = this.error;
        this.error = undefined;
        throw err;
      }
      if (this.phase === 'ended') return { value: undefined, done: true };
      if (this.phase === 'catchup' && this.catchUp !== undefined) {
        // One step at a time even if `next()` is called again meanwhile: the store watch has one reader.
        this.stepping ??= this.catchUp()
          .catch((err: unknown) => this.fail(unavailable(`watch catch-up failed: ${String(err)}`, err), true))
          .finally(() => {
            this.stepping = undefined;
          });
        await this.stepping;
        continue;
      }
      await new Promise<void>((resolve) => this.wakers.push(resolve));
    }
  }

  async return(): Promise<IteratorResult<CacheWatchEvent<T>>> {
    this.end();
    return { value: undefined, done: true };
  }

  close(): void {
    this.end();
  }

  /** The start is decided: events may flow. */
  markStarted(): void {
    this.settleStart.resolve();
  }

  /** Catch-up mode: `next()` runs `step` whenever nothing is queued; `onEnd` releases its store watch. */
  beginCatchUp(step: () => Promise<void>, onEnd: () => void): void {
    if (!this.active) return onEnd();
    this.phase = 'catchup';
    this.catchUp = step;
    this.onEnd = onEnd;
    this.wake();
  }

  /** Live mode: the dispatcher's events after `revision` follow what was pushed so far. */
  goLive(revision: number): void {
    this.phase = 'live';
    this.catchUp = undefined;
    this.onEnd = undefined;
    this.minLiveRevision = revision;
    this.wake();
  }

  /** Events the consumer gets before any live one (not bounded: produced at the consumer's pace). */
  pushInitial(events: readonly CacheWatchEvent<T>[]): void {
    if (!this.active) return;
    for (const e of events) this.initial.push(e);
    this.wake();
  }

  /** A live event from the dispatcher, `batch` the dispatch's sequence number. Never blocks. */
  pushLive(event: CacheWatchEvent<T>, batch: number): void {
    if (this.phase !== 'live') return;
    this.queue.push(event);
    this.wake();
    const n = this.queued;
    if (n <= this.limits.queueEvents) return;
    if (this.overflowSince === undefined) {
      const now = Date.now();
      this.refill(now);
      if (this.budgetMs < 1) return this.terminateSlow();
      this.overflowSince = now;
      this.overflowBatch = batch;
      this.overflowTimer = setTimeout(() => {
        if (this.queued > this.limits.queueEvents) this.terminateSlow();
      }, this.budgetMs);
      this.overflowTimer.unref();
    } else if (n > 2 * this.limits.queueEvents && batch !== this.overflowBatch) {
      // Memory stays bounded even within the budget (one large transaction alone never trips this).
      this.terminateSlow();
    }
  }

  /**
   * A bookmark at `revision` (every event up to it is queued already). Skipped, returning false, while the
   * watcher is not live or its queue is at the limit (a bookmark is never worth ending a watch for).
   */
  pushBookmark(revision: number): boolean {
    if (this.phase !== 'live' || this.queued >= this.limits.queueEvents) return false;
    const tail = this.queue[this.queue.length - 1];
    const bookmark: CacheWatchEvent<T> = { type: 'BOOKMARK', revision };
    if (this.queued > 0 && tail!.type === 'BOOKMARK') this.queue[this.queue.length - 1] = bookmark;
    else this.queue.push(bookmark);
    this.wake();
    return true;
  }

  /**
   * Ends the watch with `err`: the iterator delivers what is queued (unless `dropQueued`) and then throws it;
   * `started` rejects with it if still pending. Idempotent.
   */
  fail(err: StorageError, dropQueued = false): void {
    if (!this.active) return;
    if (dropQueued) this.clearQueues();
    this.error = err;
    this.settleStart.reject(err);
    this.finish();
  }

  /** Ends the watch cleanly: the iterator finishes. Idempotent. */
  end(): void {
    if (!this.active) return;
    this.clearQueues();
    this.settleStart.resolve();
    this.finish();
  }

  private finish(): void {
    this.phase = 'ended';
    this.catchUp = undefined;
    this.onEnd?.();
    this.onEnd = undefined;
    clearTimeout(this.overflowTimer);
    this.signal?.removeEventListener('abort', this.onAbort);
    this.host.release(this as CacheWatcherImpl<unknown>);
    this.wake();
  }

  private terminateSlow(): void {
    this.host.slow();
    this.fail(lagging(`watcher did not keep up: more than ${this.limits.queueEvents} events queued; re-watch from the last revision`), true);
  }

  private refill(now: number): void {
    this.budgetMs = Math.min(MAX_BUDGET_MS, this.budgetMs + (now - this.budgetAt) * REFILL_PER_MS);
    this.budgetAt = now;
  }

  private takeInitial(): CacheWatchEvent<T> {
    const e = this.initial[this.initialHead]!;
    this.initial[this.initialHead++] = undefined as unknown as CacheWatchEvent<T>;
    if (this.initialHead === this.initial.length) {
      this.initial = [];
      this.initialHead = 0;
    }
    return e;
  }

  private takeQueued(): CacheWatchEvent<T> {
    const e = this.queue[this.queueHead]!;
    this.queue[this.queueHead++] = undefined as unknown as CacheWatchEvent<T>;
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead >= 1024 && this.queueHead * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
    if (this.overflowSince !== undefined && this.queued <= this.limits.queueEvents) {
      const now = Date.now();
      this.refill(now);
      this.budgetMs = Math.max(0, this.budgetMs - (now - this.overflowSince));
      this.overflowSince = undefined;
      clearTimeout(this.overflowTimer);
    }
    return e;
  }

  private clearQueues(): void {
    this.initial = [];
    this.initialHead = 0;
    this.queue = [];
    this.queueHead = 0;
  }

  private wake(): void {
    if (this.wakers.length === 0) return;
    const wakers = this.wakers;
    this.wakers = [];
    for (const w of wakers) w();
  }
}
