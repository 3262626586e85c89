import { request } from 'node:https';
import { PassThrough } from 'node:stream';
import { readFileSync } from 'node:fs';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import type { Filter } from '../../apiserver/request/request-state.js';
import { httpsRequest, memoryLogger, startTestServer, stopAll, tempDir } from './helpers.js';

afterEach(stopAll);

/** A controllable handler: `/slow` waits until released (or its signal aborts), `/stream?watch=true` streams until aborted. */
function testApi() {
  let entered: () => void = () => undefined;
  let enteredPromise = new Promise<void>((r) => (entered = r));
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  const aborted: string[] = [];
  const api: Filter = async function testApi(ctx, next) {
    if (ctx.path === '/slow') {
      const signal = ctx.state.signal;
      signal.addEventListener('abort', () => aborted.push('/slow'));
      entered();
      await Promise.race([released, new Promise((r) => signal.addEventListener('abort', r))]);
      if (signal.aborted) return; // the deadline or shutdown answered already
      ctx.body = { done: true };
      return;
    }
    if (ctx.path === '/stream') {
      expect(ctx.state.longRunning).toBe(true);
      const body = new PassThrough();
      ctx.type = 'application/json';
      ctx.body = body;
      body.write('{"type":"ADDED"}\n');
      ctx.state.signal.addEventListener('abort', () => {
        aborted.push('/stream');
        body.end();
      });
      entered();
      return;
    }
    if (ctx.path === '/boom') throw new Error('secret internals');
    await next();
  };
  return {
    api,
    aborted,
    release,
    /** Resolves when a handler was entered; re-armed for the next one. */
    async entered() {
      await enteredPromise;
      enteredPromise = new Promise<void>((r) => (entered = r));
    },
  };
}

async function start(t: ReturnType<typeof testApi>, overrides = {}) {
  const dataDir = tempDir();
  const server = await startTestServer({ dataDir, ...overrides }, { api: t.api });
  const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
  const get = (path: string, headers: Record<string, string> = {}) =>
    httpsRequest(`${server.url}${path}`, { ca: server.caPem!, token, headers });
  return { server, token, get };
}

describe('graceful shutdown', () => {
  it('fails /readyz at once, lets an in-flight request finish, then stops', async () => {
    const t = testApi();
    // The delay only has to outlast two loopback requests; it is generous so a slow machine does not flake.
    const { server, get } = await start(t, { shutdownDelayMs: 2000 });
    const inFlight = get('/slow');
    await t.entered();

    const closed = server.close();
    expect(server.shuttingDown).toBe(true);
    // During the shutdown delay the listener still serves, and readiness reports the shutdown.
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toBe('[+]ping ok\n[+]etcd ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n');
    expect(ready.headers['connection']).toBe('close');
    expect((await get('/livez')).status).toBe(200);

    t.release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ done: true });
    await closed;
    expect(t.aborted).toEqual([]);
    await expect(get('/livez')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('ends long-running requests at once through their signal', async () => {
    const t = testApi();
    const { server, token } = await start(t);
    const chunks: string[] = [];
    const ended = new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/stream?watch=true`, { ca: server.caPem!, agent: false, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => chunks.push(c));
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    await t.entered();
    await server.close();
    expect(await ended).toBe(200);
    expect(chunks.join('')).toBe('{"type":"ADDED"}\n');
    expect(t.aborted).toEqual(['/stream']);
  });

  it('cuts requests still running after the shutdown timeout', async () => {
    const t = testApi();
    const { server, get } = await start(t, { shutdownTimeoutMs: 200 });
    const inFlight = get('/slow').then(() => 'answered', (err: Error) => err.message);
    await t.entered();
    await server.close();
    expect(t.aborted).toEqual(['/slow']);
    expect(await inFlight).toMatch(/socket hang up|ECONNRESET/);
  });
});

describe('limits and errors', () => {
  it('answers 504 Timeout at the request deadline and aborts the handler signal', async () => {
    const t = testApi();
    const { get } = await start(t, { requestTimeoutMs: 100 });
    const res = await get('/slow');
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body)).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded', reason: 'Timeout',
      details: {}, code: 504,
    });
    expect(t.aborted).toEqual(['/slow']);
  });

  it('answers 429 with Retry-After over the in-flight limit, still serving health probes and system:masters', async () => {
    const t = testApi();
    // The max-in-flight filter (priority and fairness off); system:masters is exempt from it as in kube, so the
    // limited requests act as another user (impersonated by the admin, allowed everything).
    const started = await start(t, { maxRequestsInflight: 1, enablePriorityAndFairness: false, authorizationModes: ['AlwaysAllow'] });
    const { get } = started;
    const alice = { 'Impersonate-User': 'alice' };
    const first = get('/slow', alice);
    await t.entered();
    const second = await get('/api/v1/pods', alice);
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('1');
    expect(JSON.parse(second.body)).toMatchObject({ reason: 'TooManyRequests', code: 429, message: 'Too many requests, please try again later.' });
    expect((await get('/readyz')).status).toBe(200);
    expect((await get('/api/v1/pods')).status).toBe(404);
    // Mutating requests have their own budget.
    const { server, token } = started;
    const post = await httpsRequest(`${server.url}/api/v1/namespaces`, { ca: server.caPem!, token, method: 'POST', headers: alice });
    expect(post.status).toBe(404);
    t.release();
    expect((await first).status).toBe(200);
    expect((await get('/api/v1/pods', alice)).status).toBe(404);
  });

  it('answers 413 for a declared body over 3 MiB', async () => {
    const t = testApi();
    const { get } = await start(t);
    const res = await get('/api/v1/namespaces', { 'Content-Length': String(3 * 1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
  });

  it('turns an unexpected error into a 500 Status without internals, logging the error', async () => {
    const t = testApi();
    const { logger, lines } = memoryLogger();
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir }, { api: t.api, logger });
    const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
    const res = await httpsRequest(`${server.url}/boom`, { ca: server.caPem!, token, headers: { 'X-Request-Id': 'req-42' } });
    expect(res.status).toBe(500);
    expect(res.headers['audit-id']).toBe('req-42');
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500, message: 'Internal error occurred: unexpected server error (request id req-42)' });
    expect(res.body).not.toContain('secret internals');
    const logged = lines().map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(logged).toMatchObject({ level: 'error', requestId: 'req-42', err: { message: 'secret internals' } });
  });
});
