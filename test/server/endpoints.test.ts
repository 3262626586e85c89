import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { withDeadline } from '../../apiserver/endpoints/health-check.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { httpsRequest, startTestServer, stopAll } from './helpers.js';

let server: RunningServer;
const get = (path: string, token?: string) => httpsRequest(`${server.url}${path}`, { ca: server.caPem!, ...(token === undefined ? {} : { token }) });

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(stopAll);

describe('health endpoints (no credentials needed)', () => {
  it.each(['/livez', '/readyz', '/healthz'])('%s answers plain-text ok', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.body).toBe('ok');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('lists every check with ?verbose', async () => {
    expect((await get('/livez?verbose')).body).toBe('[+]ping ok\nlivez check passed\n');
    expect((await get('/readyz?verbose')).body).toBe('[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n');
    expect((await get('/healthz?verbose')).body).toBe('[+]ping ok\n[+]etcd ok\nhealthz check passed\n');
  });

  it('skips excluded checks', async () => {
    expect((await get('/readyz?verbose&exclude=etcd')).body).toBe('[+]ping ok\n[+]shutdown ok\n[+]etcd excluded: ok\nreadyz check passed\n');
  });

  it('runs one check at /<endpoint>/<name> (not public: system:monitoring), 404 for an unknown one', async () => {
    // Only the roots are public (system:public-info-viewer); the single checks are for system:monitoring.
    expect(await get('/readyz/etcd')).toMatchObject({ status: 403 });
    const token = readFileSync(adminTokenPath(dirname(server.kubeconfigPath!)), 'utf8').trim();
    expect(await get('/readyz/etcd', token)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get('/readyz/shutdown', token)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get('/livez/ping', token)).toMatchObject({ status: 200, body: 'ok' });
    const missing = await get('/readyz/nope', token);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });
});

describe('/version', () => {
  it('reports Kubernetes 1.32 in version.Info shape without credentials', async () => {
    const res = await get('/version?timeout=5s');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const info = JSON.parse(res.body) as Record<string, string>;
    expect(Object.keys(info)).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
    expect(info).toMatchObject({ major: '1', minor: '32', compiler: 'tsc', goVersion: `node${process.versions.node}` });
    expect(info['gitVersion']).toMatch(/^v1\.32\./);
    expect(info['buildDate']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(info['platform']).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
    if (process.platform === 'linux' && process.arch === 'x64') expect(info['platform']).toBe('linux/amd64');
  });
});

describe('health check deadline', () => {
  it('fails a check that does not answer in time, and shares one run between concurrent probes', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const check = withDeadline('slow', 50, () => {
      runs++;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const probes = [check.check(), check.check()];
    await expect(Promise.all(probes)).rejects.toThrow('slow check timed out after 50 ms');
    expect(runs).toBe(1);
    release();
    await expect(withDeadline('fast', 1000, async () => undefined).check()).resolves.toBeUndefined();
  });
});
