import { close, fdatasync, open, write } from 'node:fs';
import { fsyncDir, pathOf, segmentName } from './data-files.js';

// Callback fs with hand-made promises: less overhead than FileHandle on the hot path.
const openP = (path: string, flags: string): Promise<number> =>
  new Promise((res, rej) => open(path, flags, 0o644, (err, fd) => (err ? rej(err) : res(fd))));
const writeP = (fd: number, buf: Buffer, off: number, len: number): Promise<number> =>
  new Promise((res, rej) => write(fd, buf, off, len, null, (err, n) => (err ? rej(err) : res(n))));
const fdatasyncP = (fd: number): Promise<void> =>
  new Promise((res, rej) => fdatasync(fd, (err) => (err ? rej(err) : res())));
const closeP = (fd: number): Promise<void> => new Promise((res, rej) => close(fd, (err) => (err ? rej(err) : res())));

/**
 * Appends to one log segment. `append` returns only after the bytes are written and fdatasync'ed. Not
 * reentrant: the group commit calls it with one chunk at a time.
 */
export class LogWriter {
  /** Bytes and records appended through this writer (for the snapshot trigger). */
  bytes = 0;
  records = 0;

  private constructor(
    readonly seq: number,
    private readonly fd: number,
  ) {}

  /**
   * Opens segment `seq` for appending, creating it if needed; a new file's directory entry is fsynced
   * before anything is acknowledged from it.
   */
  static async open(dir: string, seq: number, created: boolean): Promise<LogWriter> {
    const fd = await openP(pathOf(dir, segmentName(seq)), created ? 'wx' : 'a');
    if (created) await fsyncDir(dir);
    return new LogWriter(seq, fd);
  }

  async append(chunk: Buffer, records: number): Promise<void> {
    let off = 0;
    while (off < chunk.length) off += await writeP(this.fd, chunk, off, chunk.length - off);
    await fdatasyncP(this.fd);
    this.bytes += chunk.length;
    this.records += records;
  }

  async close(): Promise<void> {
    await closeP(this.fd);
  }
}
