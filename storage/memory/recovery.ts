import { promises as fsp } from 'node:fs';
import { listDataFiles, pathOf, segmentName, snapshotName } from './data-files.js';
import { LogWriter } from './log-writer.js';
import { MvccState } from './mvcc-state.js';
import { decodeLogRecord, RecordType, scanFrames } from './record-codec.js';
import { loadSnapshot } from './snapshot.js';
import type { StoreLogger } from './store-logger.js';

export interface Recovered {
  readonly state: MvccState;
  /** Open for appending: the last segment (its torn tail cut off) or a new one. */
  readonly writer: LogWriter;
  /** Bytes and records in segments replayed since the snapshot (drives the next snapshot). */
  readonly bytesSinceSnapshot: number;
  readonly recordsSinceSnapshot: number;
  /** Size of the snapshot loaded (0: none). */
  readonly snapshotBytes: number;
}

/**
 * Rebuilds the state from the data directory: the newest valid snapshot, then only the log segments from
 * its sequence number on (`wal-<seq>` holds what came after `snap-<seq>`; see snapshot-scheduler.ts for the
 * order in which they are written and removed), so restart reads the retained state and the log since,
 * not the whole history.
 *
 * - The segments replayed must be consecutive from the snapshot's number (from 1 without a snapshot): a
 *   missing one means acknowledged writes are gone, and that throws rather than open a store that lost
 *   writes.
 * - A snapshot that does not load (disk damage: a snapshot is only renamed into place once complete and
 *   fsynced) is set aside as `<name>.damaged` and the next older one is tried, when its segments are
 *   all still there (a crash during the removal of the files a snapshot replaced leaves them).
 * - A torn or garbage tail of the LAST segment (a crash mid-write; never acknowledged, since acks follow
 *   fdatasync) is logged and truncated away. Damage in any other segment throws.
 * - Leftovers of an interrupted snapshot (`.tmp`) and files older than the snapshot used are deleted.
 */
export async function recover(dir: string, logger: StoreLogger): Promise<Recovered> {
  const started = Date.now();
  const files = await listDataFiles(dir);
  for (const tmp of files.temporaries) await fsp.unlink(pathOf(dir, tmp)).catch(() => undefined);

  // Candidates, newest first: each snapshot, then the empty state (sequence 1, no snapshot).
  const candidates: (number | undefined)[] = [...files.snapshots].reverse();
  candidates.push(undefined);
  let state: MvccState | undefined;
  let snapSeq: number | undefined;
  let snapshotBytes = 0;
  let firstProblem: Error | undefined;
  for (const candidate of candidates) {
    const from = candidate ?? 1;
    const gap = segmentGap(files.segments, from);
    if (gap !== undefined && !(candidate === undefined && files.segments.length === 0 && files.snapshots.length === 0)) {
      firstProblem ??= new Error(`log segment ${segmentName(gap)} is missing: acknowledged writes are lost`);
      continue;
    }
    if (candidate === undefined) {
      state = new MvccState();
      break;
    }
    const attempt = new MvccState();
    try {
      await loadSnapshot(dir, candidate, attempt);
    } catch (err) {
      firstProblem ??= err as Error;
      const path = pathOf(dir, snapshotName(candidate));
      logger.warn({ snapshot: path, err: (err as Error).message }, 'snapshot does not load: set aside, trying an older one');
      await fsp.rename(path, `${path}.damaged`).catch(() => undefined);
      continue;
    }
    state = attempt;
    snapSeq = candidate;
    snapshotBytes = (await fsp.stat(pathOf(dir, snapshotName(candidate)))).size;
    break;
  }
  if (state === undefined) throw firstProblem ?? new Error('no usable snapshot or log');

  const segments = files.segments.filter((s) => snapSeq === undefined || s >= snapSeq);
  let bytes = 0;
  let records = 0;
  for (let i = 0; i < segments.length; i++) {
    const seq = segments[i]!;
    const path = pathOf(dir, segmentName(seq));
    const buf = await fsp.readFile(path);
    const s = state;
    const scan = scanFrames(buf, 0, (start, end) => {
      const rec = decodeLogRecord(buf, start, end);
      if (rec.type === RecordType.Compact) {
        if (rec.revision > s.compactedRevision) s.compact(rec.revision);
      } else if (rec.revision > s.revision) {
        s.events.append(s.install(rec.revision, rec.ops, rec.ops.map((op) => op.value)));
      }
      records++;
    });
    bytes += scan.validEnd;
    if (scan.problem !== undefined) {
      if (i !== segments.length - 1) {
        throw new Error(`log segment ${path} is damaged (${scan.problem}) and is not the last one: acknowledged writes are lost`);
      }
      logger.warn(
        { segment: path, problem: scan.problem, droppedBytes: buf.length - scan.validEnd },
        'dropping the torn tail of the log (written by a crash, never acknowledged)',
      );
      const handle = await fsp.open(path, 'r+');
      try {
        await handle.truncate(scan.validEnd);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  }

  // Leftovers from a crash between writing a snapshot and deleting what it replaced.
  if (snapSeq !== undefined) {
    for (const s of files.segments) if (s < snapSeq) await fsp.unlink(pathOf(dir, segmentName(s))).catch(() => undefined);
    for (const s of files.snapshots) if (s < snapSeq) await fsp.unlink(pathOf(dir, snapshotName(s))).catch(() => undefined);
  }

  const last = segments[segments.length - 1];
  const writer =
    last !== undefined ? await LogWriter.open(dir, last, false) : await LogWriter.open(dir, snapSeq ?? 1, true);
  logger.info(
    {
      snapshot: snapSeq ?? null,
      snapshotBytes,
      segments: segments.length,
      logBytes: bytes,
      logRecords: records,
      revision: state.revision,
      ms: Date.now() - started,
    },
    'recovered the store',
  );
  return { state, writer, bytesSinceSnapshot: bytes, recordsSinceSnapshot: records, snapshotBytes };
}

/** The first missing sequence number when the segments from `from` on are not `from, from+1, ...`. */
function segmentGap(segments: readonly number[], from: number): number | undefined {
  let want = from;
  for (const s of segments) {
    if (s < from) continue;
    if (s !== want) return want;
    want++;
  }
  return want === from ? from : undefined;
}
