import { promises as fsp } from 'node:fs';
import { join } from 'node:path';

/**
 * File naming in the data directory. Log segments and snapshots share one sequence number:
 * `wal-<seq>.log` holds records appended after the snapshot `snap-<seq>.snap` was started, so restart loads
 * the newest snapshot and replays segments with a sequence number >= its own. Zero-padded so names sort.
 */
export const segmentName = (seq: number): string => `wal-${String(seq).padStart(16, '0')}.log`;
export const snapshotName = (seq: number): string => `snap-${String(seq).padStart(16, '0')}.snap`;

const SEGMENT = /^wal-(\d{16})\.log$/;
const SNAPSHOT = /^snap-(\d{16})\.snap$/;

export interface DataFiles {
  /** Sequence numbers, ascending. */
  readonly segments: number[];
  readonly snapshots: number[];
  /** Leftovers of an interrupted snapshot write. */
  readonly temporaries: string[];
}

export async function listDataFiles(dir: string): Promise<DataFiles> {
  const segments: number[] = [];
  const snapshots: number[] = [];
  const temporaries: string[] = [];
  for (const name of await fsp.readdir(dir)) {
    let m = SEGMENT.exec(name);
    if (m) segments.push(Number(m[1]));
    else if ((m = SNAPSHOT.exec(name))) snapshots.push(Number(m[1]));
    else if (name.startsWith('snap-') && name.endsWith('.tmp')) temporaries.push(name);
  }
  segments.sort((a, b) => a - b);
  snapshots.sort((a, b) => a - b);
  return { segments, snapshots, temporaries };
}

/** Makes created, renamed and deleted directory entries durable. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export const pathOf = (dir: string, name: string): string => join(dir, name);
