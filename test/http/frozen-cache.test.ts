/**
 * The test suite serves frozen watch cache objects (PLATFORM_FREEZE_CACHE, set by the jest global set-up):
 * what a server's caches hand out to lists, gets and watchers is deep-frozen, including a view's converted
 * form (events.k8s.io Events over core events), so a handler that mutates one fails the test that runs it.
 */
import type { ServedResources } from '../../apiserver/registry/served-resources.js';
import { backends, describeBackends, stopBackends, type TestApi } from './helpers.js';

const all = backends();

describeBackends(all, (b) => {
  let api: TestApi;
  let resources: ServedResources | undefined;
  beforeAll(async () => {
    api = await b.start({}, {
      admissionPlugins: (r) => {
        resources = r;
        return [];
      },
    });
  });

  it('lists from the cache hand out deep-frozen objects; the HTTP answers are unchanged', async () => {
    const created = await api.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'frozen', labels: { a: 'b' } }, data: { k: 'v' } },
    });
    expect(created.status).toBe(201);
    const rv = created.json().metadata.resourceVersion as string;
    const cache = resources!.lookup('', 'v1', 'configmaps')!.registry.context.cache!;
    const { items } = await cache.list({ keyPrefix: '', minRevision: Number(rv) });
    const object = items.find((c) => c.object.metadata.name === 'frozen')!.object;
    for (const part of [object, object.metadata, object.metadata.labels, (object as { data?: object }).data]) expect(Object.isFrozen(part)).toBe(true);
    expect(() => {
      (object.metadata as { name?: string }).name = 'changed';
    }).toThrow(TypeError);

    const listed = await api.request('GET', '/api/v1/namespaces/default/configmaps', { query: { resourceVersion: '0' } });
    expect(listed.status).toBe(200);
    expect(listed.json().items.map((o: { metadata: { name: string } }) => o.metadata.name)).toContain('frozen');
  });

  it("a view's converted form (events over core events) is frozen like the object it comes from", async () => {
    const created = await api.request('POST', '/api/v1/namespaces/default/events', {
      body: {
        apiVersion: 'v1', kind: 'Event', metadata: { name: 'frozen-event' }, reason: 'Test', message: 'm', type: 'Normal',
        involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'frozen' }, firstTimestamp: '2026-01-01T00:00:00Z',
        lastTimestamp: '2026-01-01T00:00:00Z', count: 1, source: { component: 'test' },
      },
    });
    expect(created.status).toBe(201);
    const view = resources!.all.find((r) => r.strategy.storedAs !== undefined && r.strategy.kind === 'Event')!;
    const ctx = view.registry.context;
    const { items } = await ctx.cache!.list({ keyPrefix: '', minRevision: Number(created.json().metadata.resourceVersion) });
    const stored = items.find((c) => c.object.metadata.name === 'frozen-event')!;
    const served = ctx.shape.cached(stored) as typeof stored;
    expect(served.object).not.toBe(stored.object);
    expect(Object.isFrozen(served.object)).toBe(true);
    expect(Object.isFrozen(served.object.metadata)).toBe(true);
    expect(Object.isFrozen(served)).toBe(true);
  });
});

afterAll(() => stopBackends(all));
