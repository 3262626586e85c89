/**
 * The etcd v3 response messages this backend reads, decoded from protobuf into the shapes of proto.ts with
 * proto3 defaults filled in (an absent field reads as 0, false, empty or []). Field numbers are etcd's
 * `rpc.proto` and `kv.proto`; fields not listed are skipped by their wire type, so newer members that add
 * fields decode the same.
 *
 * int64 revisions and counts become numbers (etcd's revisions stay far below 2^53); a lease ID stays a
 * decimal string, exactly, as it is sent back in puts. Keys and values are views into the response buffer,
 * which nothing writes to afterwards.
 */
import type {
  RawDeleteRangeResponse,
  RawEvent,
  RawHeader,
  RawKeyValue,
  RawLeaseGrantResponse,
  RawRangeResponse,
  RawResponseOp,
  RawStatusResponse,
  RawTxnResponse,
  RawWatchResponse,
} from '../proto.js';

/** A malformed response: the member or the connection broke the protocol. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

const EMPTY: Buffer = Buffer.alloc(0);

class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /** A varint as a number: exact up to 2^53, which every field read as a number stays below. */
  varint(): number {
    const buf = this.buf;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
      const b = buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 0x80;
    }
    throw new ProtobufDecodeError('varint longer than 10 bytes');
  }

  /** A signed int64 as a number: exact within ±2^53 (watch id -1, etcd's progress broadcast, is 10 bytes). */
  int64(): number {
    const start = this.pos;
    const n = this.varint();
    if (n < 2 ** 53) return n;
    this.pos = start;
    return Number(this.int64String());
  }

  /** A varint as a signed 64-bit decimal string (lease IDs). */
  int64String(): string {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asIntN(64, result).toString();
      shift += 7n;
    }
    throw new ProtobufDecodeError('varint longer than 10 bytes');
  }

  /** The end offset of a length-delimited field whose length is next. */
  lengthEnd(): number {
    const length = this.varint();
    const end = this.pos + length;
    if (end > this.end) throw new ProtobufDecodeError('length-delimited field past the end of its message');
    return end;
  }

  bytes(): Buffer {
    const end = this.lengthEnd();
    const b = this.buf.subarray(this.pos, end);
    this.pos = end;
    return b;
  }

  string(): string {
    const end = this.lengthEnd();
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return s;
  }

  skip(wire: number): void {
    switch (wire) {
      case 0:
        this.varint();
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.lengthEnd();
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    }
    if (this.pos > this.end) throw new ProtobufDecodeError('fixed-size field past the end of its message');
  }

  /** Calls `field(number, wire)` for each field up to `end`; it reads the field or returns false to skip it. */
  fields(end: number, field: (n: number, wire: number) => boolean): void {
    while (this.pos < end) {
      const tag = this.varint();
      if (!field(tag >>> 3, tag & 7)) this.skip(tag & 7);
    }
    if (this.pos !== end) throw new ProtobufDecodeError('field past the end of its message');
  }
}

function header(r: Reader): RawHeader {
  const end = r.lengthEnd();
  let revision = 0;
  r.fields(end, (n, wire) => {
    if (n !== 3 || wire !== 0) return false;
    revision = r.varint();
    return true;
  });
  return { revision };
}

function keyValue(r: Reader): RawKeyValue {
  const end = r.lengthEnd();
  let key = EMPTY;
  let value = EMPTY;
  let create = 0;
  let mod = 0;
  r.fields(end, (n, wire) => {
    if (wire === 2 && n === 1) key = r.bytes();
    else if (wire === 2 && n === 5) value = r.bytes();
    else if (wire === 0 && n === 2) create = r.varint();
    else if (wire === 0 && n === 3) mod = r.varint();
    else return false;
    return true;
  });
  return { key, value, create_revision: create, mod_revision: mod };
}

const NO_HEADER: RawHeader = { revision: 0 };

function range(r: Reader, end: number): RawRangeResponse {
  let h = NO_HEADER;
  const kvs: RawKeyValue[] = [];
  let more = false;
  let count = 0;
  r.fields(end, (n, wire) => {
    if (wire === 2 && n === 1) h = header(r);
    else if (wire === 2 && n === 2) kvs.push(keyValue(r));
    else if (wire === 0 && n === 3) more = r.varint() !== 0;
    else if (wire === 0 && n === 4) count = r.varint();
    else return false;
    return true;
  });
  return { header: h, kvs, more, count };
}

function deleteRange(r: Reader, end: number): RawDeleteRangeResponse {
  let h = NO_HEADER;
  let deleted = 0;
  const prev: RawKeyValue[] = [];
  r.fields(end, (n, wire) => {
    if (wire === 2 && n === 1) h = header(r);
    else if (wire === 0 && n === 2) deleted = r.varint();
    else if (wire === 2 && n === 3) prev.push(keyValue(r));
    else return false;
    return true;
  });
  return { header: h, deleted, prev_kvs: prev };
}

/** A message with only a header worth reading (Put, Compaction). */
function headerOnly(r: Reader, end: number): { header: RawHeader } {
  let h = NO_HEADER;
  r.fields(end, (n, wire) => {
    if (n !== 1 || wire !== 2) return false;
    h = header(r);
    return true;
  });
  return { header: h };
}

function responseOp(r: Reader): RawResponseOp {
  const end = r.lengthEnd();
  let op: RawResponseOp = {};
  r.fields(end, (n, wire) => {
    if (wire !== 2) return false;
    if (n === 1) op = { response: 'response_range', response_range: range(r, r.lengthEnd()) };
    else if (n === 3) op = { response: 'response_delete_range', response_delete_range: deleteRange(r, r.lengthEnd()) };
    else if (n === 2 || n === 4) {
      // A put's or nested txn's answer: only which arm it was matters here.
      r.pos = r.lengthEnd();
      op = { response: n === 2 ? 'response_put' : 'response_txn' };
    } else return false;
    return true;
  });
  return op;
}

function txn(r: Reader, end: number): RawTxnResponse {
  let h = NO_HEADER;
  let succeeded = false;
  const responses: RawResponseOp[] = [];
  r.fields(end, (n, wire) => {
    if (wire === 2 && n === 1) h = header(r);
    else if (wire === 0 && n === 2) succeeded = r.varint() !== 0;
    else if (wire === 2 && n === 3) responses.push(responseOp(r));
    else return false;
    return true;
  });
  return { header: h, succeeded, responses };
}

function leaseGrant(r: Reader, end: number): RawLeaseGrantResponse {
  let h = NO_HEADER;
  let id = '0';
  let ttl = 0;
  let error = '';
  r.fields(end, (n, wire) => {
    if (wire === 2 && n === 1) h = header(r);
    else if (wire === 0 && n === 2) id = r.int64String();
    else if (wire === 0 && n === 3) ttl = r.varint();
    else if (wire === 2 && n === 4) error = r.string();
    else return false;
    return true;
  });
  return { header: h, ID: id, TTL: ttl, error };
}

function event(r: Reader): RawEvent {
  const end = r.lengthEnd();
  let type: RawEvent['type'] = 'Put';
  let kv: RawKeyValue | undefined;
  let prev: RawKeyValue | null = null;
  r.fields(end, (n, wire) => {
    if (wire === 0 && n === 1) type = r.varint() === 1 ? 'Delete' : 'Put';
    else if (wire === 2 && n === 2) kv = keyValue(r);
    else if (wire === 2 && n === 3) prev = keyValue(r);
    else return false;
    return true;
  });
  return { type, kv: kv ?? { key: EMPTY, value: EMPTY, create_revision: 0, mod_revision: 0 }, prev_kv: prev };
}

/** A WatchResponse. `header` is null when absent (etcd always sends one). */
export function watchResponse(r: Reader, end: number): RawWatchResponse {
  let h: RawHeader | null = null;
  let watchId = 0;
  let created = false;
  let canceled = false;
  let compactRevision = 0;
  let cancelReason = '';
  const events: RawEvent[] = [];
  r.fields(end, (n, wire) => {
    if (wire === 2 && n === 1) h = header(r);
    else if (wire === 0 && n === 2) watchId = r.int64();
    else if (wire === 0 && n === 3) created = r.varint() !== 0;
    else if (wire === 0 && n === 4) canceled = r.varint() !== 0;
    else if (wire === 0 && n === 5) compactRevision = r.int64();
    else if (wire === 2 && n === 6) cancelReason = r.string();
    else if (wire === 2 && n === 11) events.push(event(r));
    else return false;
    return true;
  });
  return { header: h, watch_id: watchId, created, canceled, compact_revision: compactRevision, cancel_reason: cancelReason, events };
}

function status(r: Reader, end: number): RawStatusResponse {
  let h = NO_HEADER;
  let version = '';
  let dbSize = 0;
  r.fields(end, (n, wire) => {
    if (wire === 2 && n === 1) h = header(r);
    else if (wire === 2 && n === 2) version = r.string();
    else if (wire === 0 && n === 3) dbSize = r.varint();
    else return false;
    return true;
  });
  return { header: h, version, dbSize };
}

type Decoder<Res> = (r: Reader, end: number) => Res;

/** The response decoders by method (the same names as `requestSpecs`). */
export const responseDecoders = {
  range: range as Decoder<RawRangeResponse>,
  put: headerOnly as Decoder<{ header: RawHeader }>,
  deleteRange: deleteRange as Decoder<RawDeleteRangeResponse>,
  txn: txn as Decoder<RawTxnResponse>,
  compact: headerOnly as Decoder<{ header: RawHeader }>,
  leaseGrant: leaseGrant as Decoder<RawLeaseGrantResponse>,
  status: status as Decoder<RawStatusResponse>,
};

/** Decodes the message `buf[start, end)` with `decode`. Throws `ProtobufDecodeError` on malformed input. */
export function decodeMessage<Res>(decode: Decoder<Res>, buf: Buffer, start: number, end: number): Res {
  const r = new Reader(buf, start, end);
  return decode(r, end);
}
