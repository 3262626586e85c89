import { readFileSync } from 'node:fs';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { etcdAvailable, startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { eventually, httpsRequest, startTestServer, stopAll, tempDir, type HttpResult } from './helpers.js';

// Locally without etcd the suite is skipped; under CI a missing etcd makes startEtcd() throw: a failure.
const describeEtcd = etcdAvailable() || process.env['CI'] !== undefined ? describe : describe.skip;

/** The store's unreachable bound before /readyz fails (apiserver/server/store-readiness.ts), and its probe interval. */
const graceMs = 5000;
const probeIntervalMs = 1000;

describeEtcd('readiness over a real etcd', () => {
  let etcd: EtcdCluster | undefined;

  afterAll(async () => {
    await stopAll();
    await etcd?.stop();
  });

  async function startOverEtcd() {
    etcd ??= await startEtcd();
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir, storage: { backend: 'etcd', endpoints: etcd.endpoints }, compactionIntervalMs: 60_000 });
    const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
    const readyz = () => httpsRequest(`${server.url}/readyz?verbose`, { ca: server.caPem! });
    return { server, token, readyz };
  }

  it('reports /readyz 503 while etcd is down and recovers by itself when it is back', async () => {
    const { server, token, readyz } = await startOverEtcd();
    expect(await readyz()).toMatchObject({ status: 200, body: '[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n' });
    expect((await httpsRequest(`${server.url}/api/v1/limitranges`, { ca: server.caPem!, token })).status).toBe(404);

    const member = etcd!.members[0]!;
    await member.stop();
    await eventually(async () => (await readyz()).status === 503, '/readyz to fail with etcd stopped');
    const down = await readyz();
    expect(down.body).toBe('[+]ping ok\n[-]etcd failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n');
    expect((await httpsRequest(`${server.url}/readyz/etcd`, { ca: server.caPem!, token })).status).toBe(503);
    // Liveness does not depend on the store: restarting the server would not bring etcd back.
    expect((await httpsRequest(`${server.url}/livez`, { ca: server.caPem! })).status).toBe(200);

    await member.start();
    await eventually(async () => (await readyz()).status === 200, '/readyz to recover with etcd back');
    expect((await readyz()).body).toBe('[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n');
  });

  it('answers at once while etcd hangs, and fails only once it has been unreachable longer than an election', async () => {
    const { server, readyz } = await startOverEtcd();
    const member = etcd!.members[0]!;
    await eventually(async () => (await readyz()).status === 200, '/readyz to pass');
    // A hung member (SIGSTOP): connections stay open, nothing answers, every store call waits for its deadline.
    const pausedAt = performance.now();
    await member.pause();
    try {
      const timed: { at: number; took: number; res: HttpResult }[] = [];
      const probe = async (): Promise<HttpResult> => {
        const started = performance.now();
        const res = await readyz();
        timed.push({ at: started - pausedAt, took: performance.now() - started, res });
        return res;
      };
      await eventually(async () => (await probe()).status === 503, '/readyz to fail with etcd hung', 20_000);
      const failedAt = timed[timed.length - 1]!.at;
      // Green through an election-length blip: the last success was at most one probe interval before the
      // pause, so no failure comes before grace - interval.
      expect(timed.filter((t) => t.res.status === 503).every((t) => t.at >= graceMs - probeIntervalMs - 100)).toBe(true);
      expect(timed.some((t) => t.res.status === 200 && t.at >= 2500)).toBe(true);
      expect(failedAt).toBeLessThan(graceMs + 4000);
      // Never waiting on the hung store (kube's inline probe waits up to 2 s): loopback answers in milliseconds.
      expect(Math.max(...timed.map((t) => t.took))).toBeLessThan(500);
      expect(timed[timed.length - 1]!.res.body).toBe('[+]ping ok\n[-]etcd failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n');
      expect((await httpsRequest(`${server.url}/livez`, { ca: server.caPem! })).status).toBe(200);
    } finally {
      member.resume();
    }
    await eventually(async () => (await readyz()).status === 200, '/readyz to recover after SIGCONT', 15_000);
  });
});
