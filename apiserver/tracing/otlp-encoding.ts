/**
 * OTLP's protobuf encoding of finished spans: one `ExportTraceServiceRequest` (opentelemetry-proto,
 * collector/trace/v1) with one ResourceSpans and one ScopeSpans per call, the layout every OTLP receiver
 * reads. Written by hand because encoding is the largest part of a span's cost: OpenTelemetry's serializer
 * sizes every message in a first pass and spends about 4.4 µs on a span of 12 attributes; this one writes
 * once into a growing buffer, encodes attribute keys once per process, and fixes up each nested message's
 * length afterwards (shifting the few bytes when it needs more than one length byte).
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

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;

class Writer {
  buf = Buffer.allocUnsafe(64 * 1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  varint(v: number): void {
    this.ensure(10);
    if (v < 0) {
      // int64 two's complement: ten bytes.
      let big = BigInt.asUintN(64, BigInt(v));
      while (big >= 0x80n) {
        this.buf[this.pos++] = Number(big & 0x7fn) | 0x80;
        big >>= 7n;
      }
      this.buf[this.pos++] = Number(big);
      return;
    }
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  /** Opens a length-delimited field; `end` with the returned mark writes its length. */
  begin(field: number): number {
    this.tag(field, WIRE_LEN);
    this.ensure(1);
    return this.pos++;
  }

  end(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 0x80) {
      this.buf[mark] = len;
      return;
    }
    let extra = 0;
    for (let v = len; v >= 0x80; v = Math.floor(v / 0x80)) extra += 1;
    this.ensure(extra);
    this.buf.copyWithin(mark + 1 + extra, mark + 1, this.pos);
    this.pos += extra;
    let v = len;
    let at = mark;
    while (v >= 0x80) {
      this.buf[at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[at] = v;
  }

  string(field: number, s: string): void {
    const mark = this.begin(field);
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
    this.end(mark);
  }

  raw(bytes: Buffer): void {
    this.ensure(bytes.length);
    bytes.copy(this.buf, this.pos);
    this.pos += bytes.length;
  }

  hexBytes(field: number, hex: string): void {
    this.tag(field, WIRE_LEN);
    this.varint(hex.length / 2);
    this.ensure(hex.length / 2);
    this.pos += this.buf.write(hex, this.pos, 'hex');
  }

  time(field: number, t: HrTime): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    this.buf.writeBigUInt64LE(BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]), this.pos);
    this.pos += 8;
  }

  fixed32(field: number, v: number): void {
    this.tag(field, WIRE_FIXED32);
    this.ensure(4);
    this.buf.writeUInt32LE(v >>> 0, this.pos);
    this.pos += 4;
  }

  double(field: number, v: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }
}

/** `KeyValue.key` fields, encoded once per key (span attributes repeat a small set of keys). */
const keyFields = new Map<string, Buffer>();

function keyField(key: string): Buffer {
  let b = keyFields.get(key);
  if (b === undefined) {
    const w = new Writer();
    w.string(1, key);
    b = Buffer.from(w.buf.subarray(0, w.pos));
    if (keyFields.size < 10_000) keyFields.set(key, b);
  }
  return b;
}

function anyValue(w: Writer, field: number, v: AttributeValue): void {
  const mark = w.begin(field);
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
    const array = w.begin(5);
    for (const item of v) if (item !== null && item !== undefined) anyValue(w, 1, item);
    w.end(array);
  }
  w.end(mark);
}

function attributes(w: Writer, field: number, attrs: Attributes): void {
  for (const key in attrs) {
    const v = attrs[key];
    if (v === undefined) continue;
    const mark = w.begin(field);
    w.raw(keyField(key));
    anyValue(w, 2, v);
    w.end(mark);
  }
}

function span(w: Writer, s: ReadableSpan): void {
  const mark = w.begin(2);
  const ctx = s.spanContext();
  w.hexBytes(1, ctx.traceId);
  w.hexBytes(2, ctx.spanId);
  const state = ctx.traceState?.serialize();
  if (state !== undefined && state !== '') w.string(3, state);
  const parent = s.parentSpanContext;
  if (parent !== undefined) w.hexBytes(4, parent.spanId);
  w.string(5, s.name);
  w.tag(6, WIRE_VARINT);
  w.varint(s.kind + 1);
  w.time(7, s.startTime);
  w.time(8, s.endTime);
  attributes(w, 9, s.attributes);
  if (s.droppedAttributesCount > 0) {
    w.tag(10, WIRE_VARINT);
    w.varint(s.droppedAttributesCount);
  }
  for (const e of s.events) {
    const event = w.begin(11);
    w.time(1, e.time);
    w.string(2, e.name);
    if (e.attributes !== undefined) attributes(w, 3, e.attributes);
    w.end(event);
  }
  if (s.droppedEventsCount > 0) {
    w.tag(12, WIRE_VARINT);
    w.varint(s.droppedEventsCount);
  }
  if (s.status.code !== 0) {
    const status = w.begin(15);
    if (s.status.message !== undefined && s.status.message !== '') w.string(2, s.status.message);
    w.tag(3, WIRE_VARINT);
    w.varint(s.status.code);
    w.end(status);
  }
  w.fixed32(16, (ctx.traceFlags & 0xff) | FLAGS_HAS_IS_REMOTE | (parent?.isRemote === true ? FLAGS_IS_REMOTE : 0));
  w.end(mark);
}

/**
 * The export request of `spans`, all of one tracer (one resource, one instrumentation scope: the server's
 * own tracer). Links are not encoded: the server makes none.
 */
export function encodeExportRequest(spans: readonly ReadableSpan[]): Buffer {
  const w = new Writer();
  if (spans.length === 0) return Buffer.alloc(0);
  const first = spans[0]!;
  const resourceSpans = w.begin(1);
  const resource = w.begin(1);
  attributes(w, 1, first.resource.attributes as Attributes);
  w.end(resource);
  const scopeSpans = w.begin(2);
  const scope = w.begin(1);
  w.string(1, first.instrumentationScope.name);
  if (first.instrumentationScope.version !== undefined) w.string(2, first.instrumentationScope.version);
  w.end(scope);
  for (const s of spans) span(w, s);
  w.end(scopeSpans);
  w.end(resourceSpans);
  return w.buf.subarray(0, w.pos);
}
