/**
 * client-go's event spam filter: per source and involved object, a token bucket of 25 events refilled at
 * one every 5 minutes. A controller stuck in a loop records its first 25 events, then one per 5 minutes,
 * whatever it asks for; the events it drops are not written (nor counted).
 */
import { Lru } from './lru.js';

export interface SpamFilterOptions {
  /** Default 25. */
  readonly burst?: number;
  /** Milliseconds per refilled token. Default 300,000 (5 minutes). */
  readonly refillMs?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class SpamFilter {
  private readonly buckets = new Lru<Bucket>();
  private readonly burst: number;
  private readonly refillMs: number;

  constructor(o: SpamFilterOptions = {}) {
    this.burst = o.burst ?? 25;
    this.refillMs = o.refillMs ?? 300_000;
  }

  /** Takes a token for `key` at `now` (epoch ms); false when none is left. */
  allow(key: string, now: number): boolean {
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.burst, at: now };
      this.buckets.set(key, b);
    }
    const refilled = Math.floor((now - b.at) / this.refillMs);
    if (refilled > 0) {
      b.tokens = Math.min(this.burst, b.tokens + refilled);
      b.at += refilled * this.refillMs;
    }
    if (b.tokens < 1) return false;
    b.tokens--;
    return true;
  }
}
