import { promises as fsp } from 'node:fs';
import { fsyncDir, listDataFiles, pathOf, segmentName, snapshotName } from './data-files.js';
import { LogWriter } from './log-writer.js';
import { DEFAULTS, type MemoryStoreOptions } from './memory-store-options.js';
import type { MvccState } from './mvcc-state.js';
import type { Recovered } from './recovery.js';
import { captureSnapshot, writeSnapshot } from './snapshot.js';
import type { StoreLogger } from './store-logger.js';

/**
 * Owns the active log segment and decides when to snapshot, so that restart reads about as many bytes as
 * the retained state holds, not the whole history.
 *
 * When: between two flushes (no record is half in either segment), once the log since the last snapshot
 * holds `snapshotEveryRecords` records, or `snapshotEveryBytes` bytes, or at least `snapshotMinBytes`
 * bytes AND as many bytes as the last snapshot (so snapshot + log stay within about twice the retained
 * state plus `snapshotMinBytes`: after a compaction the next snapshot is small and the log behind it is
 * cut soon), or any record and `snapshotIntervalMs` since the last snapshot (by time).
 *
 * Order of operations (a crash between any two steps still recovers every acknowledged write):
 *   1. open segment `wal-<seq+1>` (created, its directory entry fsynced) and send every later append
 *      there. Crash after: the new segment is empty or holds records after the old ones; restart loads the
 *      old snapshot and replays every segment from its sequence number on, the new one included.
 *   2. capture the durable state (revision <= committed: every record of the older segments, none of the
 *      new one) synchronously, by reference; the old segment is closed.
 *   3. write `snap-<seq+1>.snap.tmp` in the background while commits go on, fsync it, rename it to
 *      `snap-<seq+1>.snap`, fsync the directory. Crash before the rename: a `.tmp` file, deleted at
 *      restart, which uses the old snapshot and all segments. Crash after: restart loads the new snapshot
 *      and replays `wal-<seq+1>` on; the older files are leftovers that restart deletes.
 *   4. delete the segments and snapshots with a lower sequence number (only now: the new snapshot is
 *      durable), then fsync the directory. Crash in the middle: as after step 3.
 * A failed snapshot is only logged; the log still has it all. One snapshot at a time.
 */
export class SnapshotScheduler {
  private writer: LogWriter;
  private bytes: number;
  private records: number;
  /** Size of the newest snapshot on disk (0: none). */
  private snapshotBytes: number;
  private snapshotAt = Date.now();
  private running: Promise<void> | undefined;
  private readonly everyRecords: number;
  private readonly everyBytes: number;
  private readonly minBytes: number;
  private readonly intervalMs: number;
  private readonly dir: string;

  constructor(
    options: MemoryStoreOptions,
    private readonly state: MvccState,
    recovered: Recovered,
    private readonly committed: () => number,
    private readonly logger: StoreLogger,
  ) {
    this.dir = options.dataDir;
    this.writer = recovered.writer;
    this.bytes = recovered.bytesSinceSnapshot;
    this.records = recovered.recordsSinceSnapshot;
    this.snapshotBytes = recovered.snapshotBytes;
    this.everyRecords = options.snapshotEveryRecords ?? DEFAULTS.snapshotEveryRecords;
    this.everyBytes = options.snapshotEveryBytes ?? DEFAULTS.snapshotEveryBytes;
    this.minBytes = options.snapshotMinBytes ?? DEFAULTS.snapshotMinBytes;
    this.intervalMs = options.snapshotIntervalMs ?? DEFAULTS.snapshotIntervalMs;
  }

  /** Appends a group of records durably to the active segment. */
  async append(chunk: Buffer, records: number): Promise<void> {
    await this.writer.append(chunk, records);
    this.bytes += chunk.length;
    this.records += records;
  }

  /** Whether the log since the last snapshot calls for a new one (see the class comment). */
  private due(): boolean {
    if (this.records === 0) return false;
    return (
      this.records >= this.everyRecords ||
      this.bytes >= this.everyBytes ||
      (this.bytes >= this.minBytes && this.bytes >= this.snapshotBytes) ||
      (this.intervalMs > 0 && Date.now() - this.snapshotAt >= this.intervalMs)
    );
  }

  /** Called between flushes: rotates and starts a snapshot when it is due. */
  async maybeRotate(): Promise<void> {
    if (this.running !== undefined || !this.due()) return;
    const seq = this.writer.seq + 1;
    const next = await LogWriter.open(this.dir, seq, true);
    const old = this.writer;
    this.writer = next;
    this.bytes = 0;
    this.records = 0;
    this.snapshotAt = Date.now();
    await old.close();
    const image = captureSnapshot(this.state, seq, this.committed());
    this.running = this.snapshot(seq, image).finally(() => {
      this.running = undefined;
    });
  }

  private async snapshot(seq: number, image: ReturnType<typeof captureSnapshot>): Promise<void> {
    try {
      this.snapshotBytes = await writeSnapshot(this.dir, image);
      const files = await listDataFiles(this.dir);
      for (const s of files.segments) if (s < seq) await fsp.unlink(pathOf(this.dir, segmentName(s)));
      for (const s of files.snapshots) if (s < seq) await fsp.unlink(pathOf(this.dir, snapshotName(s)));
      await fsyncDir(this.dir);
    } catch (err) {
      this.logger.warn({ snapshot: seq, err: (err as Error).message }, 'snapshot failed (the log still holds everything)');
    }
  }

  /** Waits for a running snapshot and closes the active segment. */
  async close(): Promise<void> {
    await this.running;
    await this.writer.close();
  }

  /** For tests: resolves when no snapshot is being written. */
  async idle(): Promise<void> {
    await this.running;
  }
}
