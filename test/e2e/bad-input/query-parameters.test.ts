/**
 * Issue 18 item 2: list and watch query parameters with bad values are never a 5xx: a 4xx Status, or (where
 * Kubernetes' parameter conversion accepts any value, as for booleans: anything but `0` and `false` is
 * true) an ordinary answer, each at once or, for a watch that opens, within its timeout; the server keeps
 * serving.
 */
import { memoryBackend, startWorld, type World } from './fixtures.js';

const b = memoryBackend();
afterAll(() => b.stop());

let w: World;
beforeAll(async () => {
  w = await startWorld(b);
}, 60_000);

const bad: Record<string, string>[] = [
  { limit: 'abc' }, { limit: '-5' }, { limit: '99999999999999999999999' }, { limit: '1e400' }, { limit: '' },
  { continue: 'garbage' }, { continue: 'x'.repeat(100_000) }, { continue: Buffer.from('{"v":"meta.k8s.io/v1","rv":-1,"start":"\\u0000"}').toString('base64url'), limit: '1' },
  { continue: Buffer.from('{"v":"meta.k8s.io/v1","rv":1e400,"start":"a"}').toString('base64url') },
  { resourceVersion: 'abc' }, { resourceVersion: '-1' }, { resourceVersion: '99999999999999999999999' }, { resourceVersion: '1', resourceVersionMatch: 'Bogus' },
  { resourceVersionMatch: 'Exact' }, { resourceVersion: '0', resourceVersionMatch: 'Exact' },
  { timeoutSeconds: 'abc' }, { timeoutSeconds: '-1' }, { timeoutSeconds: '1e400' }, { watch: 'maybe', timeoutSeconds: '1' }, { watch: '1', timeoutSeconds: 'x' },
  { allowWatchBookmarks: 'perhaps', watch: '1', timeoutSeconds: '1' }, { sendInitialEvents: 'sure', watch: '1', timeoutSeconds: '1' }, { sendInitialEvents: 'true' },
  { labelSelector: 'a in (b' }, { labelSelector: '!!a' }, { labelSelector: `a=${'v'.repeat(64)}` }, { labelSelector: 'a>9223372036854775808' },
  { fieldSelector: 'spec.nope=1' }, { fieldSelector: 'metadata.name' }, { fieldSelector: 'metadata.name=\\q' },
  { pretty: 'yes please' }, { fieldValidation: 'Sloppy' }, { dryRun: 'Some' }, { propagationPolicy: 'Sideways' }, { gracePeriodSeconds: 'soon' },
];

it('no bad list/watch query parameter is a 5xx; the refused ones are 4xx Status bodies', async () => {
  const results: string[] = [];
  for (const query of bad) {
    for (const path of [`/api/v1/namespaces/${w.ns}/configmaps`, w.gadgets, '/api/v1/configmaps']) {
      const t0 = performance.now();
      const res = await Promise.race([w.api.request('GET', path, { query }), new Promise<'open'>((r) => setTimeout(() => r('open'), 5_000).unref())]);
      const ms = performance.now() - t0;
      results.push(`${JSON.stringify(query).slice(0, 80)} ${path}: ${res === 'open' ? 'open' : res.status}`);
      if (res === 'open') throw new Error(`${JSON.stringify(query)} ${path}: no answer in 5 s`);
      expect([query, path, res.status < 500, ms < 5_000]).toEqual([query, path, true, true]);
      if (res.status >= 400) expect([query, res.json().kind]).toEqual([query, 'Status']);
    }
  }
  expect(results.length).toBe(bad.length * 3);
});

it('bad DELETE and write query parameters are 4xx too, and change nothing', async () => {
  const cm = `/api/v1/namespaces/${w.ns}/configmaps/cm1`;
  const rv = (await w.api.request('GET', cm)).json().metadata.resourceVersion as string;
  const writes = [
    ['PATCH', { data: { z: '1' } }, 'application/merge-patch+json'],
    ['PUT', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', resourceVersion: rv }, data: { z: '1' } }, 'application/json'],
  ] as const;
  const cases: [Record<string, string>, readonly (readonly [string, unknown, string | undefined])[]][] = [
    [{ gracePeriodSeconds: 'x' }, [['DELETE', undefined, undefined]]],
    [{ propagationPolicy: 'Sideways' }, [['DELETE', undefined, undefined]]],
    [{ dryRun: 'Some' }, [['DELETE', undefined, undefined], ...writes]],
    [{ fieldValidation: 'Sloppy' }, writes],
    [{ fieldManager: 'x'.repeat(200) }, writes],
  ];
  for (const [query, requests] of cases) {
    for (const [method, body, type] of requests) {
      const res = await w.api.request(method, cm, { query, body, ...(type === undefined ? {} : { headers: { 'Content-Type': type } }) });
      expect([query, method, res.status >= 400 && res.status < 500]).toEqual([query, method, true]);
    }
  }
  expect((await w.api.request('GET', cm)).json().metadata.resourceVersion).toBe(rv);
});
