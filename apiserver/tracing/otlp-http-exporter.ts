/**
 * The span exporter: OTLP over HTTP with protobuf bodies (`POST <url>`, `Content-Type:
 * application/x-protobuf`), the request encoded by otlp-encoding.ts and sent with node:http(s) over one
 * keep-alive agent.
 *
 * Why not `@opentelemetry/exporter-trace-otlp-proto`: its transport loads `http`/`https` with a dynamic
 * `import()` on first use, which fails inside Jest's VM without --experimental-vm-modules, and it reads
 * OTEL_EXPORTER_OTLP_* environment variables the server's flag should not compete with. This is the part of
 * it the server needs.
 *
 * Contract (the SDK's SpanExporter): `export` calls back once per call, SUCCESS for a 2xx answer, FAILED
 * otherwise (non-2xx, connection error, no answer within `timeoutMs`); failed batches are not retried (the
 * batch processor moves on; spans are telemetry, not data). `shutdown` waits for exports in flight, then
 * closes the agent's sockets; exports after it fail at once.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { encodeExportRequest } from './otlp-encoding.js';

export interface OtlpHttpExporterOptions {
  /** The traces URL (`http://collector:4318/v1/traces`). */
  readonly url: string;
  /** Deadline of one export. Default 10 s (the OTLP exporters' default). */
  readonly timeoutMs?: number;
}

export class OtlpHttpExporter implements SpanExporter {
  private readonly url: URL;
  private readonly timeoutMs: number;
  private readonly agent: HttpAgent;
  private readonly send: (url: URL, options: object, cb: (res: IncomingMessage) => void) => ClientRequest;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(options: OtlpHttpExporterOptions) {
    this.url = new URL(options.url);
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const https = this.url.protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: 4 }) : new HttpAgent({ keepAlive: true, maxSockets: 4 });
    this.send = https ? httpsRequest : httpRequest;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.stopped) return done({ code: ExportResultCode.FAILED, error: new Error('the exporter is shut down') });
    const body = encodeExportRequest(spans);
    const sent = this.post(body).then(
      () => done({ code: ExportResultCode.SUCCESS }),
      (error: Error) => done({ code: ExportResultCode.FAILED, error }),
    );
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.inFlight]);
    this.agent.destroy();
  }

  async forceFlush(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private post(body: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = this.send(this.url, {
        method: 'POST',
        agent: this.agent,
        timeout: this.timeoutMs,
        headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': body.length, 'User-Agent': 'platform-apiserver' },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (chunks.length < 4) chunks.push(c);
        });
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`${this.url.href} answered ${status}: ${Buffer.concat(chunks).subarray(0, 200).toString('utf8')}`));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${this.url.href}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
