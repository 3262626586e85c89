import type { WatchBatch, WatchOptions } from '../interface.js';
import { invalidArgument, unavailable } from '../errors.js';
import type { CompactionTracker } from './compaction.js';
import type { EtcdConnection } from './etcd-connection.js';
import { prefixUnchanged, type PrefixCheck } from './prefix-unchanged.js';
import type { RangeCall } from './range.js';
import { WatchStream } from './watch-stream.js';
import { Watcher, type WatchHost } from './watcher.js';

export interface WatchHubOptions {
  /** Events a watcher may buffer before it fails with `Lagging`. */
  readonly bufferEvents: number;
  /** Watchers per gRPC stream before another stream is opened. */
  readonly watchersPerStream: number;
  /**
   * Asks whether every member orders progress broadcasts (progress-order.ts `membersOrderProgress`): asked
   * anew whenever a stream opens (a member restarted, maybe as another release), and until it answers
   * broadcasts are checked.
   */
  readonly askMembersOrderProgress: () => Promise<boolean>;
}

/**
 * All watches of one store: places watchers on shared raw streams and moves them to a new stream, after a
 * backoff, whenever theirs fails (any error: member killed, no leader, network) or etcd cancels one for a
 * transient reason. Resumption goes on until the watch ends or the store closes; a compacted resume point
 * ends that watch with `Compacted`.
 */
export class WatchHub implements WatchHost {
  private readonly streams = new Set<WatchStream>();
  private opening: Promise<WatchStream> | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiting = new Set<Watcher>();
  private closed = false;
  /** Whether broadcasts are exact (see `askMembersOrderProgress`), and which asking answers for it. */
  private ordered = false;
  private asking = 0;
  private readonly range: RangeCall = (req) => this.connection.kv('range', req, true);

  constructor(
    private readonly connection: EtcdConnection,
    private readonly compaction: CompactionTracker,
    private readonly options: WatchHubOptions,
  ) {}

  /** The contract's `watch`: the watch starts when iteration starts. */
  watch(prefix: string, options: WatchOptions = {}): AsyncIterable<WatchBatch> {
    const from = options.fromRevision ?? 0;
    if (!Number.isSafeInteger(from) || from < 0) throw invalidArgument(`invalid fromRevision ${from}`);
    return {
      [Symbol.asyncIterator]: () => {
        const watcher = new Watcher(prefix, from, this.options.bufferEvents, this, this.compaction, options.signal, options.progressWanted);
        if (this.closed) watcher.fail(unavailable('the store is closed'));
        if (watcher.active) this.start(watcher);
        return watcher;
      },
    };
  }

  /** Asks etcd for a progress notification on every stream. */
  requestProgress(): void {
    for (const s of this.streams) s.requestProgress();
  }

  release(watcher: Watcher): void {
    this.waiting.delete(watcher);
    const stream = watcher.stream;
    if (stream === undefined) return;
    stream.remove(watcher);
    if (stream.size === 0) {
      this.streams.delete(stream);
      stream.close();
    }
  }

  progressOrdered(): boolean {
    return this.ordered;
  }

  checkUnchanged(watcher: Watcher, from: number, to: number, countBefore: number | undefined): Promise<PrefixCheck> {
    return prefixUnchanged(this.range, watcher.key, watcher.rangeEnd, from, to, countBefore);
  }

  resume(watcher: Watcher): void {
    watcher.stream?.remove(watcher);
    this.later(watcher);
  }

  /** Ends every watch with `Unavailable` (the store is closed) and closes every stream. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const closedError = unavailable('the store is closed');
    for (const w of this.waiting) w.fail(closedError);
    for (const s of [...this.streams]) for (const w of s.list()) w.fail(closedError);
    for (const s of this.streams) s.close();
    this.streams.clear();
  }

  private start(watcher: Watcher): void {
    if (this.closed) return watcher.fail(unavailable('the store is closed'));
    for (const s of this.streams) {
      if (s.usable && s.size < this.options.watchersPerStream) return s.add(watcher);
    }
    this.waiting.add(watcher);
    this.openStream().then(
      (s) => {
        if (!this.waiting.delete(watcher) || !watcher.active) return;
        if (s.usable) s.add(watcher);
        else this.later(watcher);
      },
      () => {
        if (this.waiting.delete(watcher)) this.later(watcher);
      },
    );
  }

  private openStream(): Promise<WatchStream> {
    this.opening ??= this.connection
      .openWatchStream()
      .then(({ stream, fail }) => {
        const s = new WatchStream(stream, (broken, watchers) => this.onBroken(broken, watchers), fail);
        if (this.closed) s.close();
        else this.streams.add(s);
        this.askMembers();
        return s;
      })
      .finally(() => {
        this.opening = undefined;
      });
    return this.opening;
  }

  /** Forgets what the members were and asks again; the newest answer wins. */
  private askMembers(): void {
    this.ordered = false;
    const asking = ++this.asking;
    this.options.askMembersOrderProgress().then(
      (ordered) => {
        if (asking === this.asking && !this.closed) this.ordered = ordered;
      },
      () => undefined,
    );
  }

  private onBroken(stream: WatchStream, watchers: Watcher[]): void {
    this.streams.delete(stream);
    for (const w of watchers) this.later(w);
  }

  /** Restarts `watcher` after a jittered exponential backoff (25 ms doubling, at most ~2 s). */
  private later(watcher: Watcher): void {
    if (this.closed || !watcher.active) return;
    const base = Math.min(25 * 2 ** watcher.attempts, 2000);
    watcher.attempts += 1;
    this.waiting.add(watcher);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.waiting.delete(watcher) || !watcher.active) return;
      this.start(watcher);
    }, base / 2 + Math.random() * (base / 2));
    this.timers.add(timer);
  }
}
