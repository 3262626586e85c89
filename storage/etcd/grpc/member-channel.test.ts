/**
 * The member channel (unary calls and watch streams) against a real HTTP/2 peer (node's own server) answering as a gRPC server would,
 * for what etcd does not do on demand: statuses in every form, split and oversized answers, refused
 * streams, GOAWAY, silence. Against etcd itself: members.test.ts.
 */
import http2, { type ServerHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { GRPCInternalError, GRPCOutOfRangeError, GRPCResourceExhastedError, GRPCUnavailableError, GRPCDeadlineExceededError } from 'etcd3/lib/errors.js';
import { classifyEtcdError, neverSent } from '../translate-error.js';
import { until } from '../../testing/helpers.js';
import { MemberChannel } from './member-channel.js';
import { WatchCall } from './watch-call.js';
import protobuf from 'protobufjs';

type Handler = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer) => void;

/** A plain-text HTTP/2 server on loopback that reads each request whole and hands it to `handler`. */
async function peer(handler: Handler): Promise<{ endpoint: string; server: http2.Http2Server; sessions: Set<http2.ServerHttp2Session>; close(): Promise<void> }> {
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => handler(stream, headers, Buffer.concat(chunks)));
    stream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    sessions,
    close: () =>
      new Promise((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const frameOf = (message: Buffer, flag = 0): Buffer => {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
};

/** Answers OK with `message`, in `pieces` DATA writes. */
function ok(stream: ServerHttp2Stream, message: Buffer, pieces = 1): void {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
  const frame = frameOf(message);
  const size = Math.ceil(frame.length / pieces);
  for (let i = 0; i < frame.length; i += size) stream.write(frame.subarray(i, i + size));
  stream.end();
}

const channels: MemberChannel[] = [];
function channel(endpoint: string, extra: Partial<ConstructorParameters<typeof MemberChannel>[0]> = {}): MemberChannel {
  const c = new MemberChannel({ endpoint, maxReceiveBytes: Infinity, keepaliveMs: 10_000, keepaliveTimeoutMs: 5_000, ...extra });
  channels.push(c);
  return c;
}
afterEach(() => {
  for (const c of channels.splice(0)) c.close();
});

const soon = (ms = 5_000): number => Date.now() + ms;
const request = frameOf(Buffer.from('request message'));

describe('etcd member channel (HTTP/2 peer)', () => {
  test('sends one gRPC POST (path, content-type, te, grpc-timeout, the frame whole) and resolves with the answer message', async () => {
    let seen: { headers: IncomingHttpHeaders; body: Buffer } | undefined;
    const p = await peer((stream, headers, body) => {
      seen = { headers, body };
      ok(stream, Buffer.from('answer'));
    });
    try {
      const answer = await channel(p.endpoint).call('/etcdserverpb.KV/Range', request, soon(4_000));
      expect(answer.toString()).toBe('answer');
      expect(seen!.headers[':method']).toBe('POST');
      expect(seen!.headers[':path']).toBe('/etcdserverpb.KV/Range');
      expect(seen!.headers['content-type']).toBe('application/grpc');
      expect(seen!.headers.te).toBe('trailers');
      expect(seen!.headers['grpc-timeout']).toMatch(/^\d+m$/);
      expect(Number(String(seen!.headers['grpc-timeout']).slice(0, -1))).toBeLessThanOrEqual(4_000);
      expect(seen!.headers['grpc-accept-encoding']).toBeUndefined();
      expect(seen!.body.equals(request)).toBe(true);
    } finally {
      await p.close();
    }
  });

  test('an answer in many DATA frames is put back together; many calls share one connection', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 'v');
    const p = await peer((stream) => ok(stream, big, 97));
    try {
      const c = channel(p.endpoint);
      const answers = await Promise.all(Array.from({ length: 8 }, () => c.call('/x/Y', request, soon())));
      for (const a of answers) expect(a.equals(big)).toBe(true);
      expect(p.sessions.size).toBe(1);
    } finally {
      await p.close();
    }
  });

  test('a trailers-only error status becomes etcd3\'s typed error with the percent-decoded message', async () => {
    const p = await peer((stream) =>
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '11', 'grpc-message': 'etcdserver%3A mvcc%3A required revision has been compacted' },
        { endStream: true },
      ),
    );
    try {
      const err = await channel(p.endpoint).call('/x/Y', request, soon()).catch((e: Error) => e);
      expect(err).toBeInstanceOf(GRPCOutOfRangeError);
      expect((err as Error).message).toBe('11 OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted');
      expect(classifyEtcdError(err)).toEqual({ kind: 'compacted' });
      expect(neverSent(err)).toBe(false);
    } finally {
      await p.close();
    }
  });

  test('a status in the trailers after headers, an HTTP error status, a compressed message, a message too large', async () => {
    const p = await peer((stream, headers) => {
      const path = headers[':path'];
      if (path === '/status') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '14', 'grpc-message': 'etcdserver: leader changed' }));
        stream.end();
      } else if (path === '/http') {
        stream.respond({ ':status': 503 }, { endStream: true });
      } else if (path === '/compressed') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(frameOf(Buffer.from('zzz'), 1));
      } else {
        ok(stream, Buffer.alloc(2_000));
      }
    });
    try {
      const c = channel(p.endpoint);
      const leader = await c.call('/status', request, soon()).catch((e: Error) => e);
      expect(leader).toBeInstanceOf(GRPCUnavailableError);
      expect((leader as Error).message).toBe('14 UNAVAILABLE: etcdserver: leader changed');
      const http = await c.call('/http', request, soon()).catch((e: Error) => e);
      expect(http).toBeInstanceOf(GRPCUnavailableError);
      expect((http as Error).message).toBe('14 UNAVAILABLE: Received HTTP status code 503');
      const compressed = await c.call('/compressed', request, soon()).catch((e: Error) => e);
      expect(compressed).toBeInstanceOf(GRPCInternalError);
      const capped = await channel(p.endpoint, { maxReceiveBytes: 1_000 }).call('/big', request, soon()).catch((e: Error) => e);
      expect(capped).toBeInstanceOf(GRPCResourceExhastedError);
      expect((capped as Error).message).toMatch(/^8 RESOURCE_EXHAUSTED: Received message larger than max \(\d+ vs\. 1000\)$/);
      // The channel goes on after each of them.
      expect((await c.call('/big', request, soon())).length).toBe(2_000);
    } finally {
      await p.close();
    }
  });

  test('a stream the peer refuses (RST_STREAM REFUSED_STREAM) was not sent: even a write may go again', async () => {
    const p = await peer((stream) => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM));
    try {
      const err = await channel(p.endpoint).call('/x/Y', request, soon()).catch((e: Error) => e);
      expect(err).toBeInstanceOf(GRPCUnavailableError);
      expect(neverSent(err)).toBe(true);
    } finally {
      await p.close();
    }
  });

  test('no answer: DEADLINE_EXCEEDED at the deadline (maybe applied, so not NOT_SENT), and the stream is cancelled', async () => {
    let cancelled: Promise<number> | undefined;
    const p = await peer((stream) => {
      cancelled = new Promise((resolve) => stream.on('close', () => resolve(stream.rstCode)));
    });
    try {
      const err = await channel(p.endpoint).call('/x/Y', request, soon(300)).catch((e: Error) => e);
      expect(err).toBeInstanceOf(GRPCDeadlineExceededError);
      expect(classifyEtcdError(err)).toMatchObject({ kind: 'error', error: { code: 'Timeout' } });
      expect(neverSent(err)).toBe(false);
      expect(await cancelled).toBe(http2.constants.NGHTTP2_CANCEL);
    } finally {
      await p.close();
    }
  });

  test('after the peer says GOAWAY the next call connects anew', async () => {
    const servedBy: http2.Http2Session[] = [];
    const p = await peer((stream) => {
      servedBy.push(stream.session!);
      ok(stream, Buffer.from('fine'));
    });
    try {
      const c = channel(p.endpoint);
      expect((await c.call('/x/Y', request, soon())).toString()).toBe('fine');
      (servedBy[0] as http2.ServerHttp2Session).goaway(http2.constants.NGHTTP2_NO_ERROR);
      // Calls made before the GOAWAY arrives may still go to the old connection (and fail, not sent, or be
      // answered); once it has arrived every call goes to a new one.
      await until(async () => {
        await c.call('/x/Y', request, soon()).catch(() => undefined);
        return servedBy.length > 1 && servedBy.at(-1) !== servedBy[0];
      }, 'a call on a new connection');
      expect((await c.call('/x/Y', request, soon())).toString()).toBe('fine');
      expect(servedBy.at(-1)).not.toBe(servedBy[0]);
    } finally {
      await p.close();
    }
  });

  test('an idle connection does not keep a process alive; a call in flight does', async () => {
    const p = await peer((stream, headers) => {
      // The second call is answered only after a while: the process must wait for it.
      if (headers[':path'] === '/slow') setTimeout(() => ok(stream, Buffer.from('late')), 300);
      else ok(stream, Buffer.from('now'));
    });
    try {
      const script = [
        `import { MemberChannel } from ${JSON.stringify(join(__dirname, 'member-channel.ts'))};`,
        `const c = new MemberChannel({ endpoint: ${JSON.stringify(p.endpoint)}, maxReceiveBytes: Infinity, keepaliveMs: 10000, keepaliveTimeoutMs: 5000 });`,
        `const frame = Buffer.from([0, 0, 0, 0, 0]);`,
        `console.log(String(await c.call('/fast', frame, Date.now() + 5000)));`,
        `c.call('/slow', frame, Date.now() + 5000).then((m) => console.log(String(m)));`,
      ].join('\n');
      // Never closed: the process ends by itself once nothing is in flight.
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      expect(out).toBe('now\nlate\n');
    } finally {
      await p.close();
    }
  }, 30_000);

  test('a watch stream: requests framed as written, answers split and joined across DATA frames, then OK ends it', async () => {
    const root = protobuf.loadSync(join(__dirname, '..', '..', '..', 'node_modules', 'etcd3', 'proto', 'rpc.proto'));
    const Res = root.lookupType('etcdserverpb.WatchResponse');
    const Req = root.lookupType('etcdserverpb.WatchRequest');
    const answer = (watchId: number, mod: number): Buffer =>
      frameOf(Buffer.from(Res.encode(Res.fromObject({ header: { revision: mod }, watchId, events: [{ kv: { key: Buffer.from(`/k${mod}`), modRevision: mod, value: Buffer.alloc(3_000, mod) } }] })).finish()));
    let requests: Record<string, unknown>[] = [];
    let sawHeaders: IncomingHttpHeaders | undefined;
    let finishWith: ((trailers: Record<string, string>) => void) | undefined;
    const server = http2.createServer();
    server.on('stream', (stream, headers) => {
      sawHeaders = headers;
      let buffered = Buffer.alloc(0);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt32BE(1)) {
          const length = buffered.readUInt32BE(1);
          requests.push(Req.toObject(Req.decode(buffered.subarray(5, 5 + length)), { longs: Number, oneofs: true }));
          buffered = buffered.subarray(5 + length);
        }
        if (requests.length === 1) {
          // Three answers: the first two in one write, the third in 1,000-byte pieces.
          stream.write(Buffer.concat([answer(1, 10), answer(1, 11)]));
          const third = answer(1, 12);
          for (let i = 0; i < third.length; i += 1_000) stream.write(third.subarray(i, i + 1_000));
        }
      });
      finishWith = (trailers) => {
        stream.on('wantTrailers', () => stream.sendTrailers(trailers));
        stream.end();
      };
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const open = async (): Promise<{ call: WatchCall; messages: { watch_id: number; header: { revision: number } | null; events: { kv: { value: Buffer } }[] }[]; ended: Promise<string> }> => {
        const call = new WatchCall(await channel(endpoint).openStream('/etcdserverpb.Watch/Watch', { hasleader: 'true' }, soon()));
        const messages: never[] = [];
        call.on('data', (m) => messages.push(m as never));
        const ended = new Promise<string>((resolve) => {
          call.on('end', () => resolve('end'));
          call.on('error', (err) => resolve(err.message));
        });
        return { call, messages, ended };
      };
      const first = await open();
      first.call.write({ create_request: { key: Buffer.from('/k'), range_end: Buffer.from('/l'), start_revision: 10, progress_notify: true, prev_kv: true, watch_id: 1 } });
      await until(() => first.messages.length === 3, 'three answers');
      expect(first.messages.map((m) => [m.watch_id, m.header?.revision, m.events[0]!.kv.value.length, m.events[0]!.kv.value[0]])).toEqual([
        [1, 10, 3_000, 10],
        [1, 11, 3_000, 11],
        [1, 12, 3_000, 12],
      ]);
      expect(sawHeaders![':path']).toBe('/etcdserverpb.Watch/Watch');
      expect(sawHeaders!.hasleader).toBe('true');
      expect(sawHeaders!['grpc-timeout']).toBeUndefined();
      first.call.write({ cancel_request: { watch_id: 1 } });
      first.call.write({ progress_request: {} });
      await until(() => requests.length === 3, 'three requests');
      expect(requests).toEqual([
        { requestUnion: 'createRequest', createRequest: { key: Buffer.from('/k'), rangeEnd: Buffer.from('/l'), startRevision: 10, progressNotify: true, prevKv: true, watchId: 1 } },
        { requestUnion: 'cancelRequest', cancelRequest: { watchId: 1 } },
        { requestUnion: 'progressRequest', progressRequest: {} },
      ]);
      finishWith!({ 'grpc-status': '0' });
      expect(await first.ended).toBe('end');

      requests = [];
      const second = await open();
      second.call.write({ progress_request: {} });
      await until(() => requests.length === 1, 'one request');
      finishWith!({ 'grpc-status': '14', 'grpc-message': 'etcdserver: no leader' });
      expect(await second.ended).toBe('14 UNAVAILABLE: etcdserver: no leader');
    } finally {
      server.close();
    }
  });

  test('nobody listening: "No connection established", NOT_SENT', async () => {
    const closed = await peer(() => undefined);
    const endpoint = closed.endpoint;
    await closed.close();
    const err = await channel(endpoint).call('/x/Y', request, soon()).catch((e: Error) => e);
    expect(err).toBeInstanceOf(GRPCUnavailableError);
    expect((err as Error).message).toMatch(/^14 UNAVAILABLE: No connection established\. Last error: .*ECONNREFUSED/);
    expect(neverSent(err)).toBe(true);
  });

  test('a listener that never speaks HTTP/2: nothing is written, the deadline passes NOT_SENT', async () => {
    const received: Buffer[] = [];
    const silent = net.createServer((socket) => socket.on('data', (d) => received.push(d)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const err = await channel(endpoint).call('/x/Y', request, soon(300)).catch((e: Error) => e);
      expect(err).toBeInstanceOf(GRPCDeadlineExceededError);
      expect(neverSent(err)).toBe(true);
      // The client's preface went out, never the request's frame.
      expect(Buffer.concat(received).includes(request)).toBe(false);
    } finally {
      silent.close();
    }
  });
});
