/**
 * For tests of a watch cache that falls behind: a store whose watches the test holds back (the batches wait
 * while held) and can end with an error when it lets them go, as a broken connection to the store would.
 * Everything else goes to the store as it is.
 */
import type { Store, WatchBatch } from '../interface.js';

export interface HeldWatchStore {
  /** The store to give the cache: its watches are the ones held. */
  readonly store: Store;
  /** From now on, batches wait (the writes still reach the store). */
  hold(): void;
  /** Lets the batches go; with `err`, a waiting watch ends with it instead (the next one watches normally). */
  release(err?: Error): void;
}

export function heldWatchStore(store: Store): HeldWatchStore {
  let held: { promise: Promise<void>; open: () => void } | undefined;
  let failure: Error | undefined;
  async function* heldBack(batches: AsyncIterable<WatchBatch>): AsyncIterable<WatchBatch> {
    for await (const b of batches) {
      while (held !== undefined) await held.promise;
      if (failure !== undefined) {
        const err = failure;
        failure = undefined;
        throw err;
      }
      yield b;
    }
  }
  const proxy = new Proxy(store, {
    get(target, p) {
      if (p === 'watch') return (...args: Parameters<Store['watch']>) => heldBack(target.watch(...args));
      const v = Reflect.get(target, p) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Store;
  return {
    store: proxy,
    hold() {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      held = { promise, open };
    },
    release(err) {
      failure = err;
      held?.open();
      held = undefined;
    },
  };
}
