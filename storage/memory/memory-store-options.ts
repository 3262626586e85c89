import type { StoreLogger } from './store-logger.js';

/** Options of the embedded store. Only `dataDir` is required. */
export interface MemoryStoreOptions {
  /** Directory for the lock, log segments and snapshots; created if missing. One process at a time. */
  readonly dataDir: string;
  /** Take a snapshot (and start a new log segment) after this many log records. Default 100,000. */
  readonly snapshotEveryRecords?: number;
  /** ... or after this many log bytes. Default 64 MiB. */
  readonly snapshotEveryBytes?: number;
  /**
   * ... or once the log since the last snapshot is at least this big AND as big as that snapshot, so
   * restart reads at most about twice the retained state plus this. Default 4 MiB.
   */
  readonly snapshotMinBytes?: number;
  /** ... or after this many milliseconds with at least one record logged (0: never by time). Default 10 min. */
  readonly snapshotIntervalMs?: number;
  /** A watch whose consumer has this many undelivered events ends with `Lagging`. Default 10,000. */
  readonly watchBufferEvents?: number;
  /** ... or this many undelivered value bytes (kv + prev values). Default 64 MiB. */
  readonly watchBufferBytes?: number;
  /**
   * Where the store reports what it recovered from and what went wrong without failing (a torn log tail, a
   * stale lock taken over, a failed snapshot). Default: JSON lines on stderr.
   */
  readonly logger?: StoreLogger;
}

export const DEFAULTS = {
  snapshotEveryRecords: 100_000,
  snapshotEveryBytes: 64 << 20,
  snapshotMinBytes: 4 << 20,
  snapshotIntervalMs: 10 * 60_000,
  watchBufferEvents: 10_000,
  watchBufferBytes: 64 << 20,
} as const;
