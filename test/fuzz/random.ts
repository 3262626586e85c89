/**
 * A small seeded PRNG (mulberry32) and the picks the generator needs. The same seed gives the same
 * request sequence for one request index, whatever the concurrency: each request draws from its own
 * generator seeded by (seed, index), so a failure is replayed from its seed and index alone.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A generator for request `index` of the run seeded `seed`. */
  static forRequest(seed: number, index: number): Random {
    // Mix both into 32 bits (splitmix-like) so nearby indexes give unrelated streams.
    let h = (seed ^ Math.imul(index + 0x9e3779b9, 0x85ebca6b)) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
    return new Random(h ^ (h >>> 16));
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** A pick weighted by the first element of each pair. */
  weighted<T>(items: readonly (readonly [number, T])[]): T {
    const total = items.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of items) {
      r -= w;
      if (r < 0) return v;
    }
    return items[items.length - 1]![1];
  }

  /** A string of `length` characters from `alphabet`. */
  string(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-.'): string {
    let s = '';
    for (let i = 0; i < length; i += 1) s += alphabet[this.int(alphabet.length)];
    return s;
  }

  bytes(length: number): Buffer {
    const b = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i += 1) b[i] = this.int(256);
    return b;
  }
}
