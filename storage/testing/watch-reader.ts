import type { WatchBatch, WatchEvent } from '../interface.js';

/**
 * Reads a store watch in the background so a test can await conditions on what arrived. The watch runs
 * until `stop()`; an error ending the iterator is kept in `error` and wakes every waiter.
 */
export class WatchReader {
  readonly batches: WatchBatch[] = [];
  error: unknown;
  done = false;
  private readonly controller = new AbortController();
  private waiters: (() => void)[] = [];
  private readonly finished: Promise<void>;

  constructor(watch: (signal: AbortSignal) => AsyncIterable<WatchBatch>) {
    this.finished = (async () => {
      try {
        for await (const batch of watch(this.controller.signal)) {
          this.batches.push(batch);
          this.wake();
        }
      } catch (err) {
        this.error = err;
      } finally {
        this.done = true;
        this.wake();
      }
    })();
  }

  get events(): WatchEvent[] {
    return this.batches.flatMap((b) => b.events);
  }

  /** Resolves once `predicate` holds; rejects if the watch ends first or after `timeoutMs`. */
  async until(predicate: (r: WatchReader) => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (this.done) {
        throw new Error(`watch ended before ${what}: ${String(this.error ?? 'no error')}`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out waiting for ${what} (have ${this.events.length} events)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until `n` events arrived. */
  untilEvents(n: number, timeoutMs?: number): Promise<void> {
    return this.until((r) => r.events.length >= n, timeoutMs, `${n} events`);
  }

  /** Waits until the watch ended (by error or by completion). */
  untilDone(timeoutMs?: number): Promise<void> {
    return this.until((r) => r.done, timeoutMs, 'the end of the watch');
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.finished;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
