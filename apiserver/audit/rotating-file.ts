/**
 * The audit log file with rotation as kube-apiserver does it (through lumberjack):
 * - the file is opened for appending (created 0600, its directory 0700 when missing) and its current size
 *   counts toward the limit, so a restart continues the same file;
 * - before a write that would take it past `maxSizeBytes`, the file is renamed to a backup
 *   `<name>-<UTC time 2006-01-02T15-04-05.000><ext>` (`audit-2026-11-24T05-40-01.123.log`) and a new file is
 *   started; a write larger than the limit on its own still goes into the fresh file (never lost);
 * - then, in the background: backups beyond `maxBackups` (newest kept) and older than `maxAgeDays` (by the
 *   time in their name) are removed (0: no limit), and with `compress` the backups are gzipped
 *   (`.log.gz`).
 *
 * `write` writes the whole buffer or throws an error whose `written` member says how many bytes made it
 * (ENOSPC, EFBIG, EIO ...): the caller decides what was lost. A failed rotation keeps the current file.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface RotationOptions {
  readonly path: string;
  /** Rotate before the file passes this many bytes. */
  readonly maxSizeBytes: number;
  /** Backups kept (newest first); 0 keeps all (subject to maxAgeDays). */
  readonly maxBackups: number;
  /** Backups older than this many days are removed; 0 keeps them. */
  readonly maxAgeDays: number;
  /** gzip backups. */
  readonly compress?: boolean;
  /** Called with problems of the background cleanup. */
  readonly onError?: (err: unknown) => void;
}

/** An error of `write`, with how many bytes of the buffer were written before it. */
export type WriteError = Error & { written?: number; code?: string };

/** Where audit lines go: the rotating file, or stdout (`--audit-log-path=-`). */
export interface AuditOutput {
  write(buf: Buffer): Promise<void>;
  close(): Promise<void>;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** lumberjack's backup time stamp, `2006-01-02T15-04-05.000` in UTC. */
export function backupTimestamp(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}-${pad(d.getUTCMinutes())}-${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

const stampPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

function parseStamp(s: string): number | undefined {
  const m = stampPattern.exec(s);
  if (m === null) return undefined;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!);
}

export class RotatingFile implements AuditOutput {
  readonly #o: RotationOptions;
  readonly #dir: string;
  readonly #prefix: string;
  readonly #ext: string;
  #fh: FileHandle;
  #size: number;
  #lastStamp = 0;
  #mill: Promise<void> = Promise.resolve();

  private constructor(o: RotationOptions, fh: FileHandle, size: number) {
    this.#o = o;
    this.#fh = fh;
    this.#size = size;
    this.#dir = dirname(o.path);
    this.#ext = extname(o.path);
    this.#prefix = basename(o.path, this.#ext);
  }

  /** Opens (creating) the file; throws when it cannot be created or written, so a bad path fails start-up. */
  static async open(o: RotationOptions): Promise<RotatingFile> {
    await mkdir(dirname(o.path), { recursive: true, mode: 0o700 });
    const fh = await open(o.path, 'a', 0o600);
    const { size } = await fh.stat();
    return new RotatingFile(o, fh, size);
  }

  /** The current file's size in bytes (as this writer counted it). */
  get size(): number {
    return this.#size;
  }

  async write(buf: Buffer): Promise<void> {
    if (this.#size > 0 && this.#size + buf.length > this.#o.maxSizeBytes) await this.#rotate();
    let off = 0;
    try {
      while (off < buf.length) {
        const { bytesWritten } = await this.#fh.write(buf, off, buf.length - off);
        if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
        off += bytesWritten;
        this.#size += bytesWritten;
      }
    } catch (err) {
      (err as WriteError).written = off;
      throw err;
    }
  }

  async #rotate(): Promise<void> {
    // Two rotations in one millisecond must not overwrite the first backup.
    let now = Math.max(Date.now(), this.#lastStamp + 1);
    this.#lastStamp = now;
    const backup = (ms: number): string => join(this.#dir, `${this.#prefix}-${backupTimestamp(ms)}${this.#ext}`);
    while (await exists(backup(now)) || await exists(`${backup(now)}.gz`)) now++;
    this.#lastStamp = now;
    let fresh: FileHandle;
    try {
      await rename(this.#o.path, backup(now));
    } catch (err) {
      this.#o.onError?.(err);
      return;
    }
    try {
      fresh = await open(this.#o.path, 'a', 0o600);
    } catch (err) {
      // Cannot start a new file (no inodes...): go on appending to the renamed one.
      this.#o.onError?.(err);
      return;
    }
    const old = this.#fh;
    this.#fh = fresh;
    this.#size = 0;
    await old.close().catch(() => undefined);
    this.#mill = this.#mill.then(() => this.#cleanup()).catch((err: unknown) => this.#o.onError?.(err));
  }

  /** Removes backups past maxBackups / maxAgeDays and compresses the rest when asked. */
  async #cleanup(): Promise<void> {
    const names = await readdir(this.#dir);
    const backups: { name: string; ms: number }[] = [];
    const head = `${this.#prefix}-`;
    for (const name of names) {
      if (!name.startsWith(head)) continue;
      let rest = name.slice(head.length);
      if (rest.endsWith('.gz')) rest = rest.slice(0, -3);
      if (!rest.endsWith(this.#ext)) continue;
      const ms = parseStamp(rest.slice(0, rest.length - this.#ext.length));
      if (ms !== undefined) backups.push({ name, ms });
    }
    backups.sort((a, b) => b.ms - a.ms || (a.name < b.name ? 1 : -1));
    const remove = new Set<string>();
    if (this.#o.maxBackups > 0) {
      // A backup and its compressed twin count once.
      const kept = new Set<number>();
      for (const b of backups) {
        if (!kept.has(b.ms) && kept.size >= this.#o.maxBackups) remove.add(b.name);
        else kept.add(b.ms);
      }
    }
    if (this.#o.maxAgeDays > 0) {
      const cutoff = Date.now() - this.#o.maxAgeDays * 24 * 3600 * 1000;
      for (const b of backups) if (b.ms < cutoff) remove.add(b.name);
    }
    for (const name of remove) await unlink(join(this.#dir, name)).catch(() => undefined);
    if (this.#o.compress === true) {
      for (const b of backups) {
        if (remove.has(b.name) || b.name.endsWith('.gz')) continue;
        const from = join(this.#dir, b.name);
        await pipeline(createReadStream(from), createGzip(), createWriteStream(`${from}.gz`, { mode: 0o600 }));
        await unlink(from);
      }
    }
  }

  /** Waits for the background cleanup, then closes the file. */
  async close(): Promise<void> {
    await this.#mill;
    await this.#fh.close();
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** `--audit-log-path=-`: lines to stdout, no rotation. */
export function stdoutOutput(): AuditOutput {
  return {
    write: (buf) => new Promise((resolve, reject) => {
      process.stdout.write(buf, (err) => (err == null ? resolve() : reject(Object.assign(err, { written: 0 }))));
    }),
    close: async () => undefined,
  };
}
