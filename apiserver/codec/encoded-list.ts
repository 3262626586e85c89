/**
 * A list's encoded body (JSON: shared-json.ts `listJson`; protobuf: protobuf/protobuf-codec.ts
 * `listProtobuf`) whose every item is encoded, and its length known, before a byte is written: the
 * Content-Length is known up front, and the body can be handed out as one Buffer or in pieces of about
 * `LIST_CHUNK_BYTES` made as the response is sent.
 */

/** The size of the pieces `EncodedList.chunks` hands out (an item longer than this is a piece of its own). */
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
