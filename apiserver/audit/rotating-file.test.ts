/**
 * The audit log file's rotation (lumberjack's rules), on real files in a temporary directory.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { backupTimestamp, RotatingFile } from './rotating-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-rotate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const backupPattern = /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log(\.gz)?$/;

function line(i: number, size = 100): Buffer {
  return Buffer.from(`${String(i).padStart(size - 1, '-')}\n`);
}

describe('RotatingFile', () => {
  it('appends to an existing file, rotates before passing the limit, names backups as lumberjack, keeps maxBackups', async () => {
    const path = join(dir, 'logs', 'audit.log');
    const f0 = await RotatingFile.open({ path, maxSizeBytes: 1000, maxBackups: 2, maxAgeDays: 0 });
    await f0.write(line(0));
    await f0.close();
    // Reopened: the 100 bytes already there count.
    const f = await RotatingFile.open({ path, maxSizeBytes: 1000, maxBackups: 2, maxAgeDays: 0 });
    expect(f.size).toBe(100);
    expect(statSync(join(dir, 'logs')).mode & 0o777).toBe(0o700);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    for (let i = 1; i < 50; i++) await f.write(line(i));
    await f.close();
    const names = readdirSync(join(dir, 'logs')).sort();
    const backups = names.filter((n) => n !== 'audit.log');
    expect(backups).toHaveLength(2);
    for (const b of backups) expect(b).toMatch(backupPattern);
    // Each file holds whole lines up to the limit; the newest backups and the current file hold the last lines.
    const current = readFileSync(path, 'utf8');
    expect(current.length).toBeLessThanOrEqual(1000);
    expect(current.endsWith(line(49).toString())).toBe(true);
    const newest = readFileSync(join(dir, 'logs', backups[1]!), 'utf8');
    expect(newest.length).toBe(1000);
    expect(newest.split('\n').filter((l) => l !== '')).toHaveLength(10);
  });

  it('writes a line larger than the limit into a fresh file rather than losing it', async () => {
    const path = join(dir, 'audit.log');
    const f = await RotatingFile.open({ path, maxSizeBytes: 100, maxBackups: 0, maxAgeDays: 0 });
    await f.write(line(1, 50));
    await f.write(line(2, 300));
    await f.close();
    expect(readFileSync(path, 'utf8')).toBe(line(2, 300).toString());
    expect(readdirSync(dir).filter((n) => n !== 'audit.log')).toHaveLength(1);
  });

  it('removes backups older than maxAgeDays (by the time in their name) and compresses the others', async () => {
    const path = join(dir, 'audit.log');
    const old = join(dir, `audit-${backupTimestamp(Date.now() - 3 * 86_400_000)}.log`);
    const recent = join(dir, `audit-${backupTimestamp(Date.now() - 3_600_000)}.log`);
    writeFileSync(old, 'old\n');
    writeFileSync(recent, 'recent\n');
    writeFileSync(join(dir, 'other.log'), 'not a backup\n');
    const f = await RotatingFile.open({ path, maxSizeBytes: 150, maxBackups: 0, maxAgeDays: 2, compress: true });
    await f.write(line(1));
    await f.write(line(2));
    await f.close();
    const names = readdirSync(dir).sort();
    expect(names).not.toContain(old.slice(dir.length + 1));
    expect(names).toContain('other.log');
    const gz = names.filter((n) => n.endsWith('.gz'));
    expect(gz).toHaveLength(2);
    const contents = gz.map((n) => gunzipSync(readFileSync(join(dir, n))).toString()).sort();
    expect(contents).toEqual([line(1).toString(), 'recent\n'].sort());
  });
});
