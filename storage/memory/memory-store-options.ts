/** Options of the embedded store. Only `dataDir` is required. */
export interface MemoryStoreOptions {
  /** Directory for the lock, log segments and snapshots; created if missing. One process at a time. */
  readonly dataDir: string;
  /** Take a snapshot (and start a new log segment) after this many log records. Default 100,000. */
  readonly snapshotEveryRecords?: number;
  /** ... or after this many log bytes, whichever comes first. Default 64 MiB. */
  readonly snapshotEveryBytes?: number;
  /** A watch whose consumer has this many undelivered events ends with `Lagging`. Default 10,000. */
  readonly watchBufferEvents?: number;
  /** ... or this many undelivered value bytes (kv + prev values). Default 64 MiB. */
  readonly watchBufferBytes?: number;
  /** Where recoverable problems (a torn log tail, a failed snapshot) are reported. Default: console.warn. */
  readonly logger?: { warn(message: string): void };
}

export const DEFAULTS = {
  snapshotEveryRecords: 100_000,
  snapshotEveryBytes: 64 << 20,
  watchBufferEvents: 10_000,
  watchBufferBytes: 64 << 20,
} as const;
