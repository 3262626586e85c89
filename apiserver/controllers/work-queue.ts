/**
 * The keyed work queue of the in-server controllers, with client-go's semantics (workqueue +
 * per-item exponential rate limiter):
 * - a key waits at most once in the queue however often it is added;
 * - a key is synced by one worker at a time; added while it is being synced, it is synced once more after;
 * - `sync` resolving forgets the key's failures; throwing reports to `onError` and adds the key again
 *   after `baseDelayMs × 2^failures` (capped at `maxDelayMs`);
 * - `addAfter` adds the key once the delay has passed (the earliest pending delay wins);
 * - `stop()` drops what waits and resolves after the syncs in flight.
 */
export interface WorkQueue {
  add(key: string): void;
  addAfter(key: string, ms: number): void;
  addRateLimited(key: string): void;
  forget(key: string): void;
  /** How often the key failed since it was last forgotten. */
  retries(key: string): number;
  /** Keys waiting or being synced. */
  readonly length: number;
  stop(): Promise<void>;
}

export interface WorkQueueOptions {
  /** Keys synced at once. Default 1. */
  readonly workers?: number;
  readonly onError?: (err: unknown, key: string) => void;
  /** First retry delay. Default 5 ms (client-go's). */
  readonly baseDelayMs?: number;
  /** Longest retry delay. Default 1,000 s (client-go's). */
  readonly maxDelayMs?: number;
}

export function startWorkQueue(sync: (key: string) => Promise<void>, o: WorkQueueOptions = {}): WorkQueue {
  const workers = o.workers ?? 1;
  const base = o.baseDelayMs ?? 5;
  const max = o.maxDelayMs ?? 1_000_000;
  const queue: string[] = [];
  const queued = new Set<string>();
  const processing = new Set<string>();
  const dirtyWhileProcessing = new Set<string>();
  const failures = new Map<string, number>();
  const timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  const running = new Set<Promise<void>>();
  let stopped = false;

  const add = (key: string): void => {
    if (stopped) return;
    if (processing.has(key)) {
      dirtyWhileProcessing.add(key);
      return;
    }
    if (queued.has(key)) return;
    queued.add(key);
    queue.push(key);
    pump();
  };

  const pump = (): void => {
    while (!stopped && running.size < workers && queue.length > 0) {
      const key = queue.shift()!;
      queued.delete(key);
      processing.add(key);
      const p: Promise<void> = new Promise<void>((resolve) => resolve(sync(key)))
        .then(
          () => void failures.delete(key),
          (err: unknown) => {
            o.onError?.(err, key);
            if (!stopped) queueMicrotask(() => addRateLimited(key));
          },
        )
        .finally(() => {
          processing.delete(key);
          running.delete(p);
          if (dirtyWhileProcessing.delete(key)) add(key);
          pump();
        });
      running.add(p);
    }
  };

  const addAfter = (key: string, ms: number): void => {
    if (stopped) return;
    if (ms <= 0) return add(key);
    const at = Date.now() + ms;
    const pending = timers.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      timers.delete(key);
      add(key);
    }, ms);
    timer.unref();
    timers.set(key, { at, timer });
  };

  const addRateLimited = (key: string): void => {
    const n = failures.get(key) ?? 0;
    failures.set(key, n + 1);
    addAfter(key, Math.min(max, base * 2 ** n));
  };

  return {
    add,
    addAfter,
    addRateLimited,
    forget: (key) => void failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
    get length() {
      return queue.length + processing.size;
    },
    async stop() {
      stopped = true;
      for (const { timer } of timers.values()) clearTimeout(timer);
      timers.clear();
      queue.length = 0;
      queued.clear();
      await Promise.all([...running]);
    },
  };
}

/** The queue key of an object: `namespace/name`, or `name` for a cluster-scoped one. */
export function keyOf(obj: { readonly metadata: { readonly namespace?: string; readonly name?: string } }): string {
  const ns = obj.metadata.namespace ?? '';
  return ns === '' ? (obj.metadata.name ?? '') : `${ns}/${obj.metadata.name ?? ''}`;
}

/** The namespace ('' for a cluster-scoped key) and name of a key made by `keyOf`. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
