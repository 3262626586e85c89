/**
 * The server's spans: OpenTelemetry's `Span` API (what the filter and the child-span helpers call) and the
 * SDK's `ReadableSpan` (what the SDK's BatchSpanProcessor queues and otlp-encoding.ts reads), in one
 * small object.
 *
 * Why not the SDK's Tracer and Span: in the server they were the larger part of tracing's cost at 100%
 * (docs/tracing.md): each span copies and validates its attributes twice, keeps its own clock anchor and
 * several arrays, and passes through sampler, metrics and context objects. Here every span is sampled
 * already (the filter decided), attributes are the caller's object (callers pass a fresh literal and set
 * only string, number, boolean or string-array values), times are read once from one monotonic clock
 * anchored to the wall clock when the process started, and ids come from a pooled random buffer.
 *
 * Contract kept from the SDK: nothing changes after `end()` (later calls are ignored); `end()` hands the
 * span to the processor once; a span is always sampled (trace flags 01).
 */
import { randomFillSync } from 'node:crypto';
import {
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';

/** Where a span goes when it ends, and what every span of the tracer shares. */
export interface SpanSink {
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
}

/** Wall-clock milliseconds of `performance.now()` 0, fixed once: span times are monotonic within a process. */
const origin = performance.timeOrigin;

function hrNow(): HrTime {
  const ms = origin + performance.now();
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1_000_000))];
}

const ZERO: HrTime = [0, 0];

/** 8 KiB of randomness handed out 8 or 16 bytes at a time as hex ids. */
const pool = Buffer.allocUnsafe(8192);
let poolAt = pool.length;

function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  // All-zero ids are invalid in W3C trace context; 2^-64 at worst, but never emit one.
  return /^0+$/.test(hex) ? randomHex(bytes) : hex;
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

export class RecordedSpan implements Span, ReadableSpan {
  readonly startTime: HrTime = hrNow();
  endTime: HrTime = ZERO;
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  events: TimedEvent[] = [];
  readonly links: Link[] = [];
  ended = false;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  private readonly context: SpanContext;

  constructor(
    public name: string,
    readonly kind: SpanKind,
    traceId: string,
    readonly parentSpanContext: SpanContext | undefined,
    readonly attributes: Attributes,
    private readonly sink: SpanSink,
  ) {
    this.context = {
      traceId,
      spanId: newSpanId(),
      traceFlags: TraceFlags.SAMPLED,
      ...(parentSpanContext?.traceState === undefined ? {} : { traceState: parentSpanContext.traceState }),
    };
  }

  get resource(): Resource {
    return this.sink.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.sink.scope;
  }

  get duration(): HrTime {
    const ns = (this.endTime[0] - this.startTime[0]) * 1e9 + (this.endTime[1] - this.startTime[1]);
    return [Math.floor(ns / 1e9), ns % 1e9];
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (!this.ended) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    if (!this.ended) Object.assign(this.attributes, attributes);
    return this;
  }

  addEvent(name: string, attributes?: Attributes | TimeInput): this {
    if (this.ended) return this;
    const attrs = attributes !== undefined && typeof attributes === 'object' && !Array.isArray(attributes) && !(attributes instanceof Date) ? (attributes as Attributes) : undefined;
    this.events.push({ time: hrNow(), name, ...(attrs === undefined ? {} : { attributes: attrs }) });
    return this;
  }

  addLink(): this {
    return this;
  }

  addLinks(): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended) return this;
    // As the SDK: OK is final; UNSET never replaces a status.
    if (this.status.code === SpanStatusCode.OK || status.code === SpanStatusCode.UNSET) return this;
    this.status = status;
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(): void {
    if (this.ended) return;
    this.endTime = hrNow();
    this.ended = true;
    this.sink.processor.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** An `exception` event with OpenTelemetry's attribute names. */
  recordException(exception: Exception): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      if (exception.name !== undefined) attributes['exception.type'] = exception.name;
      else if (exception.code !== undefined) attributes['exception.type'] = String(exception.code);
      if (exception.message !== undefined) attributes['exception.message'] = exception.message;
      if (exception.stack !== undefined) attributes['exception.stacktrace'] = exception.stack;
    }
    this.addEvent('exception', attributes);
  }
}
