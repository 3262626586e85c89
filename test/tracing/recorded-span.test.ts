import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { newSpanId, newTraceId, RecordedSpan, type SpanSink } from '../../apiserver/tracing/recorded-span.js';
import { decodeExport } from './otlp-receiver.js';
import { encodeExportRequest } from '../../apiserver/tracing/otlp-encoding.js';

function sink(): { sink: SpanSink; ended: ReadableSpan[] } {
  const ended: ReadableSpan[] = [];
  const processor: SpanProcessor = { onStart: () => undefined, onEnd: (s) => void ended.push(s), forceFlush: async () => undefined, shutdown: async () => undefined };
  return { sink: { processor, resource: resourceFromAttributes({ 'service.name': 'apiserver' }), scope: { name: 'platform-apiserver' } }, ended };
}

describe('RecordedSpan', () => {
  it('makes valid W3C ids', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => newTraceId()));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
  });

  it('is handed to the processor once, when it ends, and changes no more afterwards', () => {
    const { sink: s, ended } = sink();
    const span = new RecordedSpan('GET', SpanKind.SERVER, newTraceId(), undefined, { a: 1 }, s);
    span.setAttribute('b', 'x').addEvent('started', { step: 1 });
    expect(ended).toHaveLength(0);
    span.end();
    span.end();
    span.setAttribute('c', true);
    span.updateName('other');
    span.addEvent('late');
    span.setStatus({ code: SpanStatusCode.ERROR });
    expect(ended).toEqual([span]);
    expect(span.name).toBe('GET');
    expect(span.attributes).toEqual({ a: 1, b: 'x' });
    expect(span.events.map((e) => e.name)).toEqual(['started']);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const [start, end] = [span.startTime, span.endTime];
    expect(end[0] * 1e9 + end[1]).toBeGreaterThanOrEqual(start[0] * 1e9 + start[1]);
    expect(Math.abs(start[0] * 1000 - Date.now())).toBeLessThan(5000);
    expect(span.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
    expect(span.isRecording()).toBe(false);
  });

  it('keeps an OK status (the SDK\'s rule) and records exceptions as OpenTelemetry names them', () => {
    const { sink: s } = sink();
    const span = new RecordedSpan('x', SpanKind.INTERNAL, newTraceId(), undefined, {}, s);
    span.setStatus({ code: SpanStatusCode.OK });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'no' });
    expect(span.status.code).toBe(SpanStatusCode.OK);
    const err = new TypeError('bad input');
    span.recordException(err);
    expect(span.events[0]).toMatchObject({ name: 'exception', attributes: { 'exception.type': 'TypeError', 'exception.message': 'bad input', 'exception.stacktrace': err.stack } });
  });

  it('continues a remote parent (trace id, trace state) and encodes it with its parent link', () => {
    const { sink: s, ended } = sink();
    const parent = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, isRemote: true, traceState: new TraceState('v=1') };
    const request = new RecordedSpan('POST', SpanKind.SERVER, parent.traceId, parent, { 'http.method': 'POST' }, s);
    const child = new RecordedSpan('Create embedded', SpanKind.INTERNAL, request.spanContext().traceId, request.spanContext(), { key: 'k' }, s);
    child.end();
    request.end();
    const [c, r] = decodeExport(encodeExportRequest(ended));
    expect(r).toMatchObject({ traceId: parent.traceId, parentSpanId: parent.spanId, traceState: 'v=1', kind: 2, name: 'POST' });
    expect(c).toMatchObject({ traceId: parent.traceId, parentSpanId: request.spanContext().spanId, traceState: 'v=1', kind: 1 });
    expect(r!.resource).toEqual({ 'service.name': 'apiserver' });
  });
});
