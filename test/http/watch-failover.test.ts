/**
 * A watch over HTTP across the loss of an etcd member (issue 4): a server on a 3-member etcd streams a
 * collection watch while writers create objects through the API and each member in turn is killed and
 * restarted, so the member serving the cache's store watch dies under it. The watch must deliver every acknowledged create exactly once, in resourceVersion order, with the
 * revision the create answered — the cache's store watch fails over and resumes from its last revision.
 */
import { readFileSync } from 'node:fs';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest } from './helpers.js';
import { openWatch, type WatchStream } from './watch-client.js';

describeEtcd('watch across the loss of an etcd member', () => {
  let cluster: EtcdCluster;
  let watch: WatchStream | undefined;
  beforeAll(async () => {
    cluster = await startEtcd({ members: 3 });
  });
  afterAll(async () => {
    watch?.close();
    await stopAll();
    await cluster?.stop();
  });

  test('every acknowledged create arrives once, in order, with its revision', async () => {
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir, storage: { backend: 'etcd', endpoints: [...cluster.endpoints] }, storagePrefix: '/failover' });
    const api = { url: server.url, ca: server.caPem!, token: readFileSync(adminTokenPath(dataDir), 'utf8').trim() };
    const path = '/api/v1/namespaces/default/configmaps';
    const listed = await apiRequest(api, 'GET', path);
    expect(listed.status).toBe(200);
    watch = await openWatch(api, path, { resourceVersion: listed.json().metadata.resourceVersion });
    expect(watch.status).toBe(200);

    // Each member in turn is killed and restarted while writes go on, so whichever member serves the
    // cache's watch stream dies under it once.
    let chaosDone = false;
    const acked = new Map<string, string>();
    let failures = 0;
    let next = 0;
    const until = async (n: number): Promise<void> => {
      while (acked.size < n) await new Promise((r) => setTimeout(r, 20));
    };
    const chaos = (async () => {
      for (const [i, member] of cluster.members.entries()) {
        await until(60 * (i + 1));
        await member.kill();
        await until(acked.size + 20);
        await member.start();
      }
      chaosDone = true;
    })();
    const worker = async (): Promise<void> => {
      while (!chaosDone || next < 300) {
        const name = `f-${String(next++).padStart(4, '0')}`;
        const res = await apiRequest(api, 'POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } }).catch(() => undefined);
        if (res?.status === 201) acked.set(name, res.json().metadata.resourceVersion);
        else failures += 1; // unacknowledged: may or may not have been applied
      }
    };
    await Promise.all([chaos, ...Array.from({ length: 8 }, worker)]);
    const total = next;
    expect(acked.size).toBeGreaterThan(200);

    // Everything the server has now, read after the writes: the watch must reach its newest revision.
    const final = (await apiRequest(api, 'GET', path)).json();
    const expected = new Map<string, string>(final.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]));
    for (const [name, rv] of acked) expect(expected.get(name)).toBe(rv);
    const seen = new Map<string, string>();
    while (seen.size < expected.size) {
      const e = await watch.next(60_000);
      expect(e.type).toBe('ADDED');
      expect(seen.has(e.object.metadata.name)).toBe(false);
      seen.set(e.object.metadata.name, e.object.metadata.resourceVersion);
    }
    expect(seen).toEqual(expected);
    const rvs = watch.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    expect(acked.size + failures).toBe(total);
  }, 120_000);
});
