/**
 * Issue 18 item 2: what one connection may hold (apiserver/server/http-server-limits.ts, kube's
 * http.Server numbers): 1 MiB of request line plus headers (431 past it, the URL included), the headers
 * within the headers timeout (a client dribbling them is cut), the whole request within the request
 * timeout (a client dribbling a body is cut), the TLS handshake within its timeout, and an idle keep-alive
 * connection closed after the idle timeout. The timeouts are shortened for the test; each case awaits the
 * server closing the socket and checks it happened after the timeout, not before.
 */
import { connect as netConnect } from 'node:net';
import { defaultHttpServerLimits } from '../../../apiserver/server/http-server-limits.js';
import { memoryBackend } from './fixtures.js';
import { openTls, rawExchange, rawJson, type Target } from './raw-client.js';
import type { TestApi } from '../../http/helpers.js';

const limits = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, idleTimeoutMs: 1_500, handshakeTimeoutMs: 1_000, checkIntervalMs: 100 };

const b = memoryBackend();
afterAll(() => b.stop());

let api: TestApi;
beforeAll(async () => {
  api = await b.start({}, { httpLimits: limits });
});

const target = (): Target => api;

/** Resolves with the milliseconds until `socket` closes, and what it received. */
function untilClosed(socket: NodeJS.ReadWriteStream & { on(e: 'close', f: () => void): unknown }): Promise<{ ms: number; text: string }> {
  const t0 = performance.now();
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    socket.on('close', () => resolve({ ms: performance.now() - t0, text: Buffer.concat(chunks).toString('latin1') }));
    (socket as unknown as { on(e: 'error', f: () => void): void }).on('error', () => undefined);
  });
}

describe('header bytes (1 MiB, as kube)', () => {
  const get = (extra: string, path = '/version') => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\n${extra}Connection: close\r\n\r\n`;

  it('the default is kube\'s MaxHeaderBytes', () => {
    expect(defaultHttpServerLimits.maxHeaderBytes).toBe(1 << 20);
  });

  it('headers just under 1 MiB are served', async () => {
    const res = await rawExchange(target(), get(`X-Pad: ${'a'.repeat((1 << 20) - 4096)}\r\n`));
    expect(res.status).toBe(200);
  });

  it('headers over 1 MiB: 431 and the connection closed', async () => {
    const res = await rawExchange(target(), get(`X-Pad: ${'a'.repeat(1 << 20)}\r\n`));
    expect(res.status).toBe(431);
  });

  it('many small headers over 1 MiB in all: 431', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => `X-H${i}: ${'b'.repeat(50)}\r\n`).join('');
    expect((await rawExchange(target(), get(many))).status).toBe(431);
  });

  it('more than 2,000 headers within 1 MiB are all read (none silently dropped): the last one authenticates', async () => {
    const many = Array.from({ length: 5_000 }, (_, i) => `X-H${i}: 1\r\n`).join('');
    const res = await rawExchange(target(), `GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n${many}Authorization: Bearer ${api.token}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(200);
  });

  it('a URL over 1 MiB counts as header bytes: 431 (Go: the request line is in MaxHeaderBytes)', async () => {
    const res = await rawExchange(target(), get('', `/api/v1/configmaps?labelSelector=${'a'.repeat(1 << 20)}`));
    expect(res.status).toBe(431);
  });

  it.each([
    ['labelSelector', `${'a,'.repeat(400_000)}a`, 'labelSelector: Too many: 400001: must have at most 1000 requirements'],
    ['fieldSelector', 'metadata.name!=a,'.repeat(50_000), 'fieldSelector: Too many: 50000: must have at most 1000 requirements'],
  ])('a URL under 1 MiB with a huge %s: a 400 answered quickly, not a stall', async (param, value, message) => {
    const t0 = performance.now();
    const res = await rawExchange(target(), get('', `/api/v1/configmaps?${param}=${value}&watch=${param === 'fieldSelector'}`));
    expect([res.status, rawJson(res.text).message]).toEqual([400, message]);
    expect(performance.now() - t0).toBeLessThan(3_000);
  });
});

describe('slowloris', () => {
  it('a client dribbling its headers is cut after the headers timeout', async () => {
    const socket = await openTls(target());
    const closed = untilClosed(socket);
    socket.write('GET /version HTTP/1.1\r\nHost: x\r\n');
    // One more header line every 200 ms: never finishing the headers.
    const timer = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 200);
    const { ms, text } = await closed;
    clearInterval(timer);
    expect(ms).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
    expect(ms).toBeLessThan(limits.headersTimeoutMs + 3_000);
    expect(text).toMatch(/^(HTTP\/1\.1 408|$)/);
  });

  it('a connection that sends nothing after the handshake is cut after the headers timeout', async () => {
    const socket = await openTls(target());
    const { ms } = await untilClosed(socket);
    expect(ms).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
    expect(ms).toBeLessThan(limits.headersTimeoutMs + 3_000);
  });

  it('a client dribbling a body is cut after the request timeout', async () => {
    const socket = await openTls(target());
    const closed = untilClosed(socket);
    socket.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
    const timer = setInterval(() => socket.writable && socket.write(' '), 200);
    const { ms } = await closed;
    clearInterval(timer);
    expect(ms).toBeGreaterThanOrEqual(limits.requestTimeoutMs - 50);
    expect(ms).toBeLessThan(limits.requestTimeoutMs + 3_000);
  });

  it('a TCP connection that never finishes the TLS handshake is dropped after the handshake timeout', async () => {
    const { hostname, port } = new URL(api.url);
    const socket = netConnect({ host: hostname, port: Number(port) });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const closed = untilClosed(socket);
    socket.write(Buffer.from([0x16, 0x03, 0x01])); // the start of a ClientHello, never finished
    const { ms } = await closed;
    expect(ms).toBeGreaterThanOrEqual(limits.handshakeTimeoutMs - 50);
    expect(ms).toBeLessThan(limits.handshakeTimeoutMs + 3_000);
  });

  it('an idle keep-alive connection is closed after the idle timeout, an active one is not', async () => {
    const socket = await openTls(target());
    const closed = untilClosed(socket);
    const responses: number[] = [];
    let seen = 0;
    socket.on('data', (c: Buffer) => {
      const n = (c.toString('latin1').match(/HTTP\/1\.1 200/g) ?? []).length;
      seen += n;
      for (let i = 0; i < n; i++) responses.push(performance.now());
    });
    const request = `GET /version HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\n\r\n`;
    // Three requests 1 s apart (each gap under the idle timeout) keep it open...
    for (let i = 0; i < 3; i++) {
      socket.write(request);
      const want = i + 1;
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (seen >= want) {
            clearInterval(check);
            resolve();
          }
        }, 10);
      });
      if (i < 2) await new Promise((r) => setTimeout(r, 1_000));
    }
    // ...then silence: closed one idle timeout after the last response.
    const { ms } = await closed;
    const idle = performance.now() - responses[2]!;
    expect(seen).toBe(3);
    expect(ms).toBeGreaterThan(2_000);
    expect(idle).toBeGreaterThanOrEqual(limits.idleTimeoutMs - 100);
    expect(idle).toBeLessThan(limits.idleTimeoutMs + 3_000);
  });
});

it('the server still answers', async () => {
  expect((await rawExchange(target(), 'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(200);
});

describe('an HTTP CONNECT request', () => {
  it('is a 405 MethodNotAllowed Status and the connection closed, whatever the path (Node closed the socket unanswered)', async () => {
    for (const path of ['127.0.0.1:443', '/api/v1/namespaces/default/configmaps']) {
      const res = await rawExchange(target(), `CONNECT ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\n\r\n`);
      expect({ path, status: res.status }).toEqual({ path, status: 405 });
      expect(rawJson(res.text)).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    }
  });
});
