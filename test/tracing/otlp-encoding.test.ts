/**
 * The hand-written OTLP encoding (apiserver/tracing/otlp-encoding.ts) against OpenTelemetry's own
 * serializer (@opentelemetry/otlp-transformer, a dev dependency for this check), both decoded with the
 * tests' independent description of OTLP (otlp-trace.proto): the same request, field by field, over spans
 * that take every path (remote parents, trace state, events, error status, every attribute type, lengths
 * that need several bytes, a request larger than the writer's first buffer).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOnSampler, TracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace';
import protobuf from 'protobufjs';
import { encodeExportRequest } from '../../apiserver/tracing/otlp-encoding.js';
import { decodeExport } from './otlp-receiver.js';

const root = protobuf.parse(readFileSync(join(__dirname, 'otlp-trace.proto'), 'utf8')).root;
const Request = root.lookupType('otlp.ExportTraceServiceRequest');
const decoded = (bytes: Uint8Array): unknown => Request.toObject(Request.decode(bytes), { longs: String, bytes: String, defaults: true, arrays: true });

function makeSpans(n: number): ReadableSpan[] {
  const finished: ReadableSpan[] = [];
  // Collects each span as it ends (synchronously; the SDK's export processors hand spans on later).
  const collect: SpanProcessor = { onStart: () => undefined, onEnd: (span) => void finished.push(span), forceFlush: async () => undefined, shutdown: async () => undefined };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'apiserver', 'service.instance.id': 'apiserver-1' }),
    sampler: new AlwaysOnSampler(),
    spanProcessors: [collect],
  });
  const tracer = provider.getTracer('platform-apiserver');
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=opaque,other=x'),
  });
  for (let i = 0; i < n; i++) {
    const request = tracer.startSpan(`POST /api/v1/namespaces/{:namespace}/configmaps ${i}`, {
      kind: SpanKind.SERVER,
      attributes: {
        'http.method': 'POST',
        'http.status_code': 201,
        'net.sock.peer.port': 65535,
        negative: -3,
        big: 2 ** 40,
        ratio: 0.25,
        dryRun: false,
        plugins: ['NamespaceLifecycle', 'ValidatingAdmissionPolicy'],
        long: 'ü'.repeat(200),
        'audit-id': `id-${i}`,
      },
    }, i % 2 === 0 ? remote : ROOT_CONTEXT);
    const child = tracer.startSpan('Create embedded', { attributes: { key: `/registry/configmaps/ns/o${i}`, operation: 'create' } }, trace.setSpan(ROOT_CONTEXT, request));
    child.addEvent('NamespaceLifecycle', { at: 1 });
    child.addEvent('plain');
    child.setStatus({ code: SpanStatusCode.ERROR, message: 'etcdserver: request timed out' });
    child.end();
    request.setStatus({ code: SpanStatusCode.OK });
    request.end();
  }
  expect(finished).toHaveLength(2 * n);
  return finished;
}

describe('OTLP protobuf encoding', () => {
  it('decodes to exactly what OpenTelemetry\'s serializer encodes, over every field path', () => {
    const spans = makeSpans(3);
    expect(decodeExport(encodeExportRequest(spans))).toHaveLength(6);
    expect(decoded(encodeExportRequest(spans))).toEqual(decoded(ProtobufTraceSerializer.serializeRequest(spans)!));
  });

  it('encodes requests larger than its first buffer (nested lengths of several bytes)', () => {
    const spans = makeSpans(400);
    const ours = encodeExportRequest(spans);
    expect(ours.length).toBeGreaterThan(256 * 1024);
    expect(decoded(ours)).toEqual(decoded(ProtobufTraceSerializer.serializeRequest(spans)!));
    const flat = decodeExport(ours);
    expect(flat).toHaveLength(800);
    const remoteChild = flat.find((s) => s.name.endsWith(' 0'))!;
    expect(remoteChild).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7', traceState: 'vendor=opaque,other=x', kind: 2 });
    expect(remoteChild.attributes).toMatchObject({ negative: -3, big: 2 ** 40, ratio: 0.25, dryRun: false, plugins: ['NamespaceLifecycle', 'ValidatingAdmissionPolicy'], long: 'ü'.repeat(200) });
  });

  it('encodes nothing for no spans', () => {
    expect(encodeExportRequest([]).length).toBe(0);
  });
});
