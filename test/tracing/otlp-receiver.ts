/**
 * An OTLP/HTTP trace receiver for tests: a node:http server on 127.0.0.1 port 0 that answers every
 * `POST /v1/traces` with 200 and decodes its protobuf body (`otlp-trace.proto` beside this file, an
 * independent description of the protocol) into flat spans: ids in hex, attributes as plain values.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { captureText } from '../harness/capture.js';

const root = protobuf.parse(readFileSync(join(__dirname, 'otlp-trace.proto'), 'utf8')).root;
const ExportTraceServiceRequest = root.lookupType('otlp.ExportTraceServiceRequest');

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly traceState: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: readonly string[];
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly startNanos: bigint;
  readonly endNanos: bigint;
  /** The attributes of the resource the span came with (`service.name` ...). */
  readonly resource: Readonly<Record<string, unknown>>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>` (the server appends `/v1/traces`). */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  spans(): readonly ReceivedSpan[];
  /** Each export's path and Content-Type, in arrival order. */
  exports(): readonly { readonly path: string; readonly contentType: string }[];
  /** Resolves once `test(spans)` holds for the spans received (checked at each export); rejects after `timeoutMs`. */
  waitFor(test: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value?: AnyValue };

const valueOf = (v: AnyValue | undefined): unknown => {
  if (v === undefined) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
};
const attributesOf = (kvs: KeyValue[] | undefined): Record<string, unknown> => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString('hex');

/** Decodes one export request's body into spans. */
export function decodeExport(body: Buffer): ReceivedSpan[] {
  const message = ExportTraceServiceRequest.decode(body);
  const req = ExportTraceServiceRequest.toObject(message, { longs: String, defaults: false, arrays: true }) as any;
  const out: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          traceState: s.traceState ?? '',
          name: s.name,
          kind: s.kind ?? 0,
          attributes: attributesOf(s.attributes),
          events: (s.events ?? []).map((e: { name: string }) => e.name),
          statusCode: s.status?.code ?? 0,
          startNanos: BigInt(s.startTimeUnixNano ?? 0),
          endNanos: BigInt(s.endTimeUnixNano ?? 0),
          resource,
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: { path: string; contentType: string }[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '' });
      try {
        const received = decodeExport(Buffer.concat(chunks));
        spans.push(...received);
        // The run's leak scan reads the spans too (test/harness/capture.ts).
        captureText(`${received.map((s) => JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).join('\n')}\n`);
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => spans,
    exports: () => exports,
    waitFor: (test, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (test(spans)) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the spans expected did not arrive within ${timeoutMs} ms; got: ${spans.map((s) => s.name).join(', ')}`));
        }, timeoutMs);
        const check = (): void => {
          if (!test(spans)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
