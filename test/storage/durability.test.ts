/**
 * Crash durability of the embedded store: a child process writes and reports acknowledged writes; it is
 * SIGKILLed mid-stream; the store reopened here must hold every acknowledged write at exactly its
 * revision and continue above the last acknowledged revision. Then the log tail is damaged (garbage, a
 * partial record) and the store must still open with all data intact.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import { encodeTxn } from '../../storage/memory/record-codec.js';

const ROOT = join(__dirname, '..', '..');
const WRITER = join(__dirname, 'durability-writer.ts');

interface Acked {
  readonly acks: Map<string, number>;
  readonly maxRevision: number;
}

/** Runs the writer until `minAcks` acknowledgements were read, SIGKILLs it, returns every ack it printed. */
function writeAndKill(dataDir: string, minAcks: number, snapshotEvery?: number): Promise<Acked> {
  const args = ['--import', 'tsx', WRITER, dataDir, ...(snapshotEvery === undefined ? [] : [String(snapshotEvery)])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const acks = new Map<string, number>();
  let maxRevision = 0;
  let killed = false;
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    const sp = line.lastIndexOf(' ');
    const rev = Number(line.slice(sp + 1));
    acks.set(line.slice(0, sp), rev);
    if (rev > maxRevision) maxRevision = rev;
    if (!killed && acks.size >= minAcks) {
      killed = true;
      child.kill('SIGKILL');
    }
  });
  return new Promise((resolve, reject) => {
    // 'close' fires after stdout is drained, so every line printed before the kill was read.
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited early (code ${code}): ${stderr}`));
      else resolve({ acks, maxRevision });
    });
  });
}

async function expectAllAcked(dataDir: string, acked: Acked, warnings: string[] = []): Promise<void> {
  const store = await openMemoryStore({ dataDir, logger: { info: () => undefined, warn: (fields, m) => warnings.push(`${m} ${JSON.stringify(fields)}`) } });
  try {
    const missing: string[] = [];
    for (const [key, rev] of acked.acks) {
      const { kv } = await store.get(key);
      if (kv?.modRevision !== rev) missing.push(`${key}: acked ${rev}, found ${kv?.modRevision}`);
    }
    expect(missing).toEqual([]);
    expect(await store.currentRevision()).toBeGreaterThanOrEqual(acked.maxRevision);
    const list = await store.list('', { countOnly: true });
    expect(list.count).toBeGreaterThanOrEqual(acked.acks.size);
  } finally {
    await store.close();
  }
}

function lastSegment(dataDir: string): string {
  const segs = readdirSync(dataDir).filter((n) => n.startsWith('wal-')).sort();
  return join(dataDir, segs[segs.length - 1]!);
}

describe.each([
  ['without snapshots', undefined],
  ['with snapshots mid-stream', 97],
])('durability %s', (_name, snapshotEvery) => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'memstore-durability-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every acknowledged write across SIGKILL and a damaged log tail', async () => {
    const acked = await writeAndKill(dataDir, 3000, snapshotEvery);
    expect(acked.acks.size).toBeGreaterThanOrEqual(3000);
    if (snapshotEvery !== undefined) {
      expect(readdirSync(dataDir).some((n) => /^snap-\d+\.snap$/.test(n))).toBe(true);
    }

    await expectAllAcked(dataDir, acked);

    // The counter continues above the last acknowledged revision.
    let next: number;
    {
      const store = await openMemoryStore({ dataDir });
      next = (await store.create('/after/restart', new Uint8Array([1]))).revision;
      expect(next).toBeGreaterThan(acked.maxRevision);
      await store.close();
    }
    const withNext: Acked = { acks: new Map([...acked.acks, ['/after/restart', next]]), maxRevision: next };

    // Garbage at the tail: dropped with a warning, everything else intact.
    appendFileSync(lastSegment(dataDir), Buffer.from('this is not a log record, just garbage \x00\xff\x13'));
    const warnings: string[] = [];
    await expectAllAcked(dataDir, withNext, warnings);
    expect(warnings.join('\n')).toMatch(/torn tail.*"droppedBytes":[1-9]\d*/);

    // A partial record (a torn write): same.
    const frame = encodeTxn(next + 1, [{ key: '/torn', value: new Uint8Array(1000), createRevision: next + 1 }]).frame;
    appendFileSync(lastSegment(dataDir), frame.subarray(0, frame.length - 100));
    const warnings2: string[] = [];
    await expectAllAcked(dataDir, withNext, warnings2);
    expect(warnings2.join('\n')).toMatch(/partial record/);
    const store = await openMemoryStore({ dataDir });
    try {
      expect((await store.get('/torn')).kv).toBeUndefined();
      expect((await store.create('/after/torn', new Uint8Array([2]))).revision).toBe(next + 1);
    } finally {
      await store.close();
    }
  });
});
