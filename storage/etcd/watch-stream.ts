import type { RawWatchStream } from './etcd-connection.js';
import type { RawWatchRequest, RawWatchResponse } from './proto.js';
import type { Watcher } from './watcher.js';

/**
 * One raw etcd Watch RPC carrying many watchers (etcd multiplexes watches on a stream by watch id). We use
 * our own call (grpc/watch-call.ts) rather than etcd3's Watcher because that one loses `compact_revision` on a
 * compacted start, cannot send progress requests, and resumes from the wrong revision.
 *
 * Watch ids are ours (etcd >= 3.4 accepts client-chosen ids), counted from 1 and never reused on a stream,
 * so answers map to watchers without depending on the order of creates. Id -1 is etcd's broadcast answer to
 * a progress request. Any error or end of the stream breaks it for good: `onBroken` receives its watchers,
 * which the hub resumes on another stream from their own `nextRevision`.
 */
export class WatchStream {
  private readonly watchers = new Map<number, Watcher>();
  private nextId = 1;
  private broken = false;

  constructor(
    private readonly raw: RawWatchStream,
    private readonly onBroken: (stream: WatchStream, watchers: Watcher[]) => void,
    /** Tells the members the host failed (its circuit breaker then skips it for a while, grpc/members.ts). */
    private readonly markFailed: (err: Error) => void,
  ) {
    raw.on('data', (message) => this.onData(message as RawWatchResponse));
    raw.on('error', (err) => this.break(err));
    raw.on('end', () => this.break(undefined));
  }

  /** Number of watchers on the stream. */
  get size(): number {
    return this.watchers.size;
  }

  get usable(): boolean {
    return !this.broken;
  }

  /** Creates `watcher` on this stream from its `nextRevision` (0: now), with previous values and progress. */
  add(watcher: Watcher): void {
    const id = this.nextId++;
    this.watchers.set(id, watcher);
    watcher.stream = this;
    watcher.watchId = id;
    this.send({
      create_request: {
        key: watcher.key,
        range_end: watcher.rangeEnd,
        start_revision: watcher.nextRevision,
        progress_notify: true,
        prev_kv: true,
        watch_id: id,
      },
    });
  }

  /** Cancels `watcher` here (no-op if it is not on this stream). */
  remove(watcher: Watcher): void {
    if (watcher.stream !== this) return;
    watcher.stream = undefined;
    if (this.watchers.delete(watcher.watchId)) this.send({ cancel_request: { watch_id: watcher.watchId } });
  }

  /** Asks etcd for a progress broadcast (see `Watcher.onProgress` for what it is worth). */
  requestProgress(): void {
    this.send({ progress_request: {} });
  }

  /** Closes the stream without resuming its watchers (they were ended or moved by the caller). */
  close(): void {
    if (this.broken) return;
    this.broken = true;
    for (const w of this.watchers.values()) w.stream = undefined;
    this.watchers.clear();
    this.quiet();
  }

  /** Watchers on the stream, for closing the store. */
  list(): Watcher[] {
    return [...this.watchers.values()];
  }

  private send(message: RawWatchRequest): void {
    if (!this.broken) this.raw.write(message);
  }

  private onData(res: RawWatchResponse): void {
    const id = res.watch_id;
    if (id === -1) {
      const revision = (res.header?.revision ?? 0);
      for (const w of this.watchers.values()) w.onProgress(revision);
      return;
    }
    this.watchers.get(id)?.onResponse(res);
  }

  private break(err: Error | undefined): void {
    if (this.broken) return;
    this.broken = true;
    if (err !== undefined) this.markFailed(err);
    this.quiet();
    const watchers = [...this.watchers.values()];
    this.watchers.clear();
    for (const w of watchers) w.stream = undefined;
    this.onBroken(this, watchers);
  }

  /** Stops listening and cancels the call; the cancel's own error is swallowed. */
  private quiet(): void {
    this.raw.removeAllListeners();
    this.raw.on('error', () => undefined);
    this.raw.cancel();
  }
}
