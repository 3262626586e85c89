import { promises as fsp } from 'node:fs';
import type { KeyValue, WatchBatch, WatchEvent } from '../interface.js';
import { fsyncDir, pathOf, snapshotName } from './data-files.js';
import type { MvccState } from './mvcc-state.js';
import { RecordReader, RecordWriter, scanFrames } from './record-codec.js';

/**
 * Snapshots: the full retained state at one durable revision, so restart does not replay all history.
 * A snapshot file is a sequence of frames (see record-codec.ts):
 *
 *   META   u8 10 | seq:u48 | revision:u48 | compactedRevision:u48
 *   KEY    u8 11 | key | count:u32 | count x (modRevision:u48 | u8 1 | createRevision:u48 | value
 *                                             | modRevision:u48 | u8 2             (2: tombstone)
 *                                             | modRevision:u48 | u8 3 | createRevision:u48
 *                                               | expiresAt:u48 | value)          (3: a put with a ttl)
 *   EVENT  u8 12 | u8 1 put / 2 delete | key | kv | u8 hasPrev | prev        (kv = create:u48 mod:u48 value)
 *   END    u8 13 | keys:u32 | events:u32
 *
 * EVENT frames carry the watch events AT the compacted revision: a watch from exactly the compacted
 * revision must still see them with their previous values, which compaction removed from the histories.
 * Events after the compacted revision are rebuilt from the histories on load.
 *
 * A snapshot is written to a temporary file, fsynced, renamed and the directory fsynced; a file without a
 * valid END frame is never renamed into place, so an invalid `.snap` file means the disk lost data.
 */

const enum SnapRecord {
  Meta = 10,
  Key = 11,
  Event = 12,
  End = 13,
}

/** The state to write, captured synchronously (reference copies only) so writing can proceed async. */
export interface SnapshotImage {
  readonly seq: number;
  readonly revision: number;
  readonly compactedRevision: number;
  readonly keys: {
    readonly key: string;
    readonly revs: number[];
    readonly kvs: (KeyValue | undefined)[];
    /** Per version, its ttl's end in epoch ms (0: none): expiries survive restarts through snapshots too. */
    readonly expiries: number[];
  }[];
  readonly boundary: WatchBatch | undefined;
}

/** Captures every retained version at or below `revision` (the durable revision) of `state`. */
export function captureSnapshot(state: MvccState, seq: number, revision: number): SnapshotImage {
  const keys: SnapshotImage['keys'] = [];
  for (const [key, h] of state.index.entries()) {
    let n = 0;
    while (n < h.revs.length && h.revs[n]! <= revision) n++;
    if (n > 0) keys.push({ key, revs: h.revs.slice(0, n), kvs: h.kvs.slice(0, n), expiries: h.expiries.slice(0, n) });
  }
  const c = state.compactedRevision;
  return { seq, revision, compactedRevision: c, keys, boundary: c > 0 ? state.events.batchAt(c) : undefined };
}

const CHUNK = 4 << 20;

/** Writes `image` durably as `snap-<seq>.snap`; resolves with the file's size. */
export async function writeSnapshot(dir: string, image: SnapshotImage): Promise<number> {
  const finalPath = pathOf(dir, snapshotName(image.seq));
  const tmpPath = `${finalPath}.tmp`;
  const handle = await fsp.open(tmpPath, 'w');
  let written = 0;
  try {
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    const emit = async (frame: Buffer): Promise<void> => {
      chunk.push(frame);
      chunkBytes += frame.length;
      if (chunkBytes >= CHUNK) await flush();
    };
    const flush = async (): Promise<void> => {
      if (chunk.length === 0) return;
      const data = Buffer.concat(chunk, chunkBytes);
      chunk = [];
      chunkBytes = 0;
      written += data.length;
      let off = 0;
      while (off < data.length) off += (await handle.write(data, off, data.length - off)).bytesWritten;
    };

    const meta = new RecordWriter(1 + 18);
    meta.u8(SnapRecord.Meta);
    meta.u48(image.seq);
    meta.u48(image.revision);
    meta.u48(image.compactedRevision);
    await emit(meta.finish());

    for (const { key, revs, kvs, expiries } of image.keys) {
      const kl = Buffer.byteLength(key, 'utf8');
      let size = 1 + 4 + kl + 4;
      for (let i = 0; i < kvs.length; i++) {
        const kv = kvs[i];
        size += 6 + 1 + (kv === undefined ? 0 : 6 + 4 + kv.value.length + (expiries[i]! > 0 ? 6 : 0));
      }
      const w = new RecordWriter(size);
      w.u8(SnapRecord.Key);
      w.str(key, kl);
      w.u32(revs.length);
      for (let i = 0; i < revs.length; i++) {
        const kv = kvs[i];
        w.u48(revs[i]!);
        if (kv === undefined) {
          w.u8(2);
        } else {
          const expiresAt = expiries[i]!;
          w.u8(expiresAt > 0 ? 3 : 1);
          w.u48(kv.createRevision);
          if (expiresAt > 0) w.u48(expiresAt);
          w.bytes(kv.value);
        }
      }
      await emit(w.finish());
    }

    const events = image.boundary?.events ?? [];
    for (const ev of events) await emit(encodeEvent(ev));

    const end = new RecordWriter(1 + 8);
    end.u8(SnapRecord.End);
    end.u32(image.keys.length);
    end.u32(events.length);
    await emit(end.finish());
    await flush();
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(tmpPath, finalPath);
  await fsyncDir(dir);
  return written;
}

function encodeEvent(ev: WatchEvent): Buffer {
  const kl = Buffer.byteLength(ev.kv.key, 'utf8');
  const kvSize = (kv: KeyValue): number => 12 + 4 + kv.value.length;
  const w = new RecordWriter(1 + 1 + 4 + kl + kvSize(ev.kv) + 1 + (ev.prev ? kvSize(ev.prev) : 0));
  w.u8(SnapRecord.Event);
  w.u8(ev.type === 'put' ? 1 : 2);
  w.str(ev.kv.key, kl);
  const kvOut = (kv: KeyValue): void => {
    w.u48(kv.createRevision);
    w.u48(kv.modRevision);
    w.bytes(kv.value);
  };
  kvOut(ev.kv);
  w.u8(ev.prev ? 1 : 0);
  if (ev.prev) kvOut(ev.prev);
  return w.finish();
}

export interface LoadedSnapshot {
  readonly seq: number;
  readonly revision: number;
  readonly compactedRevision: number;
}

/**
 * Loads snapshot `seq` into the empty `state` (histories, counters, and the event history rebuilt from
 * the histories). Throws when the file is incomplete or corrupt.
 */
export async function loadSnapshot(dir: string, seq: number, state: MvccState): Promise<LoadedSnapshot> {
  const path = pathOf(dir, snapshotName(seq));
  const buf = await fsp.readFile(path);
  let meta: LoadedSnapshot | undefined;
  let ended = false;
  let keyCount = 0;
  const boundary: WatchEvent[] = [];
  const scan = scanFrames(buf, 0, (start, end) => {
    if (ended) throw new Error('frames after END');
    const r = new RecordReader(buf, start, end);
    const type = r.u8();
    if (type === SnapRecord.Meta) {
      meta = { seq: r.u48(), revision: r.u48(), compactedRevision: r.u48() };
      return;
    }
    if (meta === undefined) throw new Error('snapshot does not start with META');
    if (type === SnapRecord.Key) {
      const key = r.str();
      const n = r.u32();
      for (let i = 0; i < n; i++) {
        const modRevision = r.u48();
        const kind = r.u8();
        if (kind === 2) {
          state.index.append(key, modRevision, undefined);
        } else if (kind === 1 || kind === 3) {
          const createRevision = r.u48();
          const expiresAt = kind === 3 ? r.u48() : 0;
          state.index.append(key, modRevision, { key, value: r.bytes(), createRevision, modRevision }, expiresAt);
        } else {
          throw new Error(`unknown version kind ${kind} of key ${key}`);
        }
      }
      keyCount++;
    } else if (type === SnapRecord.Event) {
      const kind = r.u8();
      const key = r.str();
      const readKv = (): KeyValue => {
        const createRevision = r.u48();
        const modRevision = r.u48();
        return { key, createRevision, modRevision, value: r.bytes() };
      };
      const kv = readKv();
      const prev = r.u8() === 1 ? readKv() : undefined;
      if (kind === 1) boundary.push({ type: 'put', kv, prev });
      else if (prev !== undefined) boundary.push({ type: 'delete', kv, prev });
    } else if (type === SnapRecord.End) {
      const keys = r.u32();
      const events = r.u32();
      if (keys !== keyCount || events !== boundary.length) throw new Error('snapshot END counts do not match');
      ended = true;
    } else {
      throw new Error(`unknown snapshot record type ${type}`);
    }
  });
  if (scan.problem !== undefined || !ended || meta === undefined) {
    throw new Error(`snapshot ${path} is incomplete or corrupt${scan.problem ? `: ${scan.problem}` : ''}`);
  }
  if (meta.seq !== seq) throw new Error(`snapshot ${path} claims sequence ${meta.seq}`);
  state.revision = meta.revision;
  state.compactedRevision = meta.compactedRevision;
  rebuildEvents(state, boundary);
  return meta;
}

/** Rebuilds the event history after the compacted revision from the key histories. */
function rebuildEvents(state: MvccState, boundary: WatchEvent[]): void {
  const c = state.compactedRevision;
  const all: { rev: number; ev: WatchEvent }[] = [];
  for (const [key, h] of state.index.entries()) {
    for (let i = 0; i < h.revs.length; i++) {
      const rev = h.revs[i]!;
      if (rev <= c) continue;
      const kv = h.kvs[i];
      const prev = i > 0 ? h.kvs[i - 1] : undefined;
      if (kv !== undefined) all.push({ rev, ev: { type: 'put', kv, prev } });
      else if (prev !== undefined) {
        all.push({ rev, ev: { type: 'delete', kv: { key, value: new Uint8Array(0), createRevision: 0, modRevision: rev }, prev } });
      }
    }
  }
  all.sort((a, b) => a.rev - b.rev);
  if (boundary.length > 0) state.events.append({ events: boundary, revision: c });
  for (let i = 0; i < all.length; ) {
    const rev = all[i]!.rev;
    const events: WatchEvent[] = [];
    while (i < all.length && all[i]!.rev === rev) events.push(all[i++]!.ev);
    state.events.append({ events, revision: rev });
  }
}
