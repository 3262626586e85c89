import { ExpiryQueue, type Expiry } from './expiry-queue.js';

/** setTimeout's largest delay (about 24.8 days); a later expiry re-arms when this one fires. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * One timer for every key with a ttl: armed for the soonest pending expiry, it hands the due entries to
 * `onDue` (which deletes what is still current) and re-arms for the next. Due entries are handed over at
 * most `batch` at a time, the rest on the next turn of the event loop, so a mass expiry (say a restart
 * after a long stop, with an hour of Events overdue) neither builds one huge transaction nor holds the
 * event loop.
 *
 * Times are wall-clock epoch milliseconds (`now`), because they are persisted: a wall clock moved forward
 * expires keys early, one moved back delays them. The timer is unref'd: it never keeps a process alive.
 */
export class ExpiryTimer {
  private readonly queue = new ExpiryQueue();
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (epoch ms); Infinity when none is armed. */
  private firesAt = Infinity;
  private stopped = false;

  constructor(
    private readonly onDue: (due: readonly Expiry[]) => void,
    private readonly batch = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Pending entries, stale ones included (for tests). */
  get size(): number {
    return this.queue.size;
  }

  /** Adds an expiry; the timer is moved earlier if this one comes first. No-op once stopped. */
  track(e: Expiry): void {
    if (this.stopped) return;
    this.queue.push(e);
    if (e.at < this.firesAt) this.arm();
  }

  /** Stops for good: no more calls to `onDue`. Idempotent. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Infinity;
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Infinity;
    const next = this.queue.peek();
    if (this.stopped || next === undefined) return;
    const now = this.now();
    const delay = Math.min(Math.max(0, next.at - now), MAX_DELAY_MS);
    this.firesAt = now + delay;
    this.timer = setTimeout(() => this.fire(), delay);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.firesAt = Infinity;
    if (this.stopped) return;
    const due = this.queue.popDue(this.now(), this.batch);
    // Re-arm first: should onDue throw, later expiries still happen.
    this.arm();
    if (due.length > 0) this.onDue(due);
  }
}
