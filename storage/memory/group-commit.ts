/**
 * Group commit: one write + one fdatasync for every record queued while the previous flush was in flight.
 *
 * Rules: at most one flush is in flight; entries become durable in submission order; `durable(entries)`
 * runs for each flushed group before the next flush starts, and `between()` runs after it (the place to
 * rotate the log for a snapshot, when no record is half written). After a failed write nothing is ever
 * written again: `failed` gets every entry not yet durable and later `submit`s throw.
 */
export interface GroupCommitHooks<T> {
  write(chunk: Buffer, records: number): Promise<void>;
  durable(entries: T[]): void;
  failed(err: unknown, entries: T[]): void;
  between(): Promise<void>;
}

export class GroupCommit<T extends { readonly frame: Buffer }> {
  private queue: T[] = [];
  private queueBytes = 0;
  private running = false;
  private failure: unknown;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly hooks: GroupCommitHooks<T>) {}

  /** Queues an entry; the first one after an idle period starts a flush on the next turn of the loop. */
  submit(entry: T): void {
    if (this.failure !== undefined) throw this.failure;
    this.queue.push(entry);
    this.queueBytes += entry.frame.length;
    if (!this.running) {
      this.running = true;
      // setImmediate, not a microtask: lets writes arriving with the same I/O callbacks join the group.
      setImmediate(() => void this.run());
    }
  }

  /** Resolves once nothing is queued or in flight (also after a failure). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const entries = this.queue;
        const bytes = this.queueBytes;
        this.queue = [];
        this.queueBytes = 0;
        let chunk: Buffer;
        if (entries.length === 1) {
          chunk = entries[0]!.frame;
        } else {
          chunk = Buffer.allocUnsafe(bytes);
          let off = 0;
          for (const e of entries) {
            e.frame.copy(chunk, off);
            off += e.frame.length;
          }
        }
        try {
          await this.hooks.write(chunk, entries.length);
        } catch (err) {
          this.fail(err, entries);
          return;
        }
        this.hooks.durable(entries);
        try {
          await this.hooks.between();
        } catch (err) {
          this.fail(err, []);
          return;
        }
      }
    } finally {
      this.running = false;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private fail(err: unknown, inFlight: T[]): void {
    this.failure = err;
    const lost = inFlight.concat(this.queue);
    this.queue = [];
    this.queueBytes = 0;
    this.hooks.failed(err, lost);
  }
}
