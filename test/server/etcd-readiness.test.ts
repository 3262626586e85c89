import { readFileSync } from 'node:fs';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { etcdAvailable, startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { eventually, httpsRequest, startTestServer, stopAll, tempDir } from './helpers.js';

// Locally without etcd the suite is skipped; under CI a missing etcd makes startEtcd() throw: a failure.
const describeEtcd = etcdAvailable() || process.env['CI'] !== undefined ? describe : describe.skip;

describeEtcd('readiness over a real etcd', () => {
  let etcd: EtcdCluster | undefined;

  afterAll(async () => {
    await stopAll();
    await etcd?.stop();
  });

  it('reports /readyz 503 while etcd is down and recovers by itself when it is back', async () => {
    etcd = await startEtcd();
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir, storage: { backend: 'etcd', endpoints: etcd.endpoints }, compactionIntervalMs: 60_000 });
    const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
    const readyz = () => httpsRequest(`${server.url}/readyz?verbose`, { ca: server.caPem! });

    expect(await readyz()).toMatchObject({ status: 200, body: '[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n' });
    expect((await httpsRequest(`${server.url}/api/v1/limitranges`, { ca: server.caPem!, token })).status).toBe(404);

    const member = etcd.members[0]!;
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
});
