import type { Compare, KeyValue, TxnOp } from '../interface.js';
import { toKeyValue } from './key-value.js';
import type { RawCompare, RawRequestOp, RawResponseOp, RawTxnRequest } from './proto.js';

/**
 * Building etcd transactions. Every guarded write is one Txn: `If(mod_revision(key) == rev)` (0: the key
 * must not exist) `Then(ops)` `Else(Get(key) for every compared key)`, so a failed compare hands back the
 * fresh state with no second round trip.
 */

export function modEquals(key: Buffer, modRevision: number): RawCompare {
  return { key, target: 'Mod', result: 'Equal', mod_revision: modRevision };
}

export function getOp(key: Buffer): RawRequestOp {
  return { request_range: { key } };
}

/** A guarded single-key write: `op` if the key's modRevision is `expected`, else read the key. */
export function guarded(key: Buffer, expected: number, op: RawRequestOp): RawTxnRequest {
  return { compare: [modEquals(key, expected)], success: [op], failure: [getOp(key)] };
}

/** The key read by an Else branch's Get (undefined when it does not exist). */
export function readBack(response: RawResponseOp | undefined): KeyValue | undefined {
  const kv = response?.response_range?.kvs[0];
  return kv === undefined ? undefined : toKeyValue(kv);
}

/**
 * The contract's multi-key transaction as an etcd Txn. etcd rejects a Txn that writes one key twice, while
 * the contract applies ops on one key in order; within one revision only the last op on a key is visible,
 * so earlier ops on the same key are dropped.
 */
export function multiKeyTxn(compares: readonly Compare[], ops: readonly TxnOp[]): RawTxnRequest {
  const last = new Map<string, TxnOp>();
  for (const op of ops) {
    last.delete(op.key);
    last.set(op.key, op);
  }
  const success: RawRequestOp[] = [];
  for (const op of last.values()) {
    const key = Buffer.from(op.key);
    success.push(
      op.type === 'put'
        ? { request_put: { key, value: op.value } }
        : { request_delete_range: { key, prev_kv: false } },
    );
  }
  const compare: RawCompare[] = [];
  const failure: RawRequestOp[] = [];
  for (const c of compares) {
    const key = Buffer.from(c.key);
    compare.push(modEquals(key, c.modRevision));
    failure.push(getOp(key));
  }
  return { compare, success, failure };
}
