/**
 * The body of `application/vnd.kubernetes.protobuf`: the magic `k8s\0` followed by a `runtime.Unknown`
 * {typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2 (the object's own message), contentEncoding = 3,
 * contentType = 4}. Top-level messages carry no TypeMeta of their own; it travels only here. Like Go's
 * encoder, ours writes contentEncoding and contentType as empty strings.
 *
 * Watch streams frame bare `WatchEvent` messages {type = 1, object = 2 RawExtension {raw = 1}} behind a
 * 4-byte big-endian length, the event's object being an enveloped object (see `watchFrame`).
 */
import { ProtobufError, WireReader } from './wire-reader.js';
import { WIRE_LEN, WireWriter } from './wire-writer.js';

export const PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);
/** What follows the message: contentEncoding and contentType, both empty. */
export const ENVELOPE_TRAILER: Readonly<Uint8Array> = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

/** An enveloped object, and where its bare message lies inside it (what a list's items hold). */
export interface Enveloped {
  readonly bytes: Buffer;
  readonly raw: Buffer;
}

function writeHeader(w: WireWriter, apiVersion: string, kind: string): void {
  w.raw(PROTOBUF_MAGIC);
  w.tag(1, WIRE_LEN);
  const m = w.begin();
  w.string(1, apiVersion);
  w.string(2, kind);
  w.end(m);
}

/**
 * The envelope's bytes before a message of `length` bytes written apart (the magic, TypeMeta, the raw
 * field's tag and length); `ENVELOPE_TRAILER` follows the message.
 */
export function envelopeHead(apiVersion: string, kind: string, length: number): Buffer {
  const w = new WireWriter();
  writeHeader(w, apiVersion, kind);
  w.tag(2, WIRE_LEN);
  w.varint(length);
  return w.finish();
}

/** Encodes a message straight into its envelope: one pass, one copy out. */
export function encodeEnveloped(apiVersion: string, kind: string, body: (w: WireWriter) => void): Buffer {
  return encodeEnvelopedRaw(apiVersion, kind, body).bytes;
}

/** `encodeEnveloped`, also telling where the message lies in the result. */
export function encodeEnvelopedRaw(apiVersion: string, kind: string, body: (w: WireWriter) => void): Enveloped {
  const w = new WireWriter();
  writeHeader(w, apiVersion, kind);
  w.tag(2, WIRE_LEN);
  const m = w.begin();
  body(w);
  const length = w.pos - m - 1;
  w.end(m);
  const rawEnd = w.pos;
  w.raw(ENVELOPE_TRAILER);
  const bytes = w.finish();
  return { bytes, raw: bytes.subarray(rawEnd - length, rawEnd) };
}

export interface DecodedEnvelope {
  /** '' when the sender left it empty (the server defaults it from the URL). */
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
}

/**
 * Reads an envelope. Refused: a body without the magic (kube's wording), a truncated or malformed
 * Unknown, a content encoding (none is defined), a content type other than protobuf.
 */
export function decodeEnvelope(body: Uint8Array): DecodedEnvelope {
  if (body.length < 4 || body[0] !== 0x6b || body[1] !== 0x38 || body[2] !== 0x73 || body[3] !== 0x00) {
    throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const r = new WireReader(body, 4);
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array(0);
  let contentEncoding = '';
  let contentType = '';
  while (!r.done) {
    const t = r.uint32();
    const n = t >>> 3;
    const wire = t & 7;
    if (n >= 1 && n <= 4 && wire !== WIRE_LEN) throw new ProtobufError(`wrong wire type ${wire} for field ${n} of the runtime.Unknown envelope`);
    if (n === 1) {
      const { start, end } = r.delimited();
      const tm = new WireReader(body, start, end);
      while (!tm.done) {
        const tt = tm.uint32();
        if ((tt >>> 3 === 1 || tt >>> 3 === 2) && (tt & 7) !== WIRE_LEN) throw new ProtobufError('wrong wire type in the envelope\'s typeMeta');
        if (tt >>> 3 === 1) apiVersion = tm.string();
        else if (tt >>> 3 === 2) kind = tm.string();
        else tm.skip(tt & 7);
      }
    } else if (n === 2) raw = r.bytes();
    else if (n === 3) contentEncoding = r.string();
    else if (n === 4) contentType = r.string();
    else r.skip(wire);
  }
  if (contentEncoding !== '') throw new ProtobufError(`unsupported content encoding "${contentEncoding}" in the protobuf envelope`);
  if (contentType !== '' && !/^application\/vnd\.[a-z0-9.-]+\.protobuf$/.test(contentType)) {
    throw new ProtobufError(`unsupported content type "${contentType}" in the protobuf envelope`);
  }
  return { apiVersion, kind, raw };
}

/**
 * One frame of a protobuf watch: length (4 bytes, big-endian) + WatchEvent {type, object {raw: the
 * enveloped object}}. The object's bytes are copied once; nothing is re-encoded.
 */
export function watchFrame(type: string, object: Uint8Array): Buffer {
  const w = new WireWriter();
  w.raw(Uint8Array.of(0, 0, 0, 0));
  w.string(1, type);
  w.tag(2, WIRE_LEN);
  const rawExtension = object.length + 1 + varintSize(object.length);
  w.varint(rawExtension);
  w.tag(1, WIRE_LEN);
  w.varint(object.length);
  const header = w.finish();
  const frame = Buffer.allocUnsafe(header.length + object.length);
  header.copy(frame, 0);
  frame.set(object, header.length);
  frame.writeUInt32BE(frame.length - 4, 0);
  return frame;
}

function varintSize(n: number): number {
  return n < 1 << 7 ? 1 : n < 1 << 14 ? 2 : n < 1 << 21 ? 3 : n < 1 << 28 ? 4 : 5;
}
