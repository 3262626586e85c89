/**
 * A bounded map that forgets its least recently used entries, as client-go's event caches do (4,096
 * entries each): a recorder that saw many distinct events keeps only the recent ones in memory.
 */
export class Lru<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly max = 4096) {}

  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      // Map iteration is insertion order: re-inserting makes the entry the most recent.
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
