/**
 * The server's tracer (one per server, made from `--tracing-config-file`): spans (recorded-span.ts) handed
 * to OpenTelemetry's BatchSpanProcessor and the OTLP/HTTP protobuf exporter (otlp-http-exporter.ts), and
 * the sampling decision of requests.
 *
 * Sampling, as kube's ParentBased(TraceIDRatioBased(samplingRatePerMillion)), decided once per request by
 * the tracing filter before anything is allocated: a request with a valid incoming `traceparent` follows
 * its sampled flag (sampled: always traced, even at rate 0; not sampled: never); one without is traced
 * with probability rate/1e6. Only sampled requests get spans; their children (admission, store calls,
 * encoding) are made only under a sampled request span, so no sampler runs per span. (A root trace id is
 * random either way, so a coin per request samples as a ratio of trace ids does.)
 *
 * Spans are manual (no auto-instrumentation): the request span in `ctx.state.trace`, children made
 * under it with the parent passed explicitly (no AsyncLocalStorage: its promise hooks alone cost more than
 * the spans, see docs/tracing.md). Export failures are logged, at most once a minute; spans beyond the processor's
 * queue are dropped, as the SDK does. `shutdown()` flushes what is queued (the server's close()).
 */
import { randomUUID } from 'node:crypto';
import { SpanKind, type Attributes, type Span, type SpanContext } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { OtlpHttpExporter } from './otlp-http-exporter.js';
import { newTraceId, RecordedSpan, type SpanSink } from './recorded-span.js';
import type { StoreBackend } from './store-tracing.js';
import type { TracingConfig } from './tracing-config.js';

/** A sampled request's span (or a child that has children of its own, like an admission phase). */
export interface TraceScope {
  readonly span: Span;
  /** The request's id (`Audit-Id`), kube's `audit-id` attribute of every span. */
  readonly auditId: string;
  readonly tracing: RequestTracing;
}

export interface RequestTracingOptions {
  /** kube's `service.instance.id` (its APIServerID); default `apiserver-<uuid>`. */
  readonly instanceId?: string;
  /** Where export failures are reported. */
  readonly onExportError?: (err: Error) => void;
  /** The processor's delay between exports; default the SDK's 5 s. */
  readonly scheduledDelayMillis?: number;
  /** The store backend, named in store-call spans (`Create etcd3`, `Create embedded`); default memory. */
  readonly storeBackend?: StoreBackend;
}

/** kube's `service.name` of the API server's spans. */
const SERVICE_NAME = 'apiserver';
/** The processor's queue: 100% sampling at a few thousand requests a second fills the SDK's 2,048 in a blink. */
const MAX_QUEUE_SIZE = 8192;
const MAX_EXPORT_BATCH_SIZE = 1024;
const EXPORT_ERROR_INTERVAL_MS = 60_000;

export class RequestTracing {
  private readonly processor: BatchSpanProcessor;
  private readonly sink: SpanSink;
  /** samplingRatePerMillion / 1e6. */
  private readonly ratio: number;
  readonly storeBackend: StoreBackend;

  constructor(config: TracingConfig, options: RequestTracingOptions = {}) {
    this.ratio = config.samplingRatePerMillion / 1_000_000;
    this.storeBackend = options.storeBackend ?? 'memory';
    const exporter = reportingFailures(new OtlpHttpExporter({ url: config.url }), options.onExportError);
    this.processor = new BatchSpanProcessor({
      exporter,
      maxQueueSize: MAX_QUEUE_SIZE,
      maxExportBatchSize: MAX_EXPORT_BATCH_SIZE,
      ...(options.scheduledDelayMillis === undefined ? {} : { scheduledDelayMillis: options.scheduledDelayMillis }),
    });
    this.sink = {
      processor: this.processor,
      resource: resourceFromAttributes({
        'service.name': SERVICE_NAME,
        'service.instance.id': options.instanceId ?? `apiserver-${randomUUID()}`,
      }),
      scope: { name: 'platform-apiserver' },
    };
  }

  /** Whether a request without a (valid) incoming parent is traced: a coin at the configured rate. */
  sampleRoot(): boolean {
    return this.ratio > 0 && (this.ratio >= 1 || Math.random() < this.ratio);
  }

  /** Starts the span of a sampled request: a child of `parent` (remote, sampled) or a new trace. */
  startRequest(name: string, auditId: string, parent: SpanContext | undefined, attributes: Attributes): TraceScope {
    const span = new RecordedSpan(name, SpanKind.SERVER, parent?.traceId ?? newTraceId(), parent, attributes, this.sink);
    return { span, auditId, tracing: this };
  }

  /** A child span of `parent` (attributes: a fresh object, taken over), carrying kube's `audit-id`. */
  child(parent: TraceScope, name: string, attributes: Attributes): Span {
    attributes['audit-id'] = parent.auditId;
    const context = parent.span.spanContext();
    return new RecordedSpan(name, SpanKind.INTERNAL, context.traceId, context, attributes, this.sink);
  }

  /** A child span that has children of its own (they go under it). */
  childScope(parent: TraceScope, name: string, attributes: Attributes): TraceScope {
    return { span: this.child(parent, name, attributes), auditId: parent.auditId, tracing: this };
  }

  /** Exports every span that ended, then stops the exporter. Idempotent. */
  shutdown(): Promise<void> {
    return this.processor.shutdown();
  }
}

/** The exporter, reporting failed exports through `onError` at most once a minute (with the count). */
function reportingFailures(exporter: SpanExporter, onError: ((err: Error) => void) | undefined): SpanExporter {
  if (onError === undefined) return exporter;
  let lastReport = -Infinity;
  let failed = 0;
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          failed += spans.length;
          const now = Date.now();
          if (now - lastReport >= EXPORT_ERROR_INTERVAL_MS) {
            lastReport = now;
            onError(new Error(`exporting ${failed} span(s) failed: ${result.error?.message ?? 'unknown error'}`));
            failed = 0;
          }
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush === undefined ? {} : { forceFlush: () => exporter.forceFlush!() }),
  };
}
