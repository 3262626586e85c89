import type { KeyValue, WatchBatch, WatchEvent } from '../interface.js';
import { EventLog } from './event-log.js';
import { KeyIndex } from './key-index.js';
import type { RecordOp } from './record-codec.js';

const EMPTY = new Uint8Array(0);

/**
 * The in-memory MVCC state: key histories, the committed event history and the revision counters. Used
 * the same way by recovery (replaying the log) and by the live store, so a restart rebuilds exactly what
 * the running process had.
 *
 * `revision` is the newest revision in the index, which in the live store may be ahead of what is durable;
 * the store keeps its own committed read point and appends to `events` only what is durable.
 */
export class MvccState {
  readonly index = new KeyIndex();
  readonly events = new EventLog();
  revision = 0;
  compactedRevision = 0;

  /**
   * Installs one transaction's net changes at `rev` (> `revision`) and returns its watch batch (not yet
   * appended to `events`). Put values must already be private, immutable copies.
   */
  install(rev: number, ops: readonly RecordOp[], values: readonly (Uint8Array | undefined)[]): WatchBatch {
    const index = this.index;
    const events = new Array<WatchEvent>(ops.length);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const prev = index.latest(op.key);
      const value = values[i];
      if (value !== undefined) {
        const kv: KeyValue = { key: op.key, value, createRevision: op.createRevision, modRevision: rev };
        index.append(op.key, rev, kv, op.expiresAt ?? 0);
        events[i] = { type: 'put', kv, prev };
      } else {
        if (prev === undefined) throw new Error(`delete of missing key ${op.key} at revision ${rev}`);
        index.append(op.key, rev, undefined);
        events[i] = { type: 'delete', kv: { key: op.key, value: EMPTY, createRevision: 0, modRevision: rev }, prev };
      }
    }
    this.revision = rev;
    return { events, revision: rev };
  }

  /** Discards history before `rev` (callers check rev > compactedRevision and rev <= durable revision). */
  compact(rev: number): void {
    this.index.compact(rev);
    this.events.trim(rev);
    this.compactedRevision = rev;
  }
}
