import { promises as fsp } from 'node:fs';
import { listDataFiles, pathOf, segmentName, snapshotName } from './data-files.js';
import { LogWriter } from './log-writer.js';
import { MvccState } from './mvcc-state.js';
import { decodeLogRecord, RecordType, scanFrames } from './record-codec.js';
import { loadSnapshot } from './snapshot.js';

export interface Recovered {
  readonly state: MvccState;
  /** Open for appending: the last segment (its torn tail cut off) or a new one. */
  readonly writer: LogWriter;
  /** Bytes and records in segments replayed since the snapshot (drives the next snapshot). */
  readonly bytesSinceSnapshot: number;
  readonly recordsSinceSnapshot: number;
}

/**
 * Rebuilds the state from the data directory: the newest snapshot, then every later log segment in
 * order. A torn or garbage tail of the LAST segment (a crash mid-write; never acknowledged, since acks
 * follow fdatasync) is reported through `warn` and truncated away. Damage anywhere else means acknowledged
 * data is gone, so it throws rather than silently open a store that lost writes.
 */
export async function recover(dir: string, warn: (message: string) => void): Promise<Recovered> {
  const files = await listDataFiles(dir);
  for (const tmp of files.temporaries) await fsp.unlink(pathOf(dir, tmp)).catch(() => undefined);

  const state = new MvccState();
  const snapSeq = files.snapshots[files.snapshots.length - 1];
  if (snapSeq !== undefined) await loadSnapshot(dir, snapSeq, state);

  const segments = files.segments.filter((s) => snapSeq === undefined || s >= snapSeq);
  let bytes = 0;
  let records = 0;
  for (let i = 0; i < segments.length; i++) {
    const seq = segments[i]!;
    const path = pathOf(dir, segmentName(seq));
    const buf = await fsp.readFile(path);
    const scan = scanFrames(buf, 0, (start, end) => {
      const rec = decodeLogRecord(buf, start, end);
      if (rec.type === RecordType.Compact) {
        if (rec.revision > state.compactedRevision) state.compact(rec.revision);
      } else if (rec.revision > state.revision) {
        state.events.append(state.install(rec.revision, rec.ops, rec.ops.map((op) => op.value)));
      }
      records++;
    });
    bytes += scan.validEnd;
    if (scan.problem !== undefined) {
      if (i !== segments.length - 1) {
        throw new Error(`log segment ${path} is damaged (${scan.problem}) and is not the last one: acknowledged writes are lost`);
      }
      warn(`log segment ${path}: ${scan.problem}; dropping ${buf.length - scan.validEnd} unacknowledged bytes at the tail`);
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
  return { state, writer, bytesSinceSnapshot: bytes, recordsSinceSnapshot: records };
}
