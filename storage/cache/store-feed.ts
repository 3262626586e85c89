import type { KeyValue, Store, WatchBatch } from '../interface.js';
import { isStorageError } from '../errors.js';

/** Where the feed delivers what it reads. Both calls are synchronous: a batch is applied atomically. */
export interface FeedSink {
  /**
   * The complete state under the prefix at `revision` (the first load, or a re-list). After a compacted
   * watch, `compactedRevision` is the store's compacted revision the watch ran into (0 if unknown).
   */
  replace(items: readonly KeyValue[], revision: number, compactedRevision?: number): void;
  /** One store watch batch (events, or progress when empty). */
  apply(batch: WatchBatch): void;
  /** The revision the sink is complete up to: the watch resumes after it. */
  readonly revision: number;
  /** The store watch's `progressWanted`. */
  readonly progressWanted: () => boolean;
}

export interface FeedOptions {
  readonly pageSize: number;
  readonly logger?: { warn(message: string): void };
}

/**
 * The cache's one list+watch on the store (kube's reflector). Loads the prefix with a paged list at one
 * revision, then follows ONE store watch from the revision after it. When that watch ends:
 * - `Lagging` (the cache fell behind the store's buffer) or a transient error: re-watch from the sink's
 *   revision + 1 (after a backoff for errors), so no revision is skipped or repeated;
 * - `Compacted` (the cache's own resume point left the history window): re-list, and the sink ends the
 *   watchers it can no longer continue.
 * It runs until `stop()`.
 */
export class StoreFeed {
  private stopped = false;
  /** Set when a compacted watch forces a re-list: the store's compacted revision it reported. */
  private compactedAt: number | undefined;
  private abort: AbortController | undefined;
  private wakeSleep: (() => void) | undefined;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    private readonly sink: FeedSink,
    private readonly options: FeedOptions,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    this.wakeSleep?.();
  }

  private async run(): Promise<void> {
    let needList = true;
    let failures = 0;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.load();
          needList = false;
        }
        await this.follow(() => {
          failures = 0;
        });
        if (this.stopped) return;
        this.warn('store watch ended unexpectedly; re-watching');
      } catch (err) {
        if (this.stopped) return;
        if (isStorageError(err, 'Compacted')) {
          this.warn(`store watch from revision ${this.sink.revision + 1} is compacted; re-listing`);
          needList = true;
          this.compactedAt = err.compactedRevision ?? 0;
          continue;
        }
        if (isStorageError(err, 'Lagging')) {
          this.warn(`fell behind the store watch at revision ${this.sink.revision}; re-watching`);
          continue;
        }
        failures++;
        this.warn(`store ${needList ? 'list' : 'watch'} failed (${String(err)}); retrying`);
        await this.sleep(Math.min(25 * 2 ** failures, 1000));
      }
    }
  }

  /** A paged list at one revision (the first page's), handed to the sink in one piece. */
  private async load(): Promise<void> {
    const items: KeyValue[] = [];
    let page = await this.store.list(this.prefix, { limit: this.options.pageSize });
    const revision = page.revision;
    for (const kv of page.items) items.push(kv);
    while (page.more && page.items.length > 0 && !this.stopped) {
      const startKey = `${page.items[page.items.length - 1]!.key}\x00`;
      page = await this.store.list(this.prefix, { revision, startKey, limit: this.options.pageSize });
      for (const kv of page.items) items.push(kv);
    }
    if (this.stopped) return;
    this.sink.replace(items, revision, this.compactedAt);
    this.compactedAt = undefined;
  }

  private async follow(onBatch: () => void): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    if (this.stopped) return;
    const watch = this.store.watch(this.prefix, {
      fromRevision: this.sink.revision + 1,
      signal: abort.signal,
      progressWanted: this.sink.progressWanted,
    });
    for await (const batch of watch) {
      if (this.stopped) return;
      this.sink.apply(batch);
      onBatch();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleep = done;
    });
  }

  private warn(message: string): void {
    this.options.logger?.warn(`watch cache ${this.prefix}: ${message}`);
  }
}
