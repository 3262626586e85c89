/**
 * A list's encoded body (JSON or protobuf) made of segments whose lengths are all known before a byte is
 * written: the Content-Length is known up front, and the body can be handed out as one Buffer or in pieces
 * of about `LIST_CHUNK_BYTES` made as the response is sent. The segments are the encoder's: the text before
 * the items, each item (with what precedes it: a comma in JSON, a field tag and length in protobuf), what
 * follows the items.
 */

/** The size of the pieces `EncodedList.chunks` hands out (a segment longer than this is a piece of its own). */
export const LIST_CHUNK_BYTES = 64 * 1024;

export interface EncodedList {
  /** The whole body's length in bytes (the Content-Length). */
  readonly bytes: number;
  /** The whole body as one Buffer. */
  buffer(): Buffer;
  /**
   * The same bytes in pieces of about `LIST_CHUNK_BYTES`, each made when asked for. Sent a piece at a time, a
   * large list never exists as one buffer: each piece is copied into memory the CPU cache still holds and
   * encrypted from there, where one buffer of many MiB is written out to memory and read back for the TLS
   * records (and held until the last byte is sent).
   */
  chunks(): Iterable<Buffer>;
}

/** The segments of a body, in order. */
export interface Segments {
  readonly count: number;
  /** Their total length. */
  readonly bytes: number;
  /** The length of segment `i`. */
  size(i: number): number;
  /** Writes segment `i` into `out` at `offset` (room for `size(i)` bytes is there); returns the new offset. */
  write(out: Buffer, offset: number, i: number): number;
}

export function encodedList(s: Segments): EncodedList {
  return { bytes: s.bytes, buffer: () => whole(s), chunks: () => pieces(s) };
}

function whole(s: Segments): Buffer {
  const out = Buffer.allocUnsafe(s.bytes);
  let offset = 0;
  for (let i = 0; i < s.count; i++) offset = s.write(out, offset, i);
  if (offset !== s.bytes) throw new Error(`encoded list: wrote ${offset} of ${s.bytes} bytes`);
  return out;
}

function* pieces(s: Segments): Generator<Buffer> {
  let out = Buffer.allocUnsafe(LIST_CHUNK_BYTES);
  let offset = 0;
  for (let i = 0; i < s.count; i++) {
    const need = s.size(i);
    if (offset + need > out.length) {
      if (offset > 0) yield out.subarray(0, offset);
      out = Buffer.allocUnsafe(Math.max(LIST_CHUNK_BYTES, need));
      offset = 0;
    }
    offset = s.write(out, offset, i);
  }
  if (offset > 0) yield out.subarray(0, offset);
}
