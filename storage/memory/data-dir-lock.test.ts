import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStorageError } from '../errors.js';
import { LOCK_FILE } from './data-dir-lock.js';
import { openMemoryStore } from './memory-store.js';

describe('data directory lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memstore-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second opener, naming the holder, and frees the directory on close', async () => {
    const first = await openMemoryStore({ dataDir: dir });
    const err = await openMemoryStore({ dataDir: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStorageError(err, 'Unavailable')).toBe(true);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    expect((err as Error).message).toContain(hostname());
    await first.close();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const again = await openMemoryStore({ dataDir: dir });
    await again.close();
  });

  it('takes over a stale lock left by a dead process on this host', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(dead.stdout.toString());
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid, hostname: hostname(), startedAt: 'then' }));
    const store = await openMemoryStore({ dataDir: dir });
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    await store.close();
  });

  it('does not break a lock held by another host', async () => {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, hostname: 'elsewhere.example', startedAt: 'then' }));
    await expect(openMemoryStore({ dataDir: dir })).rejects.toThrow(/pid 1 on host elsewhere\.example/);
  });
});
