/**
 * The property client-node 1.4's informer depends on (it re-lists after a 410 without any backoff): after a
 * compaction, a re-list hands out a resourceVersion that the next watch accepts — at most one refused watch
 * per compaction, however the list is asked (unset, `0`, `0` with a limit, NotOlderThan). The resource is
 * quiet while other resources advance the store's revision, so the watch cache's revision lags the
 * compacted one until it learns of the compaction (server fix: storage/cache/watch-cache.ts `knownCompacted`).
 */
import { backends, createNamespace, describeBackends, stopBackends } from '../http/helpers.js';
import { openWatch } from '../http/watch-client.js';

const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  it.each([
    ['unset', {}, 0],
    ['0', { resourceVersion: '0' }, 1],
    ['0 with limit=500 (kubectl wait)', { resourceVersion: '0', limit: '500' }, 1],
    ['NotOlderThan 1', { resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' }, 1],
  ])('list %s, then watch from its resourceVersion: refused at most once after a compaction', async (_label, query, maxRefused) => {
    const api = await b.start();
    const ns = await createNamespace(api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await api.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
    expect(created.status).toBe(201);
    // Warm the cache's list path, then move the store's revision on elsewhere and compact all of it.
    expect((await api.request('GET', path, { query: { resourceVersion: '0' } })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const s = await api.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } } });
      expect(s.status).toBe(201);
    }
    const compactedTo = await api.server.store.currentRevision();
    await api.server.store.compact(compactedTo);

    const refused: string[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      const list = await api.request('GET', path, { query: query as Record<string, string> });
      expect(list.status).toBe(200); // at `0` (Any) its items may be older than the create: not compared
      const rv = list.json().metadata.resourceVersion;
      const w = await openWatch(api, path, { resourceVersion: rv });
      w.close();
      if (w.status === 200) break;
      expect(w.status).toBe(410);
      refused.push(rv);
    }
    expect(refused.length).toBeLessThanOrEqual(maxRefused);
    const last = await api.request('GET', path, { query: query as Record<string, string> });
    expect(Number(last.json().metadata.resourceVersion)).toBeGreaterThanOrEqual(compactedTo);
    expect(last.json().items.map((o: any) => o.metadata.name)).toEqual(['x']);
  });
});
