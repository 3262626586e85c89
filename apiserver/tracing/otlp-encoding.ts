/**
 * OTLP's protobuf encoding of finished spans: one `ExportTraceServiceRequest` (opentelemetry-proto,
 * collector/trace/v1) with one ResourceSpans and one ScopeSpans per call, the layout every OTLP receiver
 * reads. Written by hand because encoding is the largest part of a span's cost: OpenTelemetry's serializer
 * sizes every message in a first pass and spends about 4.4 µs on a span of 12 attributes; this one writes
 * once through the protobuf codec's WireWriter (codec/protobuf/wire-writer.ts: nested lengths fixed up in
 * place, no sizing pass) and encodes attribute keys once per process.
 *
 * Field numbers (trace/v1, common/v1, resource/v1): ResourceSpans 1 resource, 2 scope_spans; ScopeSpans 1
 * scope, 2 spans; Span 1 trace_id, 2 span_id, 3 trace_state, 4 parent_span_id, 5 name, 6 kind, 7/8
 * start/end time (fixed64 ns), 9 attributes, 10 dropped_attributes_count, 11 events, 12
 * dropped_events_count, 13 links, 14 dropped_links_count, 15 status (2 message, 3 code), 16 flags
 * (fixed32); KeyValue 1 key, 2 value; AnyValue 1 string, 2 bool, 3 int, 4 double, 5 array (1 values);
 * Event 1 time, 2 name, 3 attributes. Kinds are OpenTelemetry's API kinds plus one; span flags carry the
 * trace flags and whether the parent is remote (bits 8 and 9).
 */
import type { Attributes, AttributeValue, HrTime } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, WireWriter } from '../codec/protobuf/wire-writer.js';

const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;

/** Opens the length-delimited field `field`; `w.end` with the returned mark closes it. */
function open(w: WireWriter, field: number): number {
  w.tag(field, WIRE_LEN);
  return w.begin();
}

/** A trace or span id given in hex, as bytes. */
function hexBytes(w: WireWriter, field: number, hex: string): void {
  w.tag(field, WIRE_LEN);
  w.varint(hex.length / 2);
  w.ensure(hex.length / 2);
  w.pos += w.buf.write(hex, w.pos, 'hex');
}

/** A time as fixed64 nanoseconds since the epoch. */
function time(w: WireWriter, field: number, t: HrTime): void {
  w.tag(field, WIRE_FIXED64);
  w.ensure(8);
  w.buf.writeBigUInt64LE(BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]), w.pos);
  w.pos += 8;
}

function fixed32(w: WireWriter, field: number, v: number): void {
  w.tag(field, WIRE_FIXED32);
  w.ensure(4);
  w.buf.writeUInt32LE(v >>> 0, w.pos);
  w.pos += 4;
}

/** `KeyValue.key` fields, encoded once per key (span attributes repeat a small set of keys). */
const keyFields = new Map<string, Buffer>();

function keyField(key: string): Buffer {
  let b = keyFields.get(key);
  if (b === undefined) {
    const w = new WireWriter();
    w.string(1, key);
    b = w.finish();
    if (keyFields.size < 10_000) keyFields.set(key, b);
  }
  return b;
}

function anyValue(w: WireWriter, field: number, v: AttributeValue): void {
  const mark = open(w, field);
  if (typeof v === 'string') w.string(1, v);
  else if (typeof v === 'boolean') {
    w.tag(2, WIRE_VARINT);
    w.varint(v ? 1 : 0);
  } else if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) {
      w.tag(3, WIRE_VARINT);
      w.varint(v);
    } else w.double(4, v);
  } else if (Array.isArray(v)) {
    const array = open(w, 5);
    for (const item of v) if (item !== null && item !== undefined) anyValue(w, 1, item);
    w.end(array);
  }
  w.end(mark);
}

function attributes(w: WireWriter, field: number, attrs: Attributes): void {
  for (const key in attrs) {
    const v = attrs[key];
    if (v === undefined) continue;
    const mark = open(w, field);
    w.raw(keyField(key));
    anyValue(w, 2, v);
    w.end(mark);
  }
}

function span(w: WireWriter, s: ReadableSpan): void {
  const mark = open(w, 2);
  const ctx = s.spanContext();
  hexBytes(w, 1, ctx.traceId);
  hexBytes(w, 2, ctx.spanId);
  const state = ctx.traceState?.serialize();
  if (state !== undefined && state !== '') w.string(3, state);
  const parent = s.parentSpanContext;
  if (parent !== undefined) hexBytes(w, 4, parent.spanId);
  w.string(5, s.name);
  w.tag(6, WIRE_VARINT);
  w.varint(s.kind + 1);
  time(w, 7, s.startTime);
  time(w, 8, s.endTime);
  attributes(w, 9, s.attributes);
  if (s.droppedAttributesCount > 0) {
    w.tag(10, WIRE_VARINT);
    w.varint(s.droppedAttributesCount);
  }
  for (const e of s.events) {
    const event = open(w, 11);
    time(w, 1, e.time);
    w.string(2, e.name);
    if (e.attributes !== undefined) attributes(w, 3, e.attributes);
    w.end(event);
  }
  if (s.droppedEventsCount > 0) {
    w.tag(12, WIRE_VARINT);
    w.varint(s.droppedEventsCount);
  }
  if (s.status.code !== 0) {
    const status = open(w, 15);
    if (s.status.message !== undefined && s.status.message !== '') w.string(2, s.status.message);
    w.tag(3, WIRE_VARINT);
    w.varint(s.status.code);
    w.end(status);
  }
  fixed32(w, 16, (ctx.traceFlags & 0xff) | FLAGS_HAS_IS_REMOTE | (parent?.isRemote === true ? FLAGS_IS_REMOTE : 0));
  w.end(mark);
}

/**
 * The export request of `spans`, all of one tracer (one resource, one instrumentation scope: the server's
 * own tracer). Links are not encoded: the server makes none.
 */
export function encodeExportRequest(spans: readonly ReadableSpan[]): Buffer {
  if (spans.length === 0) return Buffer.alloc(0);
  const w = new WireWriter();
  const first = spans[0]!;
  const resourceSpans = open(w, 1);
  const resource = open(w, 1);
  attributes(w, 1, first.resource.attributes as Attributes);
  w.end(resource);
  const scopeSpans = open(w, 2);
  const scope = open(w, 1);
  w.string(1, first.instrumentationScope.name);
  if (first.instrumentationScope.version !== undefined) w.string(2, first.instrumentationScope.version);
  w.end(scope);
  for (const s of spans) span(w, s);
  w.end(scopeSpans);
  w.end(resourceSpans);
  return w.finish();
}
