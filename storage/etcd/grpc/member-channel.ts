/**
 * gRPC calls to one etcd member over one HTTP/2 connection of node's own (`node:http2`), without grpc-js:
 * unary calls, and long-lived streams for watches (watch-call.ts). A create's Txn through grpc-js cost ~125 µs
 * of CPU against ~45 µs this way (interceptors, resolver and load-balancer layers, metadata objects, the
 * call's listener chain, protobufjs's Longs, and their garbage).
 *
 * What the channel keeps of gRPC over HTTP/2: a POST to `/<service>/<method>` with `content-type:
 * application/grpc`, `te: trailers` and `grpc-timeout`; one length-prefixed message each way, never
 * compressed (no `grpc-accept-encoding` is sent, so etcd compresses nothing); the status from the trailers,
 * or from the headers of a trailers-only answer; `grpc-message` percent-decoded. Failures become etcd3's typed
 * errors with grpc-js's message text (`"14 UNAVAILABLE: ..."`), which translate-error.ts classifies.
 *
 * Edge cases:
 * - calls wait for the connection to be established (the member's HTTP/2 settings received) before writing
 *   anything, so one that fails before carries `NOT_SENT`, as does a stream the member refused (RST_STREAM
 *   REFUSED_STREAM): even a write may then be sent again;
 * - the connection is dropped (and made again by the next call) when it fails or a keepalive ping gets no
 *   answer in time (pings go out every `keepaliveMs` while calls are in flight, and at once when a call's
 *   deadline passes); after a GOAWAY new calls go to a new connection while the old one finishes its own;
 * - the connection keeps the process alive only while calls are in flight.
 */
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { EtcdConnectionTls } from '../client-tls.js';
import { CallStatus, Status, grpcError } from './status.js';

export interface MemberChannelOptions {
  /** `http://host:port`, `https://host:port`, or `host:port` (plain text unless `tls` is given). */
  readonly endpoint: string;
  /** TLS: the roots (undefined: the system's) and the client certificate; undefined: TLS only for `https://`. */
  readonly tls?: EtcdConnectionTls;
  /** The largest response message accepted (grpc-js's `grpc.max_receive_message_length`); Infinity: no cap. */
  readonly maxReceiveBytes: number;
  readonly keepaliveMs: number;
  readonly keepaliveTimeoutMs: number;
}

/** HTTP/2 flow-control windows: a 10,000 x 1 KiB range page (~11 MiB) flows without waiting for updates. */
const STREAM_WINDOW = 8 * 1024 * 1024;
const SESSION_WINDOW = 32 * 1024 * 1024;

interface Connection {
  readonly session: ClientHttp2Session;
  /** The member's HTTP/2 settings arrived: it speaks HTTP/2 and took the TLS handshake. */
  connected: boolean;
  /** Settles when `connected` turns true, or fails (NOT_SENT) when the connection fails first. */
  readonly ready: Promise<void>;
  /** Fails `ready` (no effect once connected). */
  readonly fail: (why: string) => void;
  /** Why the connection failed, for the message of the calls it takes down. */
  failure: string | undefined;
  pingPending: boolean;
  /** When the last ping went out (epoch ms): at most one per `keepaliveMs`, or etcd answers a flood of them
   * (say, on a burst of deadlines) with GOAWAY "too_many_pings". */
  lastPingAt: number;
  /** Calls in flight: the connection keeps the process alive while there are any. */
  inflight: number;
}

/** One member's connection and its unary calls. */
export class MemberChannel {
  private conn: Connection | undefined;
  private closed = false;
  private readonly keepalive: NodeJS.Timeout;
  private readonly authority: string;
  private readonly tls: boolean;

  constructor(private readonly options: MemberChannelOptions) {
    const endpoint = options.endpoint;
    this.tls = options.tls !== undefined || /^https:\/\//i.test(endpoint);
    this.authority = `${this.tls ? 'https' : 'http'}://${endpoint.replace(/^https?:\/\//i, '')}`;
    this.keepalive = setInterval(() => {
      if (this.conn !== undefined && this.conn.inflight > 0) this.ping(this.conn);
    }, options.keepaliveMs);
    this.keepalive.unref();
  }

  /**
   * Sends `frame` (one gRPC message frame) to `path` and resolves with the response message (without its
   * prefix). Rejects with etcd3's typed error; `deadline` is an epoch time in ms. Nothing is written before
   * the member's HTTP/2 settings arrive, so a call that fails while connecting was certainly not sent.
   */
  call(path: string, frame: Buffer, deadline: number): Promise<Buffer> {
    if (deadline <= Date.now()) return Promise.reject(grpcError(Status.DEADLINE_EXCEEDED, 'Deadline exceeded', true));
    if (this.closed) return Promise.reject(grpcError(Status.UNAVAILABLE, 'Channel has been shut down', true));
    const conn = this.connection();
    if (conn.connected) return this.send(conn, path, frame, deadline);
    return this.whenReady(conn, deadline).then(() => this.send(conn, path, frame, deadline));
  }

  /** Resolves once `conn` is connected; rejects (NOT_SENT) when it fails first or `deadline` passes. */
  private whenReady(conn: Connection, deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(grpcError(Status.DEADLINE_EXCEEDED, `Deadline exceeded while connecting to ${this.options.endpoint}`, true));
      }, deadline - Date.now());
      conn.ready.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  /**
   * Opens a long-lived call (a watch) on `path` once connected; `connectDeadline` bounds the wait for the
   * connection. The stream counts as a call in flight until it closes (keepalive pings, process kept alive).
   * Rejects with etcd3's typed error (NOT_SENT) when it cannot be opened.
   */
  openStream(path: string, headers: Readonly<Record<string, string>>, connectDeadline: number): Promise<OpenStream> {
    if (this.closed) return Promise.reject(grpcError(Status.UNAVAILABLE, 'Channel has been shut down', true));
    const conn = this.connection();
    const open = (): OpenStream => {
      const stream = this.request(conn, { ...headers, ':path': path });
      const status = new CallStatus(stream);
      stream.once('close', () => this.ended(conn));
      return { stream, outcome: () => status.outcome(stream, conn.failure) };
    };
    return conn.connected ? Promise.resolve().then(open) : this.whenReady(conn, connectDeadline).then(open);
  }

  /** A new stream on `conn` counted in flight; throws NOT_SENT when the session takes no more streams. */
  private request(conn: Connection, headers: http2.OutgoingHttpHeaders): ClientHttp2Stream {
    let stream: ClientHttp2Stream;
    try {
      stream = conn.session.request(
        { ':method': 'POST', 'content-type': 'application/grpc', te: 'trailers', ...headers },
        { endStream: false },
      );
    } catch (err) {
      // A session that is closing or destroyed refuses new streams before anything is written.
      this.drop(conn, (err as Error).message);
      throw grpcError(Status.UNAVAILABLE, `No connection established. Last error: ${(err as Error).message}`, true);
    }
    if (conn.inflight++ === 0) conn.session.ref();
    return stream;
  }

  private ended(conn: Connection): void {
    if (--conn.inflight === 0 && !conn.session.destroyed) conn.session.unref();
  }

  private send(conn: Connection, path: string, frame: Buffer, deadline: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return reject(grpcError(Status.DEADLINE_EXCEEDED, 'Deadline exceeded', true));
      let stream: ClientHttp2Stream;
      try {
        stream = this.request(conn, { ':path': path, 'grpc-timeout': `${remaining}m` });
      } catch (err) {
        return reject(err);
      }
      let settled = false;
      let chunks: Buffer | Buffer[] | undefined;
      let received = 0;
      const status = new CallStatus(stream);
      const timer = setTimeout(() => {
        finish(grpcError(Status.DEADLINE_EXCEEDED, 'Deadline exceeded'));
        stream.close(http2.constants.NGHTTP2_CANCEL);
        // Is the member still there? Unless a ping just asked (the interval's pace is etcd's limit too).
        if (Date.now() - conn.lastPingAt >= this.options.keepaliveMs) this.ping(conn);
      }, remaining);
      const finish = (err: Error | undefined, body?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.ended(conn);
        if (err === undefined) resolve(body!);
        else reject(err);
      };
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > this.options.maxReceiveBytes + 5) {
          finish(grpcError(Status.RESOURCE_EXHAUSTED, `Received message larger than max (${received - 5} vs. ${this.options.maxReceiveBytes})`));
          stream.close(http2.constants.NGHTTP2_CANCEL);
          return;
        }
        if (chunks === undefined) chunks = chunk;
        else if (Array.isArray(chunks)) chunks.push(chunk);
        else chunks = [chunks, chunk];
      });
      stream.on('close', () => {
        if (settled) return;
        const err = status.outcome(stream, conn.failure);
        if (err !== undefined) return finish(err);
        const body = chunks === undefined ? undefined : Array.isArray(chunks) ? Buffer.concat(chunks) : chunks;
        finish(...parseMessage(body));
      });
      stream.end(frame);
    });
  }

  close(): void {
    this.closed = true;
    clearInterval(this.keepalive);
    if (this.conn !== undefined) this.drop(this.conn, 'channel closed');
  }

  private connection(): Connection {
    if (this.conn !== undefined) return this.conn;
    const { tls } = this.options;
    const session = http2.connect(this.authority, {
      ...(this.tls && tls !== undefined ? { ca: tls.ca, cert: tls.cert, key: tls.key } : {}),
      settings: { enablePush: false, initialWindowSize: STREAM_WINDOW },
      // nghttp2's memory cap (MB) counts buffered frames of every stream; node's 10 is below one large page.
      maxSessionMemory: 256,
    });
    let ready!: () => void;
    let failed!: (err: Error) => void;
    const conn: Connection = {
      session,
      connected: false,
      ready: new Promise<void>((resolve, reject) => {
        ready = resolve;
        failed = reject;
      }),
      fail: (why) => failed(grpcError(Status.UNAVAILABLE, `No connection established. Last error: ${why}`, true)),
      failure: undefined,
      pingPending: false,
      lastPingAt: 0,
      inflight: 0,
    };
    conn.ready.catch(() => undefined); // awaited only by calls made while connecting
    session.once('connect', () => session.setLocalWindowSize(SESSION_WINDOW));
    // As grpc-js: ready once the member's settings arrive, which a TLS handshake the member refuses never gets to.
    session.once('remoteSettings', () => {
      conn.connected = true;
      ready();
    });
    session.on('error', (err: Error) => this.drop(conn, err.message));
    // New calls go to a new connection; node ends this one once the calls the member still takes are answered.
    session.once('goaway', () => {
      conn.failure ??= 'the member sent GOAWAY';
      if (this.conn === conn) this.conn = undefined;
    });
    session.once('close', () => this.drop(conn, 'connection closed'));
    // A TLS alert from the member (a refused client certificate) reaches the socket but, on node 20, not
    // always the session, which would then wait for settings that never come.
    session.socket.once('error', (err: Error) => this.drop(conn, err.message));
    session.unref();
    this.conn = conn;
    return conn;
  }

  /** Forgets `conn` (the next call connects anew) and closes it; calls in flight on it fail. */
  private drop(conn: Connection, why: string): void {
    conn.failure ??= why;
    conn.fail(why);
    if (this.conn === conn) this.conn = undefined;
    if (!conn.session.destroyed) conn.session.destroy();
  }

  /** A ping that must be answered within the keepalive timeout, or the connection is dropped. */
  private ping(conn: Connection): void {
    if (conn.pingPending || conn.session.destroyed || !conn.connected) return;
    conn.lastPingAt = Date.now();
    conn.pingPending = true;
    const timer = setTimeout(() => this.drop(conn, 'keepalive ping not answered'), this.options.keepaliveTimeoutMs);
    timer.unref();
    const sent = conn.session.ping((err) => {
      clearTimeout(timer);
      conn.pingPending = false;
      if (err !== null) this.drop(conn, `keepalive ping failed: ${err.message}`);
    });
    if (!sent) {
      clearTimeout(timer);
      conn.pingPending = false;
    }
  }
}

/** A long-lived call: its HTTP/2 stream, and on its 'close', how it ended (undefined: status OK). */
export interface OpenStream {
  readonly stream: ClientHttp2Stream;
  outcome(): Error | undefined;
}

/** The message of a successful answer: exactly one uncompressed length-prefixed message. */
function parseMessage(body: Buffer | undefined): [Error | undefined, Buffer?] {
  if (body === undefined || body.length < 5) return [grpcError(Status.INTERNAL, 'answer without a message')];
  if (body[0] !== 0) return [grpcError(Status.INTERNAL, 'compressed message received without an agreed encoding')];
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return [grpcError(Status.INTERNAL, `malformed answer: a ${length}-byte message in ${body.length - 5} bytes`)];
  return [undefined, body.subarray(5)];
}
