import { unavailable, type StorageError } from '../errors.js';

export interface FreshnessOptions {
  /** How long a wait lasts before `FutureRevision`. */
  readonly timeoutMs: number;
  /** While anyone waits, progress is requested this often (the first request at once). */
  readonly progressEveryMs: number;
  /** Asks the store for a progress batch (best effort; errors are ignored). */
  readonly requestProgress: () => Promise<void>;
  /** Reports a finished wait (zero for a read at a revision > 0 that was fresh at once). */
  readonly observe?: (seconds: number, outcome: 'fresh' | 'timeout') => void;
}

interface Waiter {
  readonly revision: number;
  readonly startedAt: number;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Reads and watches that need the cache at a revision it has not reached yet (KEP-2340 "consistent reads
 * from cache", invariant 4). A waiter is released as soon as the cache's revision reaches its own; after
 * `timeoutMs` it gets `FutureRevision` (requested and current revision), which the API layer answers 504
 * "Too large resource version". While anyone waits, the store is asked for progress every
 * `progressEveryMs`, so an idle prefix reaches the store's current revision in ~one round trip instead of
 * etcd's 10-minute progress interval.
 */
export class FreshnessWaiters {
  private readonly waiters = new Set<Waiter>();
  private ticker: NodeJS.Timeout | undefined;

  constructor(private readonly options: FreshnessOptions) {}

  get waiting(): number {
    return this.waiters.size;
  }

  /**
   * Resolves once `isFresh(revision)` holds (checked now and on every `advance`), or rejects with
   * `timeoutError(revision)` after the timeout, or with the signal's reason when it aborts.
   */
  wait(
    revision: number,
    isFresh: (rev: number) => boolean,
    timeoutError: (rev: number) => StorageError,
    signal?: AbortSignal,
  ): Promise<void> {
    if (isFresh(revision)) {
      // Reads that found the cache fresh count too (as zero waits), or the histogram only shows the slow ones.
      if (revision > 0) this.options.observe?.(0, 'fresh');
      return Promise.resolve();
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
        if (this.waiters.size === 0) this.stopTicker();
      };
      const waiter: Waiter = {
        revision,
        startedAt: Date.now(),
        resolve: () => {
          cleanup();
          this.options.observe?.((Date.now() - waiter.startedAt) / 1000, 'fresh');
          resolve();
        },
        reject: (err) => {
          cleanup();
          reject(err);
        },
      };
      const onAbort = (): void => waiter.reject(signal!.reason);
      const timer = setTimeout(() => {
        this.options.observe?.((Date.now() - waiter.startedAt) / 1000, 'timeout');
        waiter.reject(timeoutError(revision));
      }, this.options.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
      this.startTicker();
    });
  }

  /** Releases every waiter whose revision is now fresh. */
  advance(isFresh: (rev: number) => boolean): void {
    for (const w of this.waiters) if (isFresh(w.revision)) w.resolve();
  }

  /** Rejects every waiter (the cache stopped). */
  failAll(err: StorageError = unavailable('the watch cache stopped')): void {
    for (const w of this.waiters) w.reject(err);
  }

  private startTicker(): void {
    if (this.ticker !== undefined) return;
    const ask = (): void => {
      this.options.requestProgress().catch(() => undefined);
    };
    ask();
    this.ticker = setInterval(ask, this.options.progressEveryMs);
    this.ticker.unref();
  }

  private stopTicker(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
  }
}
