/**
 * One suite for every stored built-in kind (document 2's operation contract, applied to all of them): each
 * kind, driven by its fixture in test/fixtures/kinds (see the README there), goes through discovery and
 * OpenAPI, a dry-run create that stores nothing, create, get, list, Table output, update, the four patch
 * types, a watch that sees every change, the status sub-resource, delete with the kind's answer (Status or
 * the object) and deletecollection (a Status, or 405 where the kind has no such verb). A stored kind without
 * a fixture fails here, so a kind added later is covered by adding its file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { builtinKinds } from '../../apiserver/registry/kinds/index.js';
import { groupOf, type KindStrategy } from '../../apiserver/registry/kind-strategy.js';
import { naming } from '../../apiserver/naming/naming.js';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';
import { openWatch, type WatchStream } from './watch-client.js';

const FIXTURES = join(__dirname, '..', 'fixtures', 'kinds');
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const n = naming('platform.io');

interface Fixture {
  readonly deleteAnswers: 'Status' | 'Object';
  readonly name?: string;
  readonly runtimeConfig?: string;
  readonly object: Record<string, unknown>;
}

const fixtureKey = (s: KindStrategy): string => `${s.groupPrefix ?? (s.group === '' ? 'core' : s.group)}.${s.resource}`;
const stored = builtinKinds().filter((s) => s.virtual === undefined);
const files = new Set(readdirSync(FIXTURES).filter((f) => f.endsWith('.yaml')));

function loadFixture(s: KindStrategy, namespace: string, name: string): Fixture {
  const text = readFileSync(join(FIXTURES, `${fixtureKey(s)}.yaml`), 'utf8').replaceAll('{{namespace}}', namespace).replaceAll('{{name}}', name);
  return parseYaml(text) as Fixture;
}

const groupVersion = (s: KindStrategy): string => {
  const g = groupOf(s, n);
  return g === '' ? s.version : `${g}/${s.version}`;
};
const apiRoot = (s: KindStrategy): string => (groupOf(s, n) === '' ? `/api/${s.version}` : `/apis/${groupVersion(s)}`);
const collection = (s: KindStrategy, ns: string): string => `${apiRoot(s)}${s.namespaced ? `/namespaces/${ns}` : ''}/${s.resource}`;
const verbsOf = (s: KindStrategy): readonly string[] => s.verbs ?? ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * GET, change, PUT, again on a 409 Conflict, as clients do: some kinds have an in-server controller writing
 * their status (policies, definitions, API services) while the suite writes.
 */
async function readModifyWrite(api: TestApi, path: string, change: (o: any) => unknown): Promise<ApiResponse> {
  for (;;) {
    const current = await api.request('GET', path);
    expect(current.status).toBe(200);
    const res = await api.request('PUT', path, { body: change(current.json()) });
    if (res.status !== 409) return res;
  }
}

it('every stored built-in kind has a fixture, and every fixture a kind', () => {
  const keys = stored.map(fixtureKey);
  expect(keys.filter((k) => !files.has(`${k}.yaml`))).toEqual([]);
  expect([...files].map((f) => f.replace(/\.yaml$/, '')).filter((f) => !keys.includes(f))).toEqual([]);
});

const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  const servers = new Map<string, Promise<TestApi>>();
  /** One server per distinct --runtime-config the fixtures ask for. */
  const serverFor = (runtimeConfig: string): Promise<TestApi> => {
    let s = servers.get(runtimeConfig);
    if (s === undefined) {
      s = b.start(runtimeConfig === '' ? {} : { runtimeConfig });
      servers.set(runtimeConfig, s);
    }
    return s;
  };

  for (const s of stored.filter((k) => files.has(`${fixtureKey(k)}.yaml`))) {
    describe(`${s.kind} (${groupVersion(s)} ${s.resource})`, () => {
      let api: TestApi;
      let ns: string;
      let name: string;
      let fixture: Fixture;
      beforeAll(async () => {
        const probe = loadFixture(s, 'x', 'x');
        api = await serverFor(probe.runtimeConfig ?? '');
        ns = s.namespaced ? await createNamespace(api) : '';
        name = probe.name ?? uniqueName(s.singular.slice(0, 20));
        fixture = loadFixture(s, ns, name);
      });

      it('is listed in discovery and in the OpenAPI v3 document of its group version', async () => {
        const disc = (await api.request('GET', apiRoot(s))).json();
        const entry = disc.resources.find((r: { name: string }) => r.name === s.resource);
        expect(entry).toEqual(expect.objectContaining({ kind: s.kind, namespaced: s.namespaced, singularName: s.singular }));
        expect([...entry.verbs].sort()).toEqual([...verbsOf(s)].sort());
        expect(entry.shortNames ?? []).toEqual(s.shortNames ?? []);
        expect(entry.categories ?? []).toEqual(s.categories ?? []);
        const subs = disc.resources.filter((r: { name: string }) => r.name.startsWith(`${s.resource}/`)).map((r: { name: string }) => r.name.slice(s.resource.length + 1));
        for (const sub of s.subresources ?? []) expect(subs).toContain(sub);
        if (s.scale !== undefined) expect(subs).toContain('scale');

        const openapi = await api.request('GET', `/openapi/v3${apiRoot(s)}`);
        expect(openapi.status).toBe(200);
        const gvks = Object.values(openapi.json().components.schemas as Record<string, { 'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[] }>)
          .flatMap((schema) => schema['x-kubernetes-group-version-kind'] ?? []);
        expect(gvks).toContainEqual({ group: groupOf(s, n), version: s.version, kind: s.kind });
      });

      it('create, get, list, Table, dry run, update, four patch types, watch, status, delete and deletecollection', async () => {
        const base = collection(s, ns);
        const run = uniqueName('run');
        const body = {
          ...fixture.object,
          apiVersion: groupVersion(s),
          kind: s.kind,
          metadata: { ...(fixture.object.metadata as object | undefined), name, labels: { suite: run } },
        };

        const dry = await api.request('POST', base, { body, query: { dryRun: 'All' } });
        expect([dry.status, dry.json().metadata?.name]).toEqual([201, name]);
        expect((await api.request('GET', `${base}/${name}`)).status).toBe(404);

        const created = await api.request('POST', base, { body });
        expect([created.status, created.json().kind]).toEqual([201, s.kind]);
        const uid: string = created.json().metadata.uid;
        const watch: WatchStream = await openWatch(api, base, { resourceVersion: created.json().metadata.resourceVersion, fieldSelector: `metadata.name=${name}` });
        try {
          expect(watch.status).toBe(200);
          const got = await api.request('GET', `${base}/${name}`);
          expect([got.status, got.json().metadata.uid]).toEqual([200, uid]);
          const list = (await api.request('GET', base, { query: { labelSelector: `suite=${run}` } })).json();
          expect([list.kind, list.items.map((o: { metadata: { uid: string } }) => o.metadata.uid)]).toEqual([`${s.kind}List`, [uid]]);

          const table = (await api.request('GET', `${base}/${name}`, { headers: { Accept: TABLE } })).json();
          expect(table.kind).toBe('Table');
          expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(s.table?.columns.map((c) => c.name) ?? ['Name', 'Created At']);
          const nameAt = table.columnDefinitions.findIndex((c: { format: string }) => c.format === 'name');
          expect(table.rows.map((r: { cells: unknown[] }) => r.cells[nameAt])).toEqual([name]);

          // Each write adds one label; the watch must see every one of them.
          const put = await readModifyWrite(api, `${base}/${name}`, (o) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, put: '1' } } }));
          expect(put.status).toBe(200);
          const json = await api.request('PATCH', `${base}/${name}`, { body: [{ op: 'add', path: '/metadata/labels/json', value: '1' }], headers: { 'Content-Type': 'application/json-patch+json' } });
          expect(json.status).toBe(200);
          const merge = await api.request('PATCH', `${base}/${name}`, { body: { metadata: { labels: { merge: '1' } } } });
          expect(merge.status).toBe(200);
          const smp = await api.request('PATCH', `${base}/${name}`, { body: { metadata: { labels: { smp: '1' } } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
          expect(smp.status).toBe(s.strategicMergePatch === false ? 415 : 200);
          const apply = await api.request('PATCH', `${base}/${name}`, {
            body: JSON.stringify({ apiVersion: groupVersion(s), kind: s.kind, metadata: { name, labels: { applied: '1' } } }),
            headers: { 'Content-Type': 'application/apply-patch+yaml' },
            query: { fieldManager: 'all-kinds-suite' },
          });
          expect(apply.status).toBe(200);
          const expected = ['suite', 'put', 'json', 'merge', ...(s.strategicMergePatch === false ? [] : ['smp']), 'applied'];
          expect(Object.keys(apply.json().metadata.labels)).toEqual(expect.arrayContaining(expected));
          expect(apply.json().metadata.managedFields.map((m: { manager: string }) => m.manager)).toContain('all-kinds-suite');
          for (const label of expected.slice(1)) {
            const ev = await watch.until((e) => e.type === 'MODIFIED' && e.object.metadata.labels?.[label] === '1');
            expect(ev.object.metadata.uid).toBe(uid);
          }

          if (s.subresources?.includes('status')) {
            const status = await api.request('GET', `${base}/${name}/status`);
            expect([status.status, status.json().metadata.uid]).toEqual([200, uid]);
            const statusPut = await readModifyWrite(api, `${base}/${name}/status`, (o) => o);
            expect([statusPut.status, statusPut.json().metadata.uid]).toEqual([200, uid]);
          } else {
            expect((await api.request('GET', `${base}/${name}/status`)).status).toBe(404);
          }

          const deleted = await api.request('DELETE', `${base}/${name}`);
          expect([200, 202]).toContain(deleted.status);
          if (fixture.deleteAnswers === 'Status') expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'Status', status: 'Success' }));
          else expect([deleted.json().kind, deleted.json().metadata.uid]).toEqual([s.kind, uid]);
          await watch.until((e) => e.type === 'DELETED' && e.object.metadata.uid === uid, 30_000);

          // deletecollection: the same object again, removed by label.
          const again = await api.request('POST', base, { body });
          expect(again.status).toBe(201);
          const againUid: string = again.json().metadata.uid;
          const dc = await api.request('DELETE', base, { query: { labelSelector: `suite=${run}` } });
          if (!verbsOf(s).includes('deletecollection')) {
            expect(dc.status).toBe(405);
            expect((await api.request('DELETE', `${base}/${name}`)).status).toBeLessThan(300);
          } else {
            expect([dc.status, dc.json().kind, dc.json().status]).toEqual([200, 'Status', 'Success']);
          }
          await watch.until((e) => e.type === 'DELETED' && e.object.metadata.uid === againUid, 30_000);
        } finally {
          watch.close();
        }
      });
    });
  }
});
