import type { KeyValue, TxnOp } from '../interface.js';
import type { RecordOp } from './record-codec.js';

/**
 * The net effect of a transaction's ops, per key, in order of first appearance. Ops on one key apply in
 * order and the key ends in the state of its last op, so one transaction writes at most one version per
 * key (one revision cannot hold two). A key that did not exist before and does not exist after (a delete
 * of a missing key, or a put then delete) is not changed at all. A key deleted and put again in the same
 * transaction counts as re-created: its createRevision is the transaction's revision.
 */
export function planOps(latest: (key: string) => KeyValue | undefined, ops: readonly TxnOp[], rev: number): RecordOp[] {
  if (ops.length === 1) {
    const op = ops[0]!;
    const prev = latest(op.key);
    if (op.type === 'put') return [{ key: op.key, value: op.value, createRevision: prev?.createRevision ?? rev }];
    return prev === undefined ? [] : [{ key: op.key, value: undefined, createRevision: 0 }];
  }
  interface Slot {
    readonly prev: KeyValue | undefined;
    value: Uint8Array | undefined;
    exists: boolean;
    recreated: boolean;
  }
  const slots = new Map<string, Slot>();
  for (const op of ops) {
    let s = slots.get(op.key);
    if (s === undefined) {
      const prev = latest(op.key);
      s = { prev, value: prev?.value, exists: prev !== undefined, recreated: false };
      slots.set(op.key, s);
    }
    if (op.type === 'put') {
      if (!s.exists && s.prev !== undefined) s.recreated = true;
      s.value = op.value;
      s.exists = true;
    } else {
      s.value = undefined;
      s.exists = false;
    }
  }
  const out: RecordOp[] = [];
  for (const [key, s] of slots) {
    if (s.exists) {
      const createRevision = s.prev !== undefined && !s.recreated ? s.prev.createRevision : rev;
      out.push({ key, value: s.value, createRevision });
    } else if (s.prev !== undefined) {
      out.push({ key, value: undefined, createRevision: 0 });
    }
  }
  return out;
}
