/**
 * The codec table of bench part 5: encode and decode of one object per media type, in this process, each
 * next to `JSON.stringify` / `JSON.parse` of the same object measured in the same rounds.
 *
 *   encode  `JSON.stringify(obj)`; the server's JSON body (`objectJson`, an unshared object: the text, then
 *           its UTF-8 bytes); protobuf `objectProtobuf(schema, obj, undefined)` (enveloped, no memo);
 *           CBOR `encodeCbor(obj, schema)` (self-described)
 *   decode  `JSON.parse(text)`; the server's JSON request body (UTF-8 bytes to text, `parseJsonStrict` with
 *           the duplicate-key scan that Strict and Warn field validation run); protobuf
 *           `decodeProtobuf(bytes, schema)`; CBOR `decodeCborObject(bytes, schema)` (the server's strict decoder)
 *
 * Before timing, each codec's output is decoded and compared with the object, so a codec that dropped
 * fields would fail the bench rather than look fast. Decoding against the schema afterwards (pruning,
 * nulls, defaults) is the same for every media type and not measured.
 */
import { deepStrictEqual } from 'node:assert';
import type { KubeObject } from '../../apiserver/api/object.js';
import { decodeCborObject } from '../../apiserver/codec/cbor/decode.js';
import { encodeCbor } from '../../apiserver/codec/cbor/encode.js';
import { decodeProtobuf, objectProtobuf } from '../../apiserver/codec/protobuf/protobuf-codec.js';
import { objectJson } from '../../apiserver/codec/shared-json.js';
import type { Schema } from '../../apiserver/schema/schema.js';
import { parseJsonStrict } from '../../apiserver/schema/json-strict.js';
import { medianRatio, timeFunctions, type Timing, type TimingOptions } from './timing.js';

export interface CodecRow {
  readonly op: 'encode' | 'decode';
  readonly codec: string;
  readonly timing: Timing;
  /** Median of the per-round ratios to `JSON.stringify` (encode) or `JSON.parse` (decode). */
  readonly ratio: number;
  /** Size of the encoded form. */
  readonly bytes: number;
}

export interface CodecResult {
  readonly rows: CodecRow[];
}

/** Encode and decode rows for one object (`obj` as the server serves it, `schema` its kind's). */
export function codecBench(obj: KubeObject, schema: Schema, timing: TimingOptions): CodecResult {
  const text = JSON.stringify(obj);
  const jsonBytes = Buffer.from(text);
  const pb = objectProtobuf(schema, obj, undefined).bytes;
  const cbor = encodeCbor(obj, schema);

  // What each decoder gives back must be the object (protobuf carries apiVersion and kind in its envelope).
  const fromPb = decodeProtobuf(pb, schema);
  deepStrictEqual({ apiVersion: fromPb.apiVersion, kind: fromPb.kind, ...fromPb.value }, obj, 'protobuf round trip');
  deepStrictEqual(decodeCborObject(cbor, schema).value, obj, 'CBOR round trip');
  deepStrictEqual(parseJsonStrict(jsonBytes.toString('utf8')).value, obj, 'JSON round trip');

  // Encoders cycle through copies whose timestamps differ, so no codec profits from having just seen the
  // same text (the protobuf encoder keeps the last timestamp it parsed, which pays off within one object).
  const copies = timestampVariants(obj, 64);
  let n = 0;
  const next = (): KubeObject => copies[n++ & 63]!;
  const encode = timeFunctions([
    { name: '`JSON.stringify`', run: () => JSON.stringify(next()) },
    { name: 'JSON, the server\'s body (`objectJson` + UTF-8 bytes)', run: () => Buffer.from(objectJson(next())) },
    { name: 'protobuf (`objectProtobuf`, enveloped, no memo)', run: () => objectProtobuf(schema, next(), undefined).bytes },
    { name: 'CBOR (`encodeCbor`)', run: () => encodeCbor(next(), schema) },
  ], timing);
  const decode = timeFunctions([
    { name: '`JSON.parse`', run: () => JSON.parse(text) as unknown },
    { name: 'JSON, the server\'s request body (bytes → text, `parseJsonStrict`)', run: () => parseJsonStrict(jsonBytes.toString('utf8')) },
    { name: 'protobuf (`decodeProtobuf`)', run: () => decodeProtobuf(pb, schema) },
    { name: 'CBOR (`decodeCborObject`, strict, schema-aware)', run: () => decodeCborObject(cbor, schema) },
  ], timing);
  const sizes = [jsonBytes.length, jsonBytes.length, pb.length, cbor.length];
  const codecs = ['JSON.stringify', 'JSON', 'protobuf', 'CBOR'];
  return {
    rows: [
      ...encode.map((t, i) => ({ op: 'encode' as const, codec: codecs[i]!, timing: t, ratio: medianRatio(t, encode[0]!), bytes: sizes[i]! })),
      ...decode.map((t, i) => ({ op: 'decode' as const, codec: codecs[i]!, timing: t, ratio: medianRatio(t, decode[0]!), bytes: sizes[i]! })),
    ],
  };
}

/** `count` copies of `obj`, copy i with every RFC 3339 timestamp moved i seconds later. */
function timestampVariants(obj: KubeObject, count: number): KubeObject[] {
  const text = JSON.stringify(obj);
  return Array.from({ length: count }, (_, i) =>
    JSON.parse(text.replace(/"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"/g, (_m, t: string) => JSON.stringify(new Date(Date.parse(t) + i * 1000).toISOString().replace('.000Z', 'Z')))) as KubeObject,
  );
}
