/**
 * The raw etcd v3 gRPC message shapes, encoded by grpc/encode.ts and decoded by grpc/decode.ts. int64 fields
 * are numbers (revisions, counts and watch ids stay far below 2^53), except lease IDs, exact decimal strings;
 * bytes arrive as Buffers. Only the fields this backend uses are declared.
 */

export interface RawKeyValue {
  readonly key: Buffer;
  readonly value: Buffer;
  readonly create_revision: number;
  readonly mod_revision: number;
}

export interface RawHeader {
  readonly revision: number;
}

export interface RawRangeRequest {
  key: Buffer;
  range_end?: Buffer;
  limit?: number;
  revision?: number;
  count_only?: boolean;
  keys_only?: boolean;
  /** Keys last written before this revision are left out of `kvs` (not of `count`). */
  min_mod_revision?: number;
}

export interface RawRangeResponse {
  readonly header: RawHeader;
  readonly kvs: readonly RawKeyValue[];
  readonly more: boolean;
  readonly count: number;
}

export interface RawPutRequest {
  key: Buffer;
  value: Uint8Array;
  /** The lease to attach the key to (a decimal string as granted); unset or 0: none, which detaches it. */
  lease?: string;
}

export interface RawLeaseGrantRequest {
  TTL: number;
  ID: number;
}

export interface RawLeaseGrantResponse {
  readonly header: RawHeader;
  /** The granted lease's id, as a decimal string. */
  readonly ID: string;
  /** The ttl etcd chose: at least the one asked for (etcd raises ttls below its minimum, ~2 s). */
  readonly TTL: number;
  readonly error: string;
}

export interface RawDeleteRangeRequest {
  key: Buffer;
  prev_kv: boolean;
}

export interface RawDeleteRangeResponse {
  readonly header: RawHeader;
  readonly deleted: number;
  readonly prev_kvs: readonly RawKeyValue[];
}

export interface RawCompare {
  key: Buffer;
  target: 'Mod';
  result: 'Equal';
  mod_revision: number;
}

export type RawRequestOp =
  | { request_range: RawRangeRequest }
  | { request_put: RawPutRequest }
  | { request_delete_range: RawDeleteRangeRequest };

export interface RawTxnRequest {
  compare: RawCompare[];
  success: RawRequestOp[];
  failure: RawRequestOp[];
}

export interface RawResponseOp {
  readonly response?: 'response_range' | 'response_put' | 'response_delete_range' | 'response_txn';
  readonly response_range?: RawRangeResponse;
  readonly response_delete_range?: RawDeleteRangeResponse;
}

export interface RawTxnResponse {
  readonly header: RawHeader;
  readonly succeeded: boolean;
  readonly responses: readonly RawResponseOp[];
}

export interface RawStatusResponse {
  readonly header: RawHeader;
  /** The member's etcd version ("3.5.13"). */
  readonly version: string;
  /** Bytes the member's database file takes. */
  readonly dbSize: number;
}

export interface RawCompactionRequest {
  revision: number;
  physical: boolean;
}

export interface RawEvent {
  readonly type: 'Put' | 'Delete';
  readonly kv: RawKeyValue;
  readonly prev_kv: RawKeyValue | null;
}

export interface RawWatchResponse {
  readonly header: RawHeader | null;
  readonly watch_id: number;
  readonly created: boolean;
  readonly canceled: boolean;
  readonly compact_revision: number;
  readonly cancel_reason: string;
  readonly events: readonly RawEvent[];
}

export type RawWatchRequest =
  | {
      create_request: {
        key: Buffer;
        range_end: Buffer;
        start_revision: number;
        progress_notify: boolean;
        prev_kv: boolean;
        watch_id: number;
      };
    }
  | { cancel_request: { watch_id: number } }
  | { progress_request: Record<string, never> };
