/**
 * The resourceVersion tables of get and list (spec "Resource version semantics for get and list"), row by
 * row, on both backends, as served with the watch cache: Most Recent (a consistent read), Any, Not older
 * than (waiting for the cache, 504 beyond it), Exact (the store at that revision, 410 once compacted), and
 * the continue-token rows. On etcd, two replicas on one store behave as one server: read-your-writes
 * across replicas, and a list on one followed by a watch on the other loses and repeats nothing.
 */
import { backends, createNamespace, describeBackends, stopBackends, type TestApi } from './helpers.js';
import { openWatch, type WatchStream } from './watch-client.js';

const all = backends();
/** On etcd, the replicas of the last block share this storage prefix. */
const sharedPrefix = `/registry-rv-${process.pid}`;
afterAll(() => stopBackends(all));

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });
const names = (body: any): string[] => (body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name);

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  let path: string;
  let rv1: string;
  let rv2: string;
  beforeAll(async () => {
    api = await b.start(b.name === 'etcd' ? { storagePrefix: sharedPrefix } : {});
    ns = await createNamespace(api);
    path = `/api/v1/namespaces/${ns}/configmaps`;
    rv1 = (await api.request('POST', path, { body: cm('a') })).json().metadata.resourceVersion;
    rv2 = (await api.request('POST', path, { body: cm('b') })).json().metadata.resourceVersion;
  });
  const get = (query: Record<string, string>, p = path) => api.request('GET', p, { query });

  describe('get', () => {
    it('unset (Most Recent) and N (Not older than N) see the write that answered N', async () => {
      for (const query of [{}, { resourceVersion: rv2 }] as Record<string, string>[]) {
        const res = await get(query, `${path}/b`);
        expect(res.status).toBe(200);
        expect(res.json().metadata.resourceVersion).toBe(rv2);
      }
    });

    it('0 (Any) and an older N are served from the cache, which may lag: once it caught up they see the object', async () => {
      await get({}); // a Most Recent list returns only once the cache has caught up with the store
      for (const query of [{ resourceVersion: '0' }, { resourceVersion: rv1 }]) {
        const res = await get(query, `${path}/b`);
        expect(res.status).toBe(200);
        expect(res.json().metadata.resourceVersion).toBe(rv2);
      }
    });

    it('the latest write is visible to a Most Recent read at once', async () => {
      const made = (await api.request('PATCH', `${path}/a`, { body: { data: { k: 'new' } } })).json();
      const res = await get({}, `${path}/a`);
      expect(res.json().metadata.resourceVersion).toBe(made.metadata.resourceVersion);
      const notOlder = await get({ resourceVersion: made.metadata.resourceVersion }, `${path}/a`);
      expect(notOlder.json().data).toEqual({ k: 'new' });
    });

    it('a resourceVersion not reached is 504 Too large resource version', async () => {
      const res = await get({ resourceVersion: '999999999' }, `${path}/a`);
      expect(res.status).toBe(504);
      expect(res.json().message).toMatch(/^Timeout: Too large resource version: 999999999, current: \d+$/);
    });

    it('a missing object is 404 from the cache too', async () => {
      expect((await get({ resourceVersion: '0' }, `${path}/nope`)).status).toBe(404);
    });
  });

  describe('list', () => {
    it('unset, no limit: Most Recent, the collection revision at least the last write', async () => {
      const res = await get({});
      expect(names(res.json())).toEqual(['a', 'b']);
      expect(Number(res.json().metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv2));
    });

    it('unset with limit: Most Recent, paged from the store', async () => {
      const res = await get({ limit: '1' });
      expect(names(res.json())).toEqual(['a']);
      expect(res.json().metadata.continue).toEqual(expect.any(String));
      const next = await get({ limit: '1', continue: res.json().metadata.continue });
      expect(names(next.json())).toEqual(['b']);
      expect(next.json().metadata.resourceVersion).toBe(res.json().metadata.resourceVersion);
    });

    it.each([
      ['0, no limit (Any)', { resourceVersion: '0' }],
      ['0 with limit (Any; the cache answers whole)', { resourceVersion: '0', limit: '1' }],
      ['0, NotOlderThan', { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }],
    ])('resourceVersion %s', async (_l, query) => {
      await get({}); // Any may lag: let the cache catch up first (a Most Recent list waits for it)
      const res = await get(query as Record<string, string>);
      expect(res.status).toBe(200);
      expect(names(res.json())).toEqual(['a', 'b']);
      expect(res.json().metadata.continue).toBeUndefined();
    });

    it.each([
      ['N, no limit (Not older than)', {}],
      ['N, NotOlderThan', { resourceVersionMatch: 'NotOlderThan' }],
      ['N, NotOlderThan with limit', { resourceVersionMatch: 'NotOlderThan', limit: '10' }],
    ])('resourceVersion %s: at least N, with the items of now', async (_l, query) => {
      await get({});
      const res = await get({ resourceVersion: rv1, ...(query as Record<string, string>) });
      expect(res.status).toBe(200);
      expect(names(res.json())).toEqual(['a', 'b']);
      expect(Number(res.json().metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(rv2));
    });

    it.each([
      ['N with limit (Exact)', { limit: '10' }],
      ['N, Exact', { resourceVersionMatch: 'Exact' }],
      ['N, Exact with limit', { resourceVersionMatch: 'Exact', limit: '10' }],
    ])('resourceVersion %s: the collection exactly at N', async (_l, query) => {
      const res = await get({ resourceVersion: rv1, ...(query as Record<string, string>) });
      expect(res.status).toBe(200);
      expect(res.json().metadata.resourceVersion).toBe(rv1);
      expect(names(res.json())).toEqual(['a']);
    });

    it('Not older than a version not reached is 504 after waiting', async () => {
      const res = await get({ resourceVersion: '999999999', resourceVersionMatch: 'NotOlderThan' });
      expect(res.status).toBe(504);
      expect(res.headers['retry-after']).toBe('1');
    });

    it('Exact at a compacted revision is 410 Expired; Not older than it still works', async () => {
      const scratch = await createNamespace(api);
      const p = `/api/v1/namespaces/${scratch}/configmaps`;
      const old = (await api.request('POST', p, { body: cm('x') })).json().metadata.resourceVersion;
      const latest = (await api.request('POST', p, { body: cm('y') })).json().metadata.resourceVersion;
      await api.server.store.compact(Number(latest));
      const exact = await get({ resourceVersion: old, resourceVersionMatch: 'Exact' }, p);
      expect(exact.status).toBe(410);
      expect(exact.json()).toMatchObject({ reason: 'Expired', message: 'The resourceVersion for the provided watch/list is too old.' });
      await get({}, p); // Not older than `old` may be served before the cache has y: let it catch up
      const notOlder = await get({ resourceVersion: old }, p);
      expect(notOlder.status).toBe(200);
      expect(names(notOlder.json())).toEqual(['x', 'y']);
    });
  });

  if (b.name === 'etcd') {
    describe('two replicas on one etcd', () => {
      let other: TestApi;
      const watches: WatchStream[] = [];
      beforeAll(async () => {
        other = await b.start({ storagePrefix: sharedPrefix });
      });
      afterAll(() => {
        for (const w of watches) w.close();
      });

      it('a write acknowledged by one replica is seen by a Most Recent list and watch on the other at once', async () => {
        for (let i = 0; i < 20; i++) {
          const made = (await api.request('POST', path, { body: cm(`ryw-${i}`) })).json();
          const list = await other.request('GET', path);
          expect(names(list.json())).toContain(`ryw-${i}`);
          expect(Number(list.json().metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(made.metadata.resourceVersion));
        }
      });

      it('a list on one replica then a watch from its resourceVersion on the other loses and repeats nothing', async () => {
        const listed = (await api.request('GET', path)).json();
        const writes: Promise<unknown>[] = [];
        for (let i = 0; i < 30; i++) writes.push(api.request('POST', path, { body: cm(`lw-${i}`) }));
        const w = await openWatch(other, path, { resourceVersion: listed.metadata.resourceVersion });
        watches.push(w);
        expect(w.status).toBe(200);
        await Promise.all(writes);
        const seen: string[] = [];
        while (seen.length < 30) seen.push((await w.next()).object.metadata.name);
        expect([...seen].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `lw-${i}`).sort());
        const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
        expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
        expect(rvs[0]).toBeGreaterThan(Number(listed.metadata.resourceVersion));
      });
    });
  }
});

