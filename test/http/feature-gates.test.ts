/**
 * Feature gates where they change what a client sees (spec document 1, "Streaming list" and "Response
 * compression"; issue 9 item 5): with WatchList at its default (off) a watch with `sendInitialEvents` is
 * refused as kube-apiserver refuses it, and with APIResponseCompression=false large lists are not gzipped.
 * Gates do not depend on the store: the memory backend only.
 */
import { gunzipSync } from 'node:zlib';
import { featureGates } from '../../apiserver/features/feature-gates.js';
import { backends, createNamespace, stopBackends, uniqueName, type TestApi } from './helpers.js';
import { openWatch } from './watch-client.js';

const memory = backends().filter((b) => b.name === 'memory');
afterAll(() => stopBackends(memory));

const backend = memory[0];
(backend === undefined ? describe.skip : describe)('feature gates', () => {
  let defaults: TestApi;
  let noCompression: TestApi;
  beforeAll(async () => {
    defaults = await backend!.start();
    noCompression = await backend!.start({ features: featureGates({ APIResponseCompression: false }) });
  });

  it('WatchList off (the default): sendInitialEvents on a watch is 422 against ListOptions, before any event', async () => {
    const ns = await createNamespace(defaults);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const w = await openWatch(defaults, path, { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' });
    try {
      expect(w.status).toBe(422);
      expect(w.error).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        code: 422,
        message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', field: 'sendInitialEvents' }] },
      });
    } finally {
      w.close();
    }
    // sendInitialEvents=false is refused too: the parameter itself needs the gate.
    const off = await openWatch(defaults, path, { sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan' });
    off.close();
    expect(off.status).toBe(422);
    // A plain watch is unaffected.
    const plain = await openWatch(defaults, path, {});
    plain.close();
    expect(plain.status).toBe(200);
  });

  it('APIResponseCompression: large lists are gzipped by default, not with the gate off', async () => {
    const fill = async (api: TestApi): Promise<string> => {
      const ns = await createNamespace(api, uniqueName('gz'));
      for (let i = 0; i < 3; i++) {
        const res = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `big-${i}` }, data: { v: 'x'.repeat(60_000) } } });
        expect(res.status).toBe(201);
      }
      return `/api/v1/namespaces/${ns}/configmaps`;
    };
    const gzipHeaders = { headers: { 'Accept-Encoding': 'gzip' } };
    const on = await defaults.request('GET', await fill(defaults), gzipHeaders);
    expect(on.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(on.raw).toString('utf8')).items).toHaveLength(3);

    const path = await fill(noCompression);
    const off = await noCompression.request('GET', path, gzipHeaders);
    expect(off.status).toBe(200);
    expect(off.headers['content-encoding']).toBeUndefined();
    expect(off.raw.length).toBeGreaterThan(180_000);
    expect(off.json().items).toHaveLength(3);
    const one = await noCompression.request('GET', `${path}/big-0`, gzipHeaders);
    expect(one.headers['content-encoding']).toBeUndefined();
  });
});
