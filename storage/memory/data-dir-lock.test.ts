import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { isStorageError } from '../errors.js';
import { currentHolder, judge, LOCK_FILE, probeSocket, type LockHolder } from './data-dir-lock.js';
import { openMemoryStore } from './memory-store.js';
import type { StoreLogger } from './store-logger.js';

const ROOT = join(__dirname, '..', '..');
const HOLDER = join(__dirname, 'testing', 'lock-holder.ts');

interface HolderLine {
  readonly locked: boolean;
  readonly pid?: number;
  readonly procPid?: number;
  readonly error?: string;
  readonly warnings?: string[];
}

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Starts lock-holder.ts (optionally as PID 1 of a new pid namespace) and resolves with its first line. */
function startHolder(dir: string, pidNamespace: boolean | 'own-proc'): Promise<{ child: ChildProcess; line: HolderLine }> {
  const node = [process.execPath, '--import', 'tsx', HOLDER, dir];
  const unshare = ['--pid', '--fork', '--kill-child', ...(pidNamespace === 'own-proc' ? ['--mount-proc'] : [])];
  const child = pidNamespace
    ? spawn('unshare', [...unshare, ...node], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(node[0]!, node.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (l) => resolve({ child, line: JSON.parse(l) as HolderLine }));
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code}) before reporting: ${stderr}`)));
  });
}

/** SIGKILLs a process by pid (a holder's real pid) and waits until `child` (it or its unshare) is gone. */
async function kill(child: ChildProcess, pid: number): Promise<void> {
  const gone = new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
  process.kill(pid, 'SIGKILL');
  await gone;
}

/** Polls `check` until it holds (a process's death reaches its sockets a moment after its parent saw it). */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await check()).toBe(true);
}

function recordingLogger(): StoreLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, warn: (fields, msg) => warnings.push(`${msg} ${JSON.stringify(fields)}`) };
}

const lockOf = (dir: string): LockHolder => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;

describe('data directory lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memstore-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second opener in this very process, naming the holder, and frees the directory on close', async () => {
    const first = await openMemoryStore({ dataDir: dir, logger: recordingLogger() });
    const err = await openMemoryStore({ dataDir: dir, logger: recordingLogger() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isStorageError(err, 'Unavailable')).toBe(true);
    expect((err as Error).message).toContain(`pid ${process.pid}`);
    expect((err as Error).message).toContain(hostname());
    expect((err as Error).message).toContain('this very process');
    await first.close();
    expect(readdirSync(dir).filter((n) => n.startsWith(LOCK_FILE))).toEqual([]); // the lock and its socket
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const again = await openMemoryStore({ dataDir: dir, logger: recordingLogger() });
    await again.close();
  });

  it('takes over a lock naming our own pid left by a crashed process (an older lock without start time)', async () => {
    // The container restart: the crashed server was PID 1, and so is the new one. The old code refused here.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: 'then' }));
    const logger = recordingLogger();
    const store = await openMemoryStore({ dataDir: dir, logger });
    expect(lockOf(dir).id).toBe(currentHolder().id);
    expect(logger.warnings.join('\n')).toMatch(/took over a stale data directory lock.*"holderPid":\d+/);
    await store.close();
  });

  it('takes over a lock naming our own pid and /proc pid with an earlier start time', async () => {
    const me = currentHolder();
    expect(me.procPid).toBeDefined(); // Linux: the /proc identity is used
    const crashed: LockHolder = { ...me, id: 'crashed-process', startTime: String(Number(me.startTime) - 1), startedAt: 'then' };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(crashed));
    expect(judge(crashed, me)).toMatch(/another process than the holder/);
    const store = await openMemoryStore({ dataDir: dir, logger: recordingLogger() });
    expect(lockOf(dir).id).toBe(me.id);
    await store.close();
  });

  it('takes over a stale lock left by a dead process on this host (old and new format)', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(dead.stdout.toString());
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid, hostname: hostname(), startedAt: 'then' }));
    let store = await openMemoryStore({ dataDir: dir, logger: recordingLogger() });
    expect(lockOf(dir).pid).toBe(process.pid);
    await store.close();

    const me = currentHolder();
    const holder: LockHolder = { ...me, id: 'dead', pid: deadPid, procPid: deadPid, startTime: '12345' };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(holder));
    expect(judge(holder, me)).toBe(`no process ${deadPid} is running`);
    store = await openMemoryStore({ dataDir: dir, logger: recordingLogger() });
    await store.close();
  });

  it('takes over a lock from before the last boot', () => {
    const me = currentHolder();
    // Even a pid and start time that match a live process: they were another process's in another boot.
    expect(judge({ ...me, id: 'x', bootId: 'another-boot' }, me)).toMatch(/before the last boot/);
    expect(judge({ ...me, id: 'x' }, me)).toBeUndefined(); // same boot, same pid and start time: alive
  });

  it('a live process on this host blocks; once it is killed, its lock is taken over', async () => {
    const { child, line } = await startHolder(dir, false);
    expect(line.locked).toBe(true);
    await expect(openMemoryStore({ dataDir: dir, logger: recordingLogger() })).rejects.toThrow(`pid ${line.pid} on host ${hostname()}`);
    await kill(child, line.pid!);
    const logger = recordingLogger();
    const store = await openMemoryStore({ dataDir: dir, logger });
    expect(logger.warnings.join('\n')).toContain(`"holderPid":${line.pid}`);
    // The dead holder's socket file is gone; ours is the only one.
    expect(readdirSync(dir).filter((n) => n.endsWith('.sock'))).toEqual([lockOf(dir).socket]);
    await store.close();
  });

  it('does not break a lock held by another host', async () => {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 1, hostname: 'elsewhere.example', startedAt: 'then' }));
    await expect(openMemoryStore({ dataDir: dir, logger: recordingLogger() })).rejects.toThrow(/pid 1 on host elsewhere\.example/);
    const me = currentHolder();
    expect(judge({ ...me, hostname: 'elsewhere.example', id: 'x', bootId: 'other' }, me)).toBeUndefined();
  });

  it('pid namespaces: PID 1 holding the lock blocks; SIGKILLed, the next PID 1 takes the lock over', async () => {
    const first = await startHolder(dir, true);
    expect(first.line).toMatchObject({ locked: true, pid: 1 });
    // /proc here is the host's: the holder's /proc pid is its real one, not 1 (that is our init).
    expect(first.line.procPid).not.toBe(1);
    // Live: refused from outside its namespace ...
    await expect(openMemoryStore({ dataDir: dir, logger: recordingLogger() })).rejects.toThrow(`pid 1 on host ${hostname()}`);
    // ... and from another namespace, by another PID 1.
    const blocked = await startHolder(dir, true);
    expect(blocked.line.locked).toBe(false);
    expect(blocked.line.error).toContain('is in use by pid 1');

    await kill(first.child, first.line.procPid!);
    const second = await startHolder(dir, true);
    expect(second.line).toMatchObject({ locked: true, pid: 1 });
    expect(second.line.warnings!.join('\n')).toMatch(/took over a stale data directory lock.*"holderPid":1/);
    await kill(second.child, second.line.procPid!);
  });

  it('containers with their own /proc (--mount-proc): a live PID 1 blocks another PID 1 (its lock socket answers), a dead one does not', async () => {
    const first = await startHolder(dir, 'own-proc');
    expect(first.line).toMatchObject({ locked: true, pid: 1, procPid: 1 }); // /proc/1 in there is itself
    const lock = lockOf(dir);
    // Seen from the second container, /proc/1 is itself with another start time: only the socket tells.
    const blocked = await startHolder(dir, 'own-proc');
    expect(blocked.line.locked).toBe(false);
    expect(blocked.line.error).toContain('is in use by pid 1');
    expect(await probeSocket(dir, lock)).toBe('alive');

    // Killed (through its unshare: --kill-child), its socket refuses and the next container takes over.
    first.child.kill('SIGKILL');
    await new Promise<void>((r) => (first.child.exitCode !== null || first.child.signalCode !== null ? r() : first.child.once('exit', () => r())));
    await waitFor(async () => (await probeSocket(dir, lock)) === 'dead');
    const second = await startHolder(dir, 'own-proc');
    expect(second.line).toMatchObject({ locked: true, pid: 1 });
    expect(second.line.warnings!.join('\n')).toMatch(/nobody listens on the holder's lock socket/);
    second.child.kill('SIGKILL');
  });
});
