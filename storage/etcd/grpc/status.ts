/**
 * gRPC statuses as this backend reports them: etcd3's typed errors (translate-error.ts classifies those)
 * with grpc-js's message text (`"14 UNAVAILABLE: ..."`), the HTTP-to-gRPC mapping of answers without a
 * status, and the mark of a call that certainly never reached its member.
 */
import http2, { type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { castGrpcError } from 'etcd3/lib/errors.js';

/** Marks an error of a call that certainly never reached the member. */
export const NOT_SENT: unique symbol = Symbol('etcd call not sent');

const STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
export const Status = { CANCELLED: 1, DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, INTERNAL: 13, UNAVAILABLE: 14 } as const;

/** A gRPC status as etcd3's typed error, with grpc-js's message (`"<code> <NAME>: <details>"`). */
export function grpcError(code: number, details: string, notSent = false): Error {
  const plain = new Error(`${code} ${STATUS_NAMES[code] ?? 'UNKNOWN'}: ${details}`) as Error & { code: number; details: string };
  plain.code = code;
  plain.details = details;
  const typed = castGrpcError(plain);
  if (notSent) Object.defineProperty(typed, NOT_SENT, { value: true });
  return typed;
}

/** The gRPC status of an HTTP status other than 200 (gRPC's HTTP-to-gRPC mapping). */
function httpStatusCode(status: number): number {
  if (status === 400) return 13;
  if (status === 401) return 16;
  if (status === 403) return 7;
  if (status === 404) return 12;
  if (status === 429 || status === 502 || status === 503 || status === 504) return 14;
  return 2;
}

function decodeGrpcMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A call's gRPC status as its headers and trailers tell it, and how it ended. */
export class CallStatus {
  private status: number | undefined;
  private message = '';
  private httpStatus = 200;
  private streamError: Error | undefined;

  constructor(stream: ClientHttp2Stream) {
    stream.on('response', (headers) => {
      this.httpStatus = Number(headers[':status']);
      this.read(headers); // a trailers-only answer
    });
    stream.on('trailers', (headers) => this.read(headers));
    stream.on('error', (err: Error) => {
      this.streamError = err;
    });
  }

  /** Once the stream has closed: undefined for status OK, else the call's error. */
  outcome(stream: ClientHttp2Stream, connectionFailure: string | undefined): Error | undefined {
    if (this.status !== undefined) return this.status === 0 ? undefined : grpcError(this.status, this.message);
    if (this.httpStatus !== 200) return grpcError(httpStatusCode(this.httpStatus), `Received HTTP status code ${this.httpStatus}`);
    const code = stream.rstCode;
    if (code === http2.constants.NGHTTP2_REFUSED_STREAM) return grpcError(Status.UNAVAILABLE, 'Stream refused by server', true);
    // The connection failed under the call (its reason says more than the stream's cancellation).
    if (connectionFailure !== undefined) return grpcError(Status.UNAVAILABLE, connectionFailure);
    const why = this.streamError?.message ?? (code ? `Received RST_STREAM with code ${code}` : 'stream ended without a status');
    return grpcError(code === http2.constants.NGHTTP2_CANCEL ? Status.CANCELLED : Status.UNAVAILABLE, why);
  }

  private read(headers: IncomingHttpHeaders): void {
    const value = headers['grpc-status'];
    if (value === undefined) return;
    this.status = Number(value);
    this.message = decodeGrpcMessage(headers['grpc-message']);
  }
}
