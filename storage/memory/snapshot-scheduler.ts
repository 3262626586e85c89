import { promises as fsp } from 'node:fs';
import { listDataFiles, pathOf, segmentName, snapshotName } from './data-files.js';
import { LogWriter } from './log-writer.js';
import { DEFAULTS, type MemoryStoreOptions } from './memory-store-options.js';
import type { MvccState } from './mvcc-state.js';
import type { Recovered } from './recovery.js';
import { captureSnapshot, writeSnapshot } from './snapshot.js';

/**
 * Owns the active log segment and decides when to snapshot. After `snapshotEveryRecords` records or
 * `snapshotEveryBytes` bytes, between two flushes (so no record is half in either segment), it:
 *   1. opens segment seq+1 (its directory entry fsynced) and sends all further appends there;
 *   2. captures the durable state (revision <= committed: every record of the older segments, nothing
 *      of the new one) synchronously, by reference;
 *   3. writes `snap-<seq+1>` in the background (temp file, fsync, rename, fsync dir) while commits go on;
 *   4. deletes the segments and snapshots it replaces.
 * A crash anywhere in between leaves either the old snapshot + all segments or the new snapshot + the
 * new segments: both restore the same state. A failed snapshot is only logged; the log still has it all.
 * One snapshot at a time.
 */
export class SnapshotScheduler {
  private writer: LogWriter;
  private bytes: number;
  private records: number;
  private running: Promise<void> | undefined;
  private readonly everyRecords: number;
  private readonly everyBytes: number;
  private readonly dir: string;

  constructor(
    options: MemoryStoreOptions,
    private readonly state: MvccState,
    recovered: Recovered,
    private readonly committed: () => number,
    private readonly logger: { warn(message: string): void },
  ) {
    this.dir = options.dataDir;
    this.writer = recovered.writer;
    this.bytes = recovered.bytesSinceSnapshot;
    this.records = recovered.recordsSinceSnapshot;
    this.everyRecords = options.snapshotEveryRecords ?? DEFAULTS.snapshotEveryRecords;
    this.everyBytes = options.snapshotEveryBytes ?? DEFAULTS.snapshotEveryBytes;
  }

  /** Appends a group of records durably to the active segment. */
  async append(chunk: Buffer, records: number): Promise<void> {
    await this.writer.append(chunk, records);
    this.bytes += chunk.length;
    this.records += records;
  }

  /** Called between flushes: rotates and starts a snapshot when the thresholds are reached. */
  async maybeRotate(): Promise<void> {
    if (this.running !== undefined || (this.records < this.everyRecords && this.bytes < this.everyBytes)) return;
    const seq = this.writer.seq + 1;
    const next = await LogWriter.open(this.dir, seq, true);
    const old = this.writer;
    this.writer = next;
    this.bytes = 0;
    this.records = 0;
    await old.close();
    const image = captureSnapshot(this.state, seq, this.committed());
    this.running = this.snapshot(seq, image).finally(() => {
      this.running = undefined;
    });
  }

  private async snapshot(seq: number, image: ReturnType<typeof captureSnapshot>): Promise<void> {
    try {
      await writeSnapshot(this.dir, image);
      const files = await listDataFiles(this.dir);
      for (const s of files.segments) if (s < seq) await fsp.unlink(pathOf(this.dir, segmentName(s)));
      for (const s of files.snapshots) if (s < seq) await fsp.unlink(pathOf(this.dir, snapshotName(s)));
    } catch (err) {
      this.logger.warn(`snapshot ${seq} failed (the log still holds everything): ${(err as Error).message}`);
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
