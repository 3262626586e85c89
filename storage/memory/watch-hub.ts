import type { WatchBatch, WatchEvent } from '../interface.js';
import type { StorageError } from '../errors.js';
import type { EventLog } from './event-log.js';
import { Watcher, type WatchLimits, type WatchSource } from './watcher.js';

/**
 * All open watches and the fan-out of committed changes to them.
 *
 * Fan-out cost is per event, not per watcher: watchers whose prefix is empty or ends in "/" (the normal
 * case: `/registry/pods/`, `/registry/pods/ns/`) are grouped by prefix in a map, and an event's key is
 * looked up once per "/" it contains. Other prefixes are few and checked one by one.
 *
 * Everything runs on the event loop thread; `publish` is called once per durable commit group, after the
 * group's batches were appended to the event log.
 */
export class WatchHub implements WatchSource {
  private readonly bySlashPrefix = new Map<string, Set<Watcher>>();
  private readonly others = new Set<Watcher>();
  private count = 0;

  constructor(
    readonly events: EventLog,
    private readonly committed: () => number,
    private readonly compacted: () => number,
    private readonly limits: WatchLimits,
  ) {}

  committedRevision(): number {
    return this.committed();
  }

  compactedRevision(): number {
    return this.compacted();
  }

  get size(): number {
    return this.count;
  }

  /** Opens a watch delivering events with revision >= `fromRevision` under `prefix`. */
  open(prefix: string, fromRevision: number, signal: AbortSignal | undefined): Watcher {
    const w = new Watcher(prefix, fromRevision, this, this.limits, signal);
    if (!w.active) return w;
    if (isSlashPrefix(prefix)) {
      let set = this.bySlashPrefix.get(prefix);
      if (set === undefined) this.bySlashPrefix.set(prefix, (set = new Set()));
      set.add(w);
    } else {
      this.others.add(w);
    }
    this.count++;
    return w;
  }

  remove(w: Watcher): void {
    let removed: boolean;
    if (isSlashPrefix(w.prefix)) {
      const set = this.bySlashPrefix.get(w.prefix);
      removed = set?.delete(w) ?? false;
      if (set !== undefined && set.size === 0) this.bySlashPrefix.delete(w.prefix);
    } else {
      removed = this.others.delete(w);
    }
    if (removed) this.count--;
  }

  /** Fans one durable commit group (transaction batches in revision order) out to live watchers. */
  publish(batches: readonly WatchBatch[]): void {
    if (this.count === 0) return;
    const touched: Watcher[] = [];
    for (const b of batches) {
      for (const ev of b.events) {
        const key = ev.kv.key;
        if (this.bySlashPrefix.size > 0) {
          collectSet(this.bySlashPrefix.get(''), b, ev, touched);
          for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) {
            collectSet(this.bySlashPrefix.get(key.slice(0, i + 1)), b, ev, touched);
          }
        }
        for (const w of this.others) if (key.startsWith(w.prefix)) collect(w, b, ev, touched);
      }
    }
    for (const w of touched) {
      const events = w.pend!;
      const source = w.pendSource;
      w.pend = undefined;
      w.pendSource = null;
      // Reuse the transaction's own batch object when the watcher gets exactly all of it.
      w.deliver(source !== null && source.events.length === events.length ? source : { events, revision: w.pendRev });
    }
  }

  /** Asks every watch for a progress batch at the committed revision. */
  requestProgress(): void {
    const rev = this.committed();
    for (const set of this.bySlashPrefix.values()) for (const w of set) w.progress(rev);
    for (const w of this.others) w.progress(rev);
  }

  /** Ends every watch with `err` (`null`: cleanly). */
  endAll(err: StorageError | null): void {
    const all: Watcher[] = [...this.others];
    for (const set of this.bySlashPrefix.values()) all.push(...set);
    for (const w of all) w.end(err);
  }
}

function isSlashPrefix(prefix: string): boolean {
  return prefix === '' || prefix.endsWith('/');
}

function collectSet(set: Set<Watcher> | undefined, b: WatchBatch, ev: WatchEvent, touched: Watcher[]): void {
  if (set !== undefined) for (const w of set) collect(w, b, ev, touched);
}

function collect(w: Watcher, b: WatchBatch, ev: WatchEvent, touched: Watcher[]): void {
  // Catching-up watchers read the log themselves; a watch from a future revision skips earlier ones.
  if (!w.live || b.revision < w.nextRev) return;
  if (w.pend === undefined) {
    w.pend = [];
    w.pendSource = b;
    touched.push(w);
  } else if (w.pendSource !== b) {
    w.pendSource = null;
  }
  w.pend.push(ev);
  w.pendRev = b.revision;
}
