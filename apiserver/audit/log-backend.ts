/**
 * The audit log backend: event lines go into a bounded in-memory buffer and one writer loop appends them
 * to the output (rotating-file.ts), many lines per write. Nothing on the request path waits for the disk:
 * `write` only pushes a string (or drops it when the buffer is full) and returns.
 *
 * Modes (`--audit-log-mode`, kube's names):
 * - `blocking` (kube's default for the log): lines are written within a few milliseconds: they collect for
 *   5 ms (or until 512 wait) and go in one write, so a busy server makes few large writes. Unlike kube, the
 *   request does not wait for its line (a Node server cannot block its event loop on a file write);
 * - `batch`: the writer waits until `batchMaxSize` lines are buffered or `batchMaxWaitMs` passed since the
 *   first of them;
 * - `blocking-strict`: as blocking, and `healthy` is false while writes fail or the buffer is full: the
 *   audit filter then refuses requests at RequestReceived (kube fails the request when its
 *   RequestReceived event cannot be written).
 *
 * Failures: a line that does not fit in the buffer counts in `apiserver_audit_error_total{plugin="buffered"}`;
 * lines of a failed write (ENOSPC, EFBIG: a full disk or a file-size limit) count in
 * `{plugin="log"}` and are not retried; after a failure the writer waits (1 s, doubling to 30 s) before it
 * tries again with the lines buffered meanwhile, so a full disk costs no CPU and requests never stall. A
 * line cut short by a failure is terminated by a newline before the next write, so readers can skip it.
 */
import type { Logger } from '../log/logger.js';
import type { AuditMetrics } from '../metrics/audit-metrics.js';
import type { AuditSink } from './request-audit.js';
import type { AuditOutput, WriteError } from './rotating-file.js';

export type AuditLogMode = 'batch' | 'blocking' | 'blocking-strict';

export interface LogBackendOptions {
  readonly output: AuditOutput;
  readonly mode: AuditLogMode;
  /** Lines buffered at most (`--audit-log-batch-buffer-size`). */
  readonly bufferSize: number;
  /** batch mode: lines per write (`--audit-log-batch-max-size`). */
  readonly batchMaxSize: number;
  /** batch mode: longest wait for a batch to fill (`--audit-log-batch-max-wait`); 0 writes at once. */
  readonly batchMaxWaitMs: number;
  readonly metrics: AuditMetrics;
  readonly logger: Logger;
}

/** Bytes per write at most, so one write does not hold a huge string. */
const maxWriteBytes = 1 << 20;
/**
 * Lines collect this long before a write (unless a full write's worth is waiting), so a busy server makes
 * a few large writes rather than one per request; a request never waits for it.
 */
const lingerMs = 5;
/** The largest write buffer kept between writes (maxWriteBytes of lines at up to 3 bytes per character). */
const maxKeptBuffer = 3 * maxWriteBytes + 2;
/** Lines that make a write without lingering. */
const fullWrite = 512;
const firstRetryMs = 1000;
const maxRetryMs = 30_000;

export class LogBackend implements AuditSink {
  readonly #o: LogBackendOptions;
  #queue: string[] = [];
  #writing = false;
  #timer: NodeJS.Timeout | undefined;
  #retryMs = 0;
  #failing = false;
  #droppedWhileFailing = 0;
  #needNewline = false;
  #closed = false;
  #idle: (() => void)[] = [];
  #buf = Buffer.allocUnsafe(64 * 1024);

  constructor(o: LogBackendOptions) {
    this.#o = o;
  }

  /** Buffers one line; false when it was dropped (buffer full or backend closed). */
  write(line: string): boolean {
    if (this.#closed || this.#queue.length >= this.#o.bufferSize) {
      this.#o.metrics.eventsDropped('buffered', 1);
      if (this.#failing) this.#droppedWhileFailing++;
      return false;
    }
    this.#queue.push(line);
    this.#schedule();
    return true;
  }

  /** For blocking-strict: the last write succeeded and the buffer has room. */
  get healthy(): boolean {
    return !this.#failing && this.#queue.length < this.#o.bufferSize;
  }

  /** Resolves once the buffer is empty and no write is in flight (tests, shutdown). */
  flushed(): Promise<void> {
    if (this.#queue.length === 0 && !this.#writing) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.#idle.push(resolve));
    if (this.#timer !== undefined && !this.#writing) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      void this.#pump();
    }
    return done;
  }

  /** Writes what is buffered (unless writes keep failing), then closes the output. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#failing) await this.flushed();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#o.metrics.eventsDropped('log', this.#queue.length);
    this.#queue = [];
    await this.#o.output.close();
  }

  #schedule(): void {
    // While writing (or backing off after a failure), the loop takes the new lines itself.
    if (this.#writing) return;
    const { mode, batchMaxSize, batchMaxWaitMs } = this.#o;
    const batching = mode === 'batch' && batchMaxWaitMs > 0;
    const enough = batching ? batchMaxSize : fullWrite;
    if (this.#timer !== undefined) {
      // Lines are collecting: written at once when there are enough of them.
      if (this.#queue.length < enough) return;
      clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (this.#queue.length < enough) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#pump();
      }, batching ? batchMaxWaitMs : lingerMs);
      this.#timer.unref();
      return;
    }
    void this.#pump();
  }

  async #pump(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        const { lines, bytes } = this.#take();
        try {
          await this.#o.output.write(bytes);
          this.#needNewline = false;
          this.#recovered();
        } catch (err) {
          this.#failed(err as WriteError, lines, bytes);
          await this.#backoff();
        }
        // Fewer lines than a full write wait for the next round (unless someone waits for the flush).
        if (this.#queue.length < fullWrite && this.#idle.length === 0) break;
      }
    } finally {
      this.#writing = false;
      if (this.#queue.length === 0) for (const resolve of this.#idle.splice(0)) resolve();
      else this.#schedule();
    }
  }

  /**
   * The next write: as many buffered lines as fit in maxWriteBytes (at least one), each newline-terminated,
   * encoded one by one into the reused write buffer (only one write is in flight, and its bytes are read
   * back only by #failed before the next #take). Encoding each line where it lies costs a third of joining
   * the lines into one string first (which copies every line and allocates the whole batch again), and a
   * reused buffer saves a malloc and its page faults per write.
   */
  #take(): { lines: string[]; bytes: Buffer } {
    const q = this.#queue;
    let n = 0;
    let size = 0;
    while (n < q.length && (n === 0 || size + q[n]!.length < maxWriteBytes)) size += q[n++]!.length + 1;
    const lines = n === q.length ? q : q.slice(0, n);
    const buf = this.#room(lines, size);
    let off = 0;
    if (this.#needNewline) buf[off++] = 0x0a;
    for (let i = 0; i < lines.length; i++) {
      off += buf.write(lines[i]!, off);
      buf[off++] = 0x0a;
    }
    if (n === q.length) this.#queue = [];
    else q.splice(0, n);
    return { lines, bytes: buf.subarray(0, off) };
  }

  /** The write buffer, large enough for `lines` (`size` UTF-16 units with their newlines) in UTF-8 and a newline before. */
  #room(lines: readonly string[], size: number): Buffer {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit: the exact length is counted only past that bound.
    if (this.#buf.length >= size * 3 + 1) return this.#buf;
    let need = 1;
    for (const line of lines) need += Buffer.byteLength(line) + 1;
    if (this.#buf.length >= need) return this.#buf;
    const buf = Buffer.allocUnsafe(Math.max(need, this.#buf.length * 2));
    // Kept for the next writes unless one huge line asked for it.
    if (buf.length <= maxKeptBuffer) this.#buf = buf;
    return buf;
  }

  #failed(err: WriteError, lines: readonly string[], bytes: Buffer): void {
    const written = err.written ?? 0;
    // Lines wholly written before the failure are in the file; the others are lost.
    let complete = 0;
    let end = this.#needNewline ? 1 : 0;
    for (const line of lines) {
      end += Buffer.byteLength(line) + 1;
      if (end <= written) complete++;
      else break;
    }
    const lost = lines.length - complete;
    // A cut line is ended before the next write; with nothing written, an earlier cut line still is open.
    if (written > 0) this.#needNewline = bytes[written - 1] !== 0x0a;
    this.#o.metrics.eventsDropped('log', lost);
    if (!this.#failing) {
      this.#o.logger.error({ err: err.message, code: err.code, lost }, 'audit log write failed; dropping audit events until writes succeed again');
      this.#failing = true;
      this.#droppedWhileFailing = 0;
    }
    this.#droppedWhileFailing += lost;
    this.#retryMs = this.#retryMs === 0 ? firstRetryMs : Math.min(this.#retryMs * 2, maxRetryMs);
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#o.logger.warn({ dropped: this.#droppedWhileFailing }, 'audit log writes resumed');
    this.#failing = false;
    this.#retryMs = 0;
  }

  #backoff(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        resolve();
      }, this.#retryMs);
      this.#timer.unref();
    });
  }
}
