import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { segmentName, snapshotName } from './data-files.js';
import { openMemoryStore, type MemoryStoreOptions } from './memory-store.js';
import { recover } from './recovery.js';
import { captureSnapshot, writeSnapshot } from './snapshot.js';
import type { StoreLogger } from './store-logger.js';

const v = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());

/** Snapshots only when a test asks for them. */
const NEVER: Omit<MemoryStoreOptions, 'dataDir'> = {
  snapshotEveryRecords: 1e12,
  snapshotEveryBytes: 1e12,
  snapshotMinBytes: 1e12,
  snapshotIntervalMs: 0,
};

interface Recorded extends StoreLogger {
  readonly lines: { level: 'info' | 'warn'; msg: string; fields: Record<string, unknown> }[];
}
function recorder(): Recorded {
  const lines: Recorded['lines'] = [];
  return {
    lines,
    info: (fields, msg) => lines.push({ level: 'info', msg, fields }),
    warn: (fields, msg) => lines.push({ level: 'warn', msg, fields }),
  };
}

/** Key -> [value, modRevision] written so far. */
type Expected = Map<string, [string, number]>;

/** Opens the store without snapshots, writes `n` creates/updates over 8 keys, closes it. */
async function writeBatch(dir: string, tag: string, n: number, expected: Expected): Promise<void> {
  const store = await openMemoryStore({ dataDir: dir, logger: recorder(), ...NEVER });
  try {
    for (let i = 0; i < n; i++) {
      const key = `/k/${i % 8}`;
      const cur = expected.get(key);
      const value = `${tag}-${i}`;
      const rev = cur === undefined ? (await store.create(key, v(value))).revision : (await store.update(key, v(value), cur[1])).revision;
      expected.set(key, [value, rev]);
    }
  } finally {
    await store.close();
  }
}

/** Opens `dir` and checks every expected key and the revision; returns the recovery log. */
async function expectRecovered(dir: string, expected: Expected): Promise<Recorded> {
  const logger = recorder();
  const store = await openMemoryStore({ dataDir: dir, logger, ...NEVER });
  try {
    const top = Math.max(...[...expected.values()].map(([, r]) => r));
    expect(await store.currentRevision()).toBe(top);
    for (const [key, [value, rev]] of expected) {
      const { kv } = await store.get(key);
      expect([key, text(kv?.value), kv?.modRevision]).toEqual([key, value, rev]);
    }
    // Writes continue above the recovered revision.
    expect((await store.create('/k/after', v('x'))).revision).toBe(top + 1);
  } finally {
    await store.close();
  }
  return logger;
}

/**
 * Writes `snap-<seq>` holding exactly what the files below `seq` of `dir` hold (the state step 2 captures
 * when segment `seq` was opened, written as step 3 would).
 */
async function snapshotOfSegmentsBelow(dir: string, seq: number): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'memstore-scratch-'));
  try {
    for (const name of files(dir)) {
      const m = /^(?:wal|snap)-(\d+)\.(?:log|snap)$/.exec(name);
      if (m !== null && Number(m[1]) < seq) copyFileSync(join(dir, name), join(scratch, name));
    }
    const r = await recover(scratch, recorder());
    await r.writer.close();
    await writeSnapshot(dir, captureSnapshot(r.state, seq, r.state.revision));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const files = (dir: string): string[] => readdirSync(dir).filter((n) => n !== 'LOCK').sort();

describe('log rotation and snapshots', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memstore-rotation-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cuts the log once it outgrows the last snapshot: restart reads about the retained state, not the history', async () => {
    const logger = recorder();
    const store = await openMemoryStore({ dataDir: dir, logger, snapshotEveryRecords: 1e12, snapshotEveryBytes: 1e12, snapshotMinBytes: 16 << 10, snapshotIntervalMs: 0 });
    let historyBytes = 0;
    // 10 writers (one per key, concurrent: group commits), 300 updates each; compaction keeps little history.
    await Promise.all(
      Array.from({ length: 10 }, async (_, k) => {
        const key = `/k/${k}`;
        let rev = 0;
        for (let i = 0; i < 300; i++) {
          const value = v(`${i * 10 + k}-${'x'.repeat(200)}`);
          historyBytes += value.length;
          rev = rev === 0 ? (await store.create(key, value)).revision : (await store.update(key, value, rev)).revision;
          if (k === 0 && i % 10 === 9) await store.compact(rev);
        }
      }),
    );
    await store.snapshotIdle();
    await store.close();
    const sizes = files(dir).map((n) => statSync(join(dir, n)).size);
    const onDisk = sizes.reduce((a, b) => a + b, 0);
    expect(historyBytes).toBeGreaterThan(600_000);
    // One snapshot and one segment remain; together far below the history (retained: ~10 keys x <= 100 versions).
    expect(files(dir).filter((n) => n.endsWith('.snap'))).toHaveLength(1);
    expect(files(dir).filter((n) => n.endsWith('.log'))).toHaveLength(1);
    expect(onDisk).toBeLessThan(historyBytes / 4);

    const reopened = recorder();
    const again = await openMemoryStore({ dataDir: dir, logger: reopened, ...NEVER });
    const recovered = reopened.lines.find((l) => l.msg === 'recovered the store')!.fields;
    expect(recovered.snapshot).not.toBeNull();
    expect(recovered.logBytes as number).toBeLessThanOrEqual(Math.max(16 << 10, recovered.snapshotBytes as number) + 4096);
    expect(text((await again.get('/k/9')).kv?.value)).toMatch(/^2999-/);
    await again.close();
  });

  it('snapshots by time when records were logged since the last snapshot', async () => {
    let now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const store = await openMemoryStore({ dataDir: dir, logger: recorder(), ...NEVER, snapshotIntervalMs: 60_000 });
    const r1 = (await store.create('/k/a', v('1'))).revision;
    await store.snapshotIdle();
    expect(files(dir).some((n) => n.endsWith('.snap'))).toBe(false);
    now += 60_000;
    await store.update('/k/a', v('2'), r1); // the flush after which the snapshot is due
    await store.snapshotIdle();
    await store.close();
    expect(files(dir)).toEqual([snapshotName(2), segmentName(2)].sort());
  });

  describe('a crash between the steps of a snapshot', () => {
    const expected: Expected = new Map();
    beforeEach(async () => {
      expected.clear();
      await writeBatch(dir, 'a', 40, expected); // wal-1
    });

    it('after step 1 (a new, empty segment): the old segment is replayed and the new one appended to', async () => {
      writeFileSync(join(dir, segmentName(2)), '');
      await expectRecovered(dir, expected);
      expect(statSync(join(dir, segmentName(2))).size).toBeGreaterThan(0); // '/k/after' went to the newest segment
    });

    it('after step 1 with writes in the new segment, before the snapshot: both segments are replayed', async () => {
      writeFileSync(join(dir, segmentName(2)), '');
      await writeBatch(dir, 'b', 30, expected);
      expect(files(dir)).toEqual([segmentName(1), segmentName(2)]);
      await expectRecovered(dir, expected);
    });

    it('during step 3 (a half written snapshot .tmp): it is deleted and the segments replayed', async () => {
      writeFileSync(join(dir, segmentName(2)), '');
      await writeBatch(dir, 'b', 30, expected);
      await snapshotOfSegmentsBelow(dir, 2);
      const snap = readFileSync(join(dir, snapshotName(2)));
      rmSync(join(dir, snapshotName(2)));
      writeFileSync(join(dir, `${snapshotName(2)}.tmp`), snap.subarray(0, snap.length >> 1));
      await expectRecovered(dir, expected);
      expect(files(dir)).toEqual([segmentName(1), segmentName(2)]);
    });

    it('after step 3, before step 4 (the old files still there): the new snapshot and only the newer segment are read, the old files removed', async () => {
      writeFileSync(join(dir, segmentName(2)), '');
      await writeBatch(dir, 'b', 30, expected);
      await snapshotOfSegmentsBelow(dir, 2);
      const logger = await expectRecovered(dir, expected);
      const recovered = logger.lines.find((l) => l.msg === 'recovered the store')!.fields;
      expect(recovered).toMatchObject({ snapshot: 2, segments: 1, logRecords: 30 });
      expect(files(dir)).toEqual([snapshotName(2), segmentName(2)].sort());
    });

    it('during step 4 (old segment deleted, old snapshot left): the newest snapshot is used', async () => {
      writeFileSync(join(dir, segmentName(2)), '');
      await writeBatch(dir, 'b', 20, expected);
      await snapshotOfSegmentsBelow(dir, 2);
      writeFileSync(join(dir, segmentName(3)), '');
      await writeBatch(dir, 'c', 20, expected);
      await snapshotOfSegmentsBelow(dir, 3);
      rmSync(join(dir, segmentName(2))); // (wal-1 went at the open after snap-2)
      expect(files(dir)).toEqual([segmentName(3), snapshotName(2), snapshotName(3)].sort());
      await expectRecovered(dir, expected);
      expect(files(dir)).toEqual([segmentName(3), snapshotName(3)].sort());
    });

    it('a damaged newest snapshot is set aside and the older one used while its segments remain', async () => {
      writeFileSync(join(dir, segmentName(2)), '');
      await writeBatch(dir, 'b', 30, expected);
      await snapshotOfSegmentsBelow(dir, 2);
      const path = join(dir, snapshotName(2));
      const snap = readFileSync(path);
      snap.writeUInt8(snap.readUInt8(snap.length >> 1) ^ 0xff, snap.length >> 1);
      writeFileSync(path, snap);
      const logger = await expectRecovered(dir, expected);
      expect(logger.lines.some((l) => l.level === 'warn' && l.msg.startsWith('snapshot does not load'))).toBe(true);
      expect(existsSync(`${path}.damaged`)).toBe(true);
    });

    it('refuses to open when a snapshot is damaged and the segments before it are gone, or a segment is missing', async () => {
      writeFileSync(join(dir, segmentName(2)), '');
      await writeBatch(dir, 'b', 10, expected);
      writeFileSync(join(dir, segmentName(3)), '');
      await writeBatch(dir, 'c', 10, expected);
      rmSync(join(dir, segmentName(2)));
      await expect(openMemoryStore({ dataDir: dir, logger: recorder(), ...NEVER })).rejects.toThrow(/log segment wal-0*2\.log is missing/);

      rmSync(join(dir, segmentName(1)));
      rmSync(join(dir, segmentName(3)));
      writeFileSync(join(dir, segmentName(4)), '');
      writeFileSync(join(dir, snapshotName(4)), 'garbage');
      await expect(openMemoryStore({ dataDir: dir, logger: recorder(), ...NEVER })).rejects.toThrow(/snapshot .* is incomplete or corrupt/);
    });
  });
});
