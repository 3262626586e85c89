/**
 * Planned restarts invisible to clients (issue 17), on a real server with the built-in API: during the
 * shutdown delay `/readyz` fails while requests are still served with `Connection: close`; when the delay
 * ends, open watches end cleanly (terminating chunk, then the socket closes), new requests get 429 +
 * Retry-After + `Connection: close`, and in-flight requests finish.
 */
import { Agent, request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { readFileSync } from 'node:fs';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import type { AdmissionPlugin } from '../../apiserver/admission/plugin.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { eventually, httpsRequest, startTestServer, stopAll, tempDir, type HttpResult } from './helpers.js';

afterEach(stopAll);

/** An admission plugin that holds creates of ConfigMaps named `held-*` until released: an in-flight write. */
function holdingPlugin() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  let entered: () => void = () => undefined;
  const enteredPromise = new Promise<void>((r) => (entered = r));
  const plugin: AdmissionPlugin = {
    name: 'HoldForTest',
    operations: ['CREATE'],
    async validate(a) {
      if (a.resource.resource !== 'configmaps' || !a.name.startsWith('held-')) return;
      entered();
      await released;
    },
  };
  return { plugin, release, entered: enteredPromise };
}

async function start(overrides: Record<string, unknown> = {}, plugins: AdmissionPlugin[] = []) {
  const dataDir = tempDir();
  const server = await startTestServer({ dataDir, ...overrides }, { admissionPlugins: () => plugins });
  const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
  const get = (path: string, o: { method?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> =>
    httpsRequest(`${server.url}${path}`, { ca: server.caPem!, token, ...o });
  return { server, token, get };
}

/** A raw HTTP/1.1 exchange on one TLS socket: the bytes exactly as sent, and when the server ended the socket. */
interface RawExchange {
  readonly socket: TLSSocket;
  /** Everything received so far. */
  text(): string;
  /** Resolves when `pattern` appears in what was received. */
  waitFor(pattern: RegExp): Promise<void>;
  /**
   * Resolves once the socket closed: what was received, whether the server closed its side (FIN), and how
   * long after the last bytes arrived that FIN came.
   */
  readonly closed: Promise<{ text: string; endedByServer: boolean; finAfterLastDataMs: number }>;
}

async function rawExchange(server: RunningServer, requestText: string): Promise<RawExchange> {
  const url = new URL(server.url);
  const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.caPem!, servername: 'localhost' });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', () => resolve()).once('error', reject));
  let received = '';
  let endedByServer = false;
  let lastDataAt = 0;
  let endAt = 0;
  const waiters: (() => void)[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => {
    received += c;
    lastDataAt = performance.now();
    waiters.splice(0).forEach((w) => w());
  });
  socket.on('end', () => {
    endedByServer = true;
    endAt = performance.now();
    waiters.splice(0).forEach((w) => w());
  });
  socket.on('error', () => undefined);
  const closed = new Promise<{ text: string; endedByServer: boolean; finAfterLastDataMs: number }>((resolve) =>
    socket.once('close', () => resolve({ text: received, endedByServer, finAfterLastDataMs: endAt - lastDataAt })));
  socket.write(requestText);
  return {
    socket,
    text: () => received,
    async waitFor(pattern) {
      while (!pattern.test(received)) {
        if (socket.destroyed || endedByServer) throw new Error(`socket ended before ${pattern}: ${received}`);
        await new Promise<void>((r) => waiters.push(r));
      }
    },
    closed,
  };
}

/** Decodes a chunked body; throws unless it is complete (ends with the zero-size chunk and nothing after). */
function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const m = /^([0-9a-fA-F]+)\r\n/.exec(rest);
    if (m === null) throw new Error(`broken chunked stream at: ${JSON.stringify(rest.slice(0, 80))}`);
    const size = parseInt(m[1]!, 16);
    rest = rest.slice(m[0].length);
    if (size === 0) {
      if (rest !== '\r\n') throw new Error(`bytes after the terminating chunk: ${JSON.stringify(rest)}`);
      return out;
    }
    // ASCII-only JSON in these tests: characters are bytes.
    out += rest.slice(0, size);
    if (rest.slice(size, size + 2) !== '\r\n') throw new Error('chunk not followed by CRLF');
    rest = rest.slice(size + 2);
  }
}

function splitResponse(text: string): { head: string; body: string } {
  const at = text.indexOf('\r\n\r\n');
  return { head: text.slice(0, at), body: text.slice(at + 4) };
}

/** A JSON POST on a fresh connection. */
function post(server: RunningServer, token: string, path: string, body: unknown): Promise<HttpResult> {
  const data = JSON.stringify(body);
  return httpsRequest(`${server.url}${path}`, {
    method: 'POST',
    ca: server.caPem!,
    token,
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(data)) },
    body: data,
  });
}

const watchRequest = (token: string, path = '/api/v1/namespaces?watch=true'): string =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nConnection: keep-alive\r\n\r\n`;

describe('graceful shutdown of a replica behind a load balancer', () => {
  it('fails /readyz first while requests are still served with Connection: close, and closes keep-alive sockets', async () => {
    // The delay only has to outlast the requests of this phase; generous so a loaded machine does not flake.
    const { server, token } = await start({ shutdownDelayMs: 5000, shutdownTimeoutMs: 5000 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem! });
    const viaAgent = (path: string) => new Promise<HttpResult & { reused: boolean; socketClosed: Promise<void> }>((resolve, reject) => {
      const req = request(`${server.url}${path}`, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        const socket = res.socket;
        const socketClosed = socket.destroyed ? Promise.resolve() : new Promise<void>((r) => socket.once('close', () => r()));
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), reused: req.reusedSocket, socketClosed }));
      });
      req.on('error', reject);
      req.end();
    });
    try {
      // Before shutdown: a keep-alive socket, left idle in the agent.
      const before = await viaAgent('/api/v1/namespaces/default');
      expect(before.status).toBe(200);
      expect(before.headers['connection']).toBe('keep-alive');

      const closed = server.close();
      expect(server.lifecycle).toMatchObject({ shutdownInitiated: true, notAcceptingNewRequest: false });
      const ready = await httpsRequest(`${server.url}/readyz`, { ca: server.caPem! });
      expect(ready.status).toBe(503);
      expect(ready.body).toBe('[+]ping ok\n[+]etcd ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n');
      expect((await httpsRequest(`${server.url}/livez`, { ca: server.caPem! })).status).toBe(200);

      // The idle keep-alive socket is not cut under the client: a request on it is served, then it closes.
      const onIdle = await viaAgent('/api/v1/namespaces/default');
      expect(onIdle.reused).toBe(true);
      expect(onIdle.status).toBe(200);
      expect(JSON.parse(onIdle.body)).toMatchObject({ kind: 'Namespace', metadata: { name: 'default' } });
      expect(onIdle.headers['connection']).toBe('close');
      await onIdle.socketClosed;
      // A write on a new connection during the delay succeeds too, with Connection: close.
      const created = await post(server, token, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'during-delay' } });
      expect(created.status).toBe(201);
      expect(created.headers['connection']).toBe('close');
      expect(server.lifecycle.notAcceptingNewRequest).toBe(false);
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('ends open watches cleanly when the delay ends, refuses new ones with 429, and lets in-flight writes finish', async () => {
    const held = holdingPlugin();
    const { server, token, get } = await start({ shutdownDelayMs: 3000, shutdownTimeoutMs: 20_000 }, [held.plugin]);

    // A watch open before shutdown (headers sent with keep-alive) and a write held in admission.
    const early = await rawExchange(server, watchRequest(token));
    await early.waitFor(/"name":"default"/);
    expect(splitResponse(early.text()).head).not.toMatch(/connection: close/i);
    const heldWrite = post(server, token, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held-1' } });
    await held.entered;

    const closed = server.close();
    // A watch opened during the delay is served (with Connection: close) and ends with the others.
    const during = await rawExchange(server, watchRequest(token));
    await during.waitFor(/"name":"default"/);
    expect(splitResponse(during.text()).head).toMatch(/\r\nConnection: close/i);

    await eventually(async () => server.lifecycle.notAcceptingNewRequest, 'the shutdown delay to elapse', 15_000);
    // Open watches: a complete chunked body (ADDED events, terminating chunk), then the server closes the socket.
    for (const watch of [early, during]) {
      const { text, endedByServer, finAfterLastDataMs } = await watch.closed;
      expect(endedByServer).toBe(true);
      // Right after the terminating chunk, not when the idle socket would time out (Node's 5 s keep-alive).
      expect(finAfterLastDataMs).toBeLessThan(2000);
      const { head, body } = splitResponse(text);
      expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(head).toMatch(/\r\nTransfer-Encoding: chunked/i);
      const events = dechunk(body).trim().split('\n').map((l) => JSON.parse(l));
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.type === 'ADDED')).toBe(true);
    }

    // New requests are refused: watches and plain requests alike, as kube's WithRetryAfter answers.
    for (const path of ['/api/v1/namespaces?watch=true', '/api/v1/namespaces']) {
      const refused = await get(path);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['connection']).toBe('close');
      expect(refused.body).toBe('The apiserver is shutting down, please try again later.\n');
    }
    // A watch on a raw socket: the 429, then the socket closes.
    const late = await rawExchange(server, watchRequest(token));
    const lateEnd = await late.closed;
    expect(lateEnd.endedByServer).toBe(true);
    expect(lateEnd.text).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
    expect(lateEnd.text).toMatch(/\r\nRetry-After: 5\r\n/i);
    expect(lateEnd.text).toMatch(/\r\nConnection: close\r\n/i);
    // Health probes and metrics are still served.
    expect((await get('/readyz')).status).toBe(503);
    expect((await get('/livez')).status).toBe(200);
    expect((await get('/metrics')).status).toBe(200);

    // The write held in admission since before the shutdown still completes.
    expect(server.lifecycle.inFlightRequestsDrained).toBe(false);
    held.release();
    const written = await heldWrite;
    expect(written.status).toBe(201);
    expect(written.headers['connection']).toBe('close');
    expect(JSON.parse(written.body)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'held-1' } });
    await closed;
    expect(server.lifecycle.inFlightRequestsDrained).toBe(true);
  });

  it('with --shutdown-send-retry-after=false closes the listener when the delay ends (kube\'s default)', async () => {
    const held = holdingPlugin();
    const { server, token } = await start({ shutdownDelayMs: 0, shutdownSendRetryAfter: false }, [held.plugin]);
    const heldWrite = post(server, token, '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held-2' } });
    await held.entered;
    const closed = server.close();
    await eventually(async () => server.lifecycle.notAcceptingNewRequest, 'the shutdown delay to elapse');
    await expect(httpsRequest(`${server.url}/readyz`, { ca: server.caPem! })).rejects.toThrow(/ECONNREFUSED/);
    held.release();
    expect((await heldWrite).status).toBe(201);
    await closed;
  });
});
