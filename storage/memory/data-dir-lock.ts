import { promises as fsp } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { unavailable } from '../errors.js';

/** What a lock file records about its holder. */
export interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: string;
}

export const LOCK_FILE = 'LOCK';

/**
 * One process per data directory. The lock is a file created atomically with its full content (written to
 * a temporary name, then hard-linked to `LOCK`, which fails if it exists), so nobody ever sees a half
 * written lock. A second opener gets `Unavailable` naming the holder. A lock left by a process that is gone
 * (same host, pid not running) is taken over. Locks from another host are never broken: the directory may
 * be on shared storage and that host may be alive.
 *
 * Known limit: two processes breaking the same stale lock at the same moment could both succeed (the unlink
 * of the stale file is not atomic with the check); both must start within the same few microseconds.
 */
export class DataDirLock {
  private released = false;

  private constructor(
    private readonly path: string,
    private readonly content: string,
  ) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    const path = join(dataDir, LOCK_FILE);
    const me: LockHolder = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() };
    const content = JSON.stringify(me) + '\n';
    const tmp = join(dataDir, `${LOCK_FILE}.${process.pid}.${Date.now()}.tmp`);
    await fsp.writeFile(tmp, content, { flag: 'wx' });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await fsp.link(tmp, path);
          return new DataDirLock(path, content);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const existing = await fsp.readFile(path, 'utf8').catch(() => undefined);
        if (existing === undefined) continue; // removed meanwhile: try again
        const holder = parseHolder(existing);
        if (holder === undefined || !isStale(holder)) {
          const who =
            holder === undefined
              ? `an unreadable lock file ${path}`
              : `pid ${holder.pid} on host ${holder.hostname} (since ${holder.startedAt})`;
          throw unavailable(`data directory ${dataDir} is in use by ${who}; remove ${path} if that process is gone`);
        }
        // Stale: remove it only if it is still the file we judged.
        const again = await fsp.readFile(path, 'utf8').catch(() => undefined);
        if (again === existing) await fsp.unlink(path).catch(() => undefined);
      }
      throw unavailable(`could not take the lock ${path}: it keeps changing`);
    } finally {
      await fsp.unlink(tmp).catch(() => undefined);
    }
  }

  /** Removes the lock file if it is still ours. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const current = await fsp.readFile(this.path, 'utf8').catch(() => undefined);
    if (current === this.content) await fsp.unlink(this.path).catch(() => undefined);
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid !== 'number' || typeof v.hostname !== 'string') return undefined;
    return { pid: v.pid, hostname: v.hostname, startedAt: String(v.startedAt ?? 'unknown') };
  } catch {
    return undefined;
  }
}

/** A holder is stale when it ran on this host and its pid no longer exists. */
function isStale(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return false;
  if (holder.pid === process.pid) return false; // this very process holds it (opened twice)
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
