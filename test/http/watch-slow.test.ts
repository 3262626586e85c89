/**
 * Watchers and the server's life: a watcher that stops reading (issue 4): its socket backs up, the cache's bounded queue fills, and after a
 * small time budget the server ends that watch — while writers go on and another watcher on the same
 * resource receives every event. The ended client then reads what was sent and sees the stream end (no
 * ERROR event), so it re-watches from its last resourceVersion. The server counts it in
 * `apiserver_terminated_watchers_total`. The watch cache's gauges and counters move with watchers and
 * events, and a graceful shutdown ends open watches. Backend-independent (the cache does this), so run on
 * the embedded store only.
 */
import { backends, createNamespace, stopBackends, type TestApi } from './helpers.js';
import { openWatch } from './watch-client.js';
import { eventually } from '../server/helpers.js';

const [memory] = backends().filter((b) => b.name === 'memory');
afterAll(() => stopBackends(memory === undefined ? [] : [memory]));

/** A configmaps sample of the server's /metrics (0 when absent). */
const metric = async (api: TestApi, name: string): Promise<number> => {
  const text = (await api.request('GET', '/metrics')).text();
  const m = new RegExp(`^${name}\\{resource="configmaps"\\} (\\d+)$`, 'm').exec(text);
  return m === null ? 0 : Number(m[1]);
};
const terminated = (api: TestApi): Promise<number> => metric(api, 'apiserver_terminated_watchers_total');

(memory === undefined ? describe.skip : describe)('a stalled watcher', () => {
  it('is ended without slowing writers or other watchers', async () => {
    const api = await memory!.start();
    const ns = await createNamespace(api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await api.request('GET', path)).json().metadata.resourceVersion;
    const stalled = await openWatch(api, path, { resourceVersion: rv });
    const healthy = await openWatch(api, path, { resourceVersion: rv });
    stalled.pause();
    const before = await terminated(api);

    const total = 2500;
    const payload = 'x'.repeat(10_000);
    let next = 0;
    const writer = async (): Promise<void> => {
      while (next < total) {
        const name = `s-${next++}`;
        const res = await api.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } } });
        if (res.status !== 201) throw new Error(`${name}: ${res.status} ${res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 16 }, writer));

    // The healthy watcher got everything, in order.
    const names = new Set<string>();
    while (names.size < total) names.add((await healthy.next(30_000)).object.metadata.name);
    expect(healthy.events.every((e) => e.type === 'ADDED')).toBe(true);
    healthy.close();

    // The stalled one was ended by the server: once it reads again it gets what was sent, then the end.
    await eventually(async () => (await terminated(api)) === before + 1, 'the stalled watcher counted as terminated');
    stalled.resume();
    await stalled.ended;
    expect(stalled.events.length).toBeGreaterThan(0);
    expect(stalled.events.length).toBeLessThan(total);
    expect(stalled.events.every((e) => e.type === 'ADDED')).toBe(true);
    const rvs = stalled.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
  }, 120_000);
});

(memory === undefined ? describe.skip : describe)('watch cache metrics and shutdown', () => {
  it('/metrics counts watchers, dispatched events and cached objects; it needs credentials', async () => {
    const api = await memory!.start();
    const anonymous = await api.request('GET', '/metrics', { token: null });
    // Anonymous, and /metrics is granted only to system:monitoring (and system:masters).
    expect([anonymous.status, anonymous.json().reason]).toEqual([403, 'Forbidden']);
    const text = await api.request('GET', '/metrics');
    expect(text.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const ns = await createNamespace(api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const watchers = await metric(api, 'apiserver_registered_watchers');
    const dispatched = await metric(api, 'apiserver_watch_cache_events_dispatched_total');
    const objects = await metric(api, 'apiserver_watch_cache_objects');
    const w = await openWatch(api, path, { resourceVersion: (await api.request('GET', path)).json().metadata.resourceVersion });
    await eventually(async () => (await metric(api, 'apiserver_registered_watchers')) === watchers + 1, 'one more watcher');
    for (const name of ['m1', 'm2', 'm3']) await api.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
    await w.until((e) => e.object.metadata.name === 'm3');
    expect(await metric(api, 'apiserver_watch_cache_events_dispatched_total')).toBe(dispatched + 3);
    expect(await metric(api, 'apiserver_watch_cache_objects')).toBe(objects + 3);
    w.close();
    await eventually(async () => (await metric(api, 'apiserver_registered_watchers')) === watchers, 'the watcher removed');
  });

  it('a graceful shutdown ends open watches', async () => {
    const api = await memory!.start();
    const w = await openWatch(api, '/api/v1/configmaps', {});
    expect(w.status).toBe(200);
    await api.server.close();
    await w.ended;
  });
});
