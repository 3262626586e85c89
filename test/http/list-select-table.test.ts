/**
 * Lists over HTTP on both backends: label and field selectors (Kubernetes' syntax, selectable fields per
 * kind, 400 messages), all-namespaces lists, paging with continue tokens (one snapshot per listing,
 * remainingItemCount, selector-filtered pages filled up to the limit, resourceVersion rules), and the
 * kubectl representations: Table (per-kind columns, includeObject, both meta group names) and
 * PartialObjectMetadata(List).
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const KUBECTL_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

const names = (res: ApiResponse): string[] => (res.json().items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort();

function expectStatus(res: ApiResponse, code: number, reason: string, message?: string | RegExp): void {
  expect(res.status).toBe(code);
  const body = res.json();
  expect(body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  if (typeof message === 'string') expect(body.message).toBe(message);
  else if (message !== undefined) expect(body.message).toMatch(message);
}

async function create(api: TestApi, path: string, body: Record<string, unknown>): Promise<any> {
  const res = await api.request('POST', path, { body });
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text()}`);
  return res.json();
}

const configMap = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data,
});

describeBackends(all, (b) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await b.start();
  });

  describe('label selectors', () => {
    let ns: string;
    const list = (selector: string) => api.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { query: { labelSelector: selector } });
    beforeAll(async () => {
      ns = await createNamespace(api);
      const cms: [string, Record<string, string>][] = [
        ['a', { app: 'web', tier: 'front' }],
        ['b', { app: 'web', tier: 'back' }],
        ['c', { app: 'db', tier: 'back' }],
        ['d', {}],
        ['e', { app: 'cache', env: 'prod' }],
      ];
      for (const [name, labels] of cms) await create(api, `/api/v1/namespaces/${ns}/configmaps`, configMap(name, labels));
    });

    it.each([
      ['app=web', ['a', 'b']],
      ['app==web', ['a', 'b']],
      ['app!=web', ['c', 'd', 'e']],
      ['app in (web,db)', ['a', 'b', 'c']],
      ['app notin (web,db)', ['d', 'e']],
      ['tier', ['a', 'b', 'c']],
      ['!tier', ['d', 'e']],
      ['app=web,tier!=front', ['b']],
      ['env in (prod),app', ['e']],
      ['app in (web),tier notin (back),!env', ['a']],
      ['', ['a', 'b', 'c', 'd', 'e']],
    ])('%j selects %j', async (selector, expected) => {
      const res = await list(selector);
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
      expect(names(res)).toEqual(expected);
    });

    it.each([
      ['app in (web', "unable to parse requirement: found '', expected: ',' or ')'"],
      ['app web', "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt"],
      ['app=web,', "found '', expected: identifier after ','"],
      ['app in web', "unable to parse requirement: found 'web' expected: '('"],
    ])('bad syntax %j is 400 with Kubernetes\' message', async (selector, message) => {
      expectStatus(await list(selector), 400, 'BadRequest', message);
    });

    it('an invalid label value is 400 naming the value', async () => {
      expectStatus(await list('app=-web'), 400, 'BadRequest', /^unable to parse requirement: values\[0\]\[app\]: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters/);
    });
  });

  describe('field selectors', () => {
    let ns: string;
    let other: string;
    beforeAll(async () => {
      ns = await createNamespace(api);
      other = await createNamespace(api);
      for (const n of [ns, other]) {
        await create(api, `/api/v1/namespaces/${n}/secrets`, { metadata: { name: 'plain' }, stringData: { k: 'v' } });
        await create(api, `/api/v1/namespaces/${n}/secrets`, { metadata: { name: 'custom' }, type: 'example.com/custom', data: { a: 'YQ==' } });
        await create(api, `/api/v1/namespaces/${n}/configmaps`, configMap('settings'));
        await create(api, `/api/v1/namespaces/${n}/serviceaccounts`, { metadata: { name: 'robot' } });
        await create(api, `/api/v1/namespaces/${n}/podtemplates`, {
          metadata: { name: 'tpl' },
          template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } },
        });
      }
    });

    it.each(['secrets', 'configmaps', 'serviceaccounts', 'podtemplates'])('%s: metadata.name and metadata.namespace select in a namespace and across all', async (resource) => {
      const inNs = await api.request('GET', `/api/v1/namespaces/${ns}/${resource}`);
      const one = inNs.json().items[0].metadata.name as string;
      const byName = await api.request('GET', `/api/v1/namespaces/${ns}/${resource}`, { query: { fieldSelector: `metadata.name=${one}` } });
      expect(byName.status).toBe(200);
      expect(names(byName)).toEqual([one]);
      const notName = await api.request('GET', `/api/v1/namespaces/${ns}/${resource}`, { query: { fieldSelector: `metadata.name!=${one}` } });
      expect(names(notName)).not.toContain(one);
      expect(notName.json().items.length).toBe(inNs.json().items.length - 1);

      const across = await api.request('GET', `/api/v1/${resource}`, { query: { fieldSelector: `metadata.namespace=${other}` } });
      expect(across.status).toBe(200);
      const items = across.json().items as { metadata: { namespace: string } }[];
      expect(items.length).toBe(inNs.json().items.length);
      expect(new Set(items.map((i) => i.metadata.namespace))).toEqual(new Set([other]));
    });

    it('namespaces: metadata.name and status.phase', async () => {
      const res = await api.request('GET', '/api/v1/namespaces', { query: { fieldSelector: `metadata.name=${ns}` } });
      expect(names(res)).toEqual([ns]);
      const active = await api.request('GET', '/api/v1/namespaces', { query: { fieldSelector: 'status.phase=Active' } });
      expect(names(active)).toEqual(expect.arrayContaining(['default', ns, other]));
      const terminating = await api.request('GET', '/api/v1/namespaces', { query: { fieldSelector: 'status.phase=Terminating,metadata.name=default' } });
      expect(terminating.status).toBe(200);
      expect(names(terminating)).toEqual([]);
    });

    it('namespaces: status.phase=Terminating selects a namespace being deleted', async () => {
      const held = await createNamespace(api);
      await create(api, `/api/v1/namespaces/${held}/configmaps`, { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      expect((await api.request('DELETE', `/api/v1/namespaces/${held}`)).status).toBe(200);
      const terminating = await api.request('GET', '/api/v1/namespaces', { query: { fieldSelector: 'status.phase=Terminating' } });
      expect(names(terminating)).toEqual([held]);
      const active = await api.request('GET', '/api/v1/namespaces', { query: { fieldSelector: 'status.phase!=Terminating' } });
      expect(names(active)).not.toContain(held);
      // Release it so the namespace goes.
      const patch = await api.request('PATCH', `/api/v1/namespaces/${held}/configmaps/held`, { body: { metadata: { finalizers: null } } });
      expect(patch.status).toBe(200);
    });

    it('secrets: type, in one namespace and across all', async () => {
      const custom = await api.request('GET', `/api/v1/namespaces/${ns}/secrets`, { query: { fieldSelector: 'type=example.com/custom' } });
      expect(names(custom)).toEqual(['custom']);
      const opaque = await api.request('GET', `/api/v1/namespaces/${ns}/secrets`, { query: { fieldSelector: 'type=Opaque' } });
      expect(names(opaque)).toEqual(['plain']);
      const notOpaque = await api.request('GET', '/api/v1/secrets', { query: { fieldSelector: `type!=Opaque,metadata.namespace=${other}` } });
      expect(notOpaque.json().items.map((i: any) => [i.metadata.namespace, i.metadata.name])).toEqual([[other, 'custom']]);
    });

    it('nodes: spec.unschedulable and metadata.name', async () => {
      const cordoned = uniqueName('node');
      const open = uniqueName('node');
      await create(api, '/api/v1/nodes', { metadata: { name: cordoned }, spec: { unschedulable: true } });
      await create(api, '/api/v1/nodes', { metadata: { name: open } });
      const t = await api.request('GET', '/api/v1/nodes', { query: { fieldSelector: 'spec.unschedulable=true' } });
      expect(names(t)).toEqual([cordoned]);
      const f = await api.request('GET', '/api/v1/nodes', { query: { fieldSelector: 'spec.unschedulable=false' } });
      expect(names(f)).toContain(open);
      expect(names(f)).not.toContain(cordoned);
      const byName = await api.request('GET', '/api/v1/nodes', { query: { fieldSelector: `metadata.name=${open}` } });
      expect(byName.json()).toMatchObject({ kind: 'NodeList', apiVersion: 'v1' });
      expect(names(byName)).toEqual([open]);
    });

    it('label and field selectors combine', async () => {
      await create(api, `/api/v1/namespaces/${ns}/configmaps`, configMap('labelled', { app: 'x' }));
      const res = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { query: { labelSelector: 'app=x', fieldSelector: 'metadata.name!=settings' } });
      expect(names(res)).toEqual(['labelled']);
      const none = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { query: { labelSelector: 'app=x', fieldSelector: 'metadata.name=settings' } });
      expect(names(none)).toEqual([]);
    });

    it.each([
      [`/api/v1/namespaces/NS/configmaps`, 'spec.foo=bar', 'field label not supported: spec.foo'],
      [`/api/v1/namespaces/NS/configmaps`, 'type=Opaque', 'field label not supported: type'],
      [`/api/v1/namespaces/NS/serviceaccounts`, 'status.phase=Active', 'field label not supported: status.phase'],
      [`/api/v1/secrets`, 'metadata.labels=x', 'field label not supported: metadata.labels'],
      [`/api/v1/nodes`, 'spec.podCIDR=10.0.0.0/24', 'field label not supported: spec.podCIDR'],
    ])('%s?fieldSelector=%s is 400 %j', async (path, selector, message) => {
      expectStatus(await api.request('GET', path.replace('NS', ns), { query: { fieldSelector: selector } }), 400, 'BadRequest', message);
    });

    it('a field selector with bad syntax is 400', async () => {
      expectStatus(await api.request('GET', `/api/v1/namespaces/${ns}/secrets`, { query: { fieldSelector: 'type' } }), 400, 'BadRequest', "invalid selector: 'type'; can't understand 'type'");
    });

    it('all-namespaces list /api/v1/secrets holds the secrets of every namespace', async () => {
      const res = await api.request('GET', '/api/v1/secrets');
      expect(res.status).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(/^[1-9]\d*$/) } });
      const pairs = (body.items as any[]).map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
      expect(pairs).toEqual(expect.arrayContaining([`${ns}/plain`, `${ns}/custom`, `${other}/plain`, `${other}/custom`]));
      for (const item of body.items) expect(item).toMatchObject({ kind: 'Secret', apiVersion: 'v1' });
      // Items are in key order: namespace, then name.
      expect(pairs.indexOf(`${ns}/custom`)).toBeLessThan(pairs.indexOf(`${ns}/plain`));
    });
  });

  describe('paging', () => {
    let ns: string;
    const path = () => `/api/v1/namespaces/${ns}/configmaps`;
    const label = (i: number) => `cm-${String(i).padStart(3, '0')}`;
    beforeAll(async () => {
      ns = await createNamespace(api);
      for (let i = 0; i < 25; i++) await create(api, path(), configMap(label(i), { parity: i % 2 === 0 ? 'even' : 'odd' }));
    });

    it('limit and continue walk the collection in pages at one resourceVersion, with remainingItemCount', async () => {
      const p1 = (await api.request('GET', path(), { query: { limit: '10' } })).json();
      expect(p1.items.map((i: any) => i.metadata.name)).toEqual(Array.from({ length: 10 }, (_, i) => label(i)));
      expect(p1.metadata).toEqual({ resourceVersion: expect.any(String), continue: expect.any(String), remainingItemCount: 15 });
      const p2 = (await api.request('GET', path(), { query: { limit: '10', continue: p1.metadata.continue } })).json();
      expect(p2.items.map((i: any) => i.metadata.name)).toEqual(Array.from({ length: 10 }, (_, i) => label(i + 10)));
      expect(p2.metadata).toEqual({ resourceVersion: p1.metadata.resourceVersion, continue: expect.any(String), remainingItemCount: 5 });
      const p3 = (await api.request('GET', path(), { query: { limit: '10', continue: p2.metadata.continue } })).json();
      expect(p3.items.map((i: any) => i.metadata.name)).toEqual(Array.from({ length: 5 }, (_, i) => label(i + 20)));
      expect(p3.metadata).toEqual({ resourceVersion: p1.metadata.resourceVersion });
    });

    it('a limit covering the collection has no continue token', async () => {
      const res = (await api.request('GET', path(), { query: { limit: '25' } })).json();
      expect(res.items).toHaveLength(25);
      expect(res.metadata.continue).toBeUndefined();
      expect(res.metadata.remainingItemCount).toBeUndefined();
    });

    it('later pages show the snapshot of the first page, not writes made in between', async () => {
      const scratch = await createNamespace(api);
      const p = `/api/v1/namespaces/${scratch}/configmaps`;
      for (const n of ['a', 'c', 'e', 'g']) await create(api, p, configMap(n));
      const first = (await api.request('GET', p, { query: { limit: '2' } })).json();
      expect(first.items.map((i: any) => i.metadata.name)).toEqual(['a', 'c']);
      await create(api, p, configMap('d'));
      expect((await api.request('DELETE', `${p}/e`)).status).toBe(200);
      const upd = await api.request('PATCH', `${p}/g`, { body: { data: { changed: 'yes' } } });
      expect(upd.status).toBe(200);

      const second = (await api.request('GET', p, { query: { limit: '2', continue: first.metadata.continue } })).json();
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect(second.items.map((i: any) => i.metadata.name)).toEqual(['e', 'g']);
      expect(second.items[1].data).toEqual({});
      expect(second.metadata.continue).toBeUndefined();

      const fresh = (await api.request('GET', p)).json();
      expect(fresh.items.map((i: any) => i.metadata.name)).toEqual(['a', 'c', 'd', 'g']);
      expect(fresh.items[3].data).toEqual({ changed: 'yes' });
      expect(Number(fresh.metadata.resourceVersion)).toBeGreaterThan(Number(first.metadata.resourceVersion));
    });

    it('selector-filtered pages are filled up to the limit and carry no remainingItemCount', async () => {
      const seen: string[] = [];
      let cont = '';
      let rv: string | undefined;
      const sizes: number[] = [];
      for (;;) {
        const res = await api.request('GET', path(), { query: { limit: '4', labelSelector: 'parity=odd', ...(cont === '' ? {} : { continue: cont }) } });
        expect(res.status).toBe(200);
        const body = res.json();
        rv ??= body.metadata.resourceVersion;
        expect(body.metadata.resourceVersion).toBe(rv);
        expect(body.metadata.remainingItemCount).toBeUndefined();
        sizes.push(body.items.length);
        seen.push(...body.items.map((i: any) => i.metadata.name));
        cont = body.metadata.continue ?? '';
        if (cont === '') break;
      }
      // 12 odd objects among 25: three full pages; the end is only known when a read finds nothing more.
      expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => label(2 * i + 1)));
      expect(sizes.slice(0, 3)).toEqual([4, 4, 4]);
      expect(sizes.slice(3).every((s) => s === 0)).toBe(true);
    });

    it('a field-selected page is filled from far apart matches', async () => {
      const res = await api.request('GET', path(), { query: { limit: '2', fieldSelector: `metadata.name!=${label(0)},metadata.name!=${label(1)}` } });
      const body = res.json();
      expect(body.items.map((i: any) => i.metadata.name)).toEqual([label(2), label(3)]);
      expect(body.metadata.continue).toEqual(expect.any(String));
      expect(body.metadata.remainingItemCount).toBeUndefined();
    });

    it.each([
      ['not base64', '%%%'],
      ['not JSON', Buffer.from('nope').toString('base64url')],
      ['a foreign version', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v0', rv: 5, start: 'x' })).toString('base64url')],
      ['a zero revision', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 0, start: 'x' })).toString('base64url')],
      ['a path escaping the prefix', Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 5, start: '../../secrets/x' })).toString('base64url')],
    ])('a continue token that is %s is 400', async (_what, token) => {
      expectStatus(await api.request('GET', path(), { query: { limit: '5', continue: token } }), 400, 'BadRequest', /^invalid continue token: continue key is not valid: /);
    });

    it('a resourceVersion together with a continue token is 400; rv=0 is ignored', async () => {
      const first = (await api.request('GET', path(), { query: { limit: '5' } })).json();
      const res = await api.request('GET', path(), { query: { limit: '5', continue: first.metadata.continue, resourceVersion: first.metadata.resourceVersion } });
      expectStatus(res, 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
      const zero = await api.request('GET', path(), { query: { limit: '5', continue: first.metadata.continue, resourceVersion: '0' } });
      expect(zero.status).toBe(200);
      expect(zero.json().items.map((i: any) => i.metadata.name)).toEqual([5, 6, 7, 8, 9].map(label));
    });

    it.each([
      [{ resourceVersionMatch: 'NotOlderThan' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      [{ resourceVersionMatch: 'Exact', resourceVersion: '0' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      [{ resourceVersionMatch: 'Newest', resourceVersion: '1' }, 'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
    ])('%j is 422 Invalid ListOptions', async (query, cause) => {
      const res = await api.request('GET', path(), { query });
      expectStatus(res, 422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${cause}`);
      expect(res.json().details).toMatchObject({ group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ field: 'resourceVersionMatch' }] });
    });

    it('resourceVersionMatch=Exact lists the collection as it was; NotOlderThan lists it now', async () => {
      const scratch = await createNamespace(api);
      const p = `/api/v1/namespaces/${scratch}/configmaps`;
      await create(api, p, configMap('one'));
      const then = (await api.request('GET', p)).json().metadata.resourceVersion as string;
      await create(api, p, configMap('two'));
      const exact = await api.request('GET', p, { query: { resourceVersion: then, resourceVersionMatch: 'Exact' } });
      expect(exact.status).toBe(200);
      expect(exact.json().metadata.resourceVersion).toBe(then);
      expect(names(exact)).toEqual(['one']);
      // Not older than `then` is served by the watch cache, which may not have `two` yet: a Most Recent list
      // returns once it has caught up with the store.
      await api.request('GET', p);
      const notOlder = await api.request('GET', p, { query: { resourceVersion: then, resourceVersionMatch: 'NotOlderThan' } });
      expect(names(notOlder)).toEqual(['one', 'two']);
      expect(Number(notOlder.json().metadata.resourceVersion)).toBeGreaterThan(Number(then));
      // A first page with a resourceVersion and no match is Exact too.
      const paged = await api.request('GET', p, { query: { resourceVersion: then, limit: '10' } });
      expect(paged.json().metadata.resourceVersion).toBe(then);
      expect(names(paged)).toEqual(['one']);
    });

    it('an invalid resourceVersion is 400', async () => {
      expectStatus(await api.request('GET', path(), { query: { resourceVersion: 'abc' } }), 400, 'BadRequest', 'invalid resource version: abc');
    });
  });

  describe('Table and partial object metadata', () => {
    let ns: string;
    const table = (path: string, accept = KUBECTL_TABLE, query: Record<string, string> = {}) => api.request('GET', path, { headers: { Accept: accept }, query });
    const columnsOf = (res: ApiResponse) => (res.json().columnDefinitions as { name: string; priority: number }[]).map((c) => [c.name, c.priority]);
    beforeAll(async () => {
      ns = await createNamespace(api);
      await create(api, `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's1', labels: { app: 'web' } }, data: { a: 'YQ==', b: 'Yg==' } });
      await create(api, `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's2' }, type: 'example.com/custom' });
      await create(api, `/api/v1/namespaces/${ns}/configmaps`, configMap('c1', {}, { x: '1', y: '2', z: '3' }));
      await create(api, `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'sa1' }, secrets: [{ name: 'x' }, { name: 'y' }] });
    });

    it('a Secret list as Table: kind, apiVersion, columns, cells and PartialObjectMetadata rows', async () => {
      const res = await table(`/api/v1/namespaces/${ns}/secrets`);
      expect(res.status).toBe(200);
      // As kube-apiserver: the plain media type, the conversion is in the body only.
      expect(res.headers['content-type']).toBe('application/json');
      const body = res.json();
      expect(body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
      expect(body.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Type', 'Data', 'Age']);
      expect(body.columnDefinitions[0]).toMatchObject({ type: 'string', format: 'name', priority: 0, description: expect.any(String) });
      expect(body.rows).toHaveLength(2);
      expect(body.rows[0].cells).toEqual(['s1', 'Opaque', 2, expect.stringMatching(/^\d+s$/)]);
      expect(body.rows[1].cells).toEqual(['s2', 'example.com/custom', 0, expect.stringMatching(/^\d+s$/)]);
      expect(body.rows[0].object).toMatchObject({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { name: 's1', namespace: ns, labels: { app: 'web' }, uid: expect.any(String), resourceVersion: expect.any(String) },
      });
      expect(body.rows[0].object.data).toBeUndefined();
      expect(body.rows[0].object.type).toBeUndefined();
    });

    it('a get as Table has one row', async () => {
      const res = await table(`/api/v1/namespaces/${ns}/secrets/s1`);
      expect(res.status).toBe(200);
      const body = res.json();
      expect(body.kind).toBe('Table');
      expect(body.rows).toHaveLength(1);
      expect(body.rows[0].cells.slice(0, 3)).toEqual(['s1', 'Opaque', 2]);
      expect(body.rows[0].object.metadata.name).toBe('s1');
    });

    it('ConfigMap, ServiceAccount and Namespace columns', async () => {
      const cm = await table(`/api/v1/namespaces/${ns}/configmaps/c1`);
      expect(columnsOf(cm)).toEqual([['Name', 0], ['Data', 0], ['Age', 0]]);
      expect(cm.json().rows[0].cells.slice(0, 2)).toEqual(['c1', 3]);
      const sa = await table(`/api/v1/namespaces/${ns}/serviceaccounts/sa1`);
      expect(columnsOf(sa)).toEqual([['Name', 0], ['Secrets', 0], ['Age', 0]]);
      expect(sa.json().rows[0].cells.slice(0, 2)).toEqual(['sa1', 2]);
      const nsTable = await table('/api/v1/namespaces', KUBECTL_TABLE, { fieldSelector: 'metadata.name=default' });
      expect(columnsOf(nsTable)).toEqual([['Name', 0], ['Status', 0], ['Age', 0]]);
      expect(nsTable.json().rows.map((r: any) => r.cells.slice(0, 2))).toEqual([['default', 'Active']]);
      expect(nsTable.json().rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'default' } });
    });

    it('Node columns: wide ones have priority 1', async () => {
      const name = uniqueName('node');
      await create(api, '/api/v1/nodes', { metadata: { name, labels: { 'node-role.kubernetes.io/control-plane': '' } } });
      const res = await table(`/api/v1/nodes/${name}`);
      expect(columnsOf(res)).toEqual([
        ['Name', 0], ['Status', 0], ['Roles', 0], ['Age', 0], ['Version', 0],
        ['Internal-IP', 1], ['External-IP', 1], ['OS-Image', 1], ['Kernel-Version', 1], ['Container-Runtime', 1],
      ]);
      expect(res.json().rows[0].cells).toHaveLength(10);
      expect(res.json().rows[0].cells[0]).toBe(name);
    });

    it('PodTemplate columns', async () => {
      await create(api, `/api/v1/namespaces/${ns}/podtemplates`, {
        metadata: { name: 'tpl' },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }, { name: 'side', image: 'busybox' }] } },
      });
      const res = await table(`/api/v1/namespaces/${ns}/podtemplates`);
      expect(columnsOf(res)).toEqual([['Name', 0], ['Containers', 0], ['Images', 0], ['Pod Labels', 0]]);
      expect(res.json().rows[0].cells).toEqual(['tpl', 'web,side', 'nginx,busybox', 'app=web']);
    });

    it('includeObject=None leaves rows without objects; Object embeds the full object', async () => {
      const none = (await table(`/api/v1/namespaces/${ns}/secrets`, KUBECTL_TABLE, { includeObject: 'None' })).json();
      expect(none.rows).toHaveLength(2);
      for (const row of none.rows) expect(row.object).toBeUndefined();
      const full = (await table(`/api/v1/namespaces/${ns}/secrets`, KUBECTL_TABLE, { includeObject: 'Object' })).json();
      expect(full.rows[0].object).toMatchObject({ kind: 'Secret', apiVersion: 'v1', metadata: { name: 's1' }, data: { a: 'YQ==', b: 'Yg==' }, type: 'Opaque' });
      const meta = (await table(`/api/v1/namespaces/${ns}/secrets`, KUBECTL_TABLE, { includeObject: 'Metadata' })).json();
      expect(meta.rows[0].object.kind).toBe('PartialObjectMetadata');
    });

    it('an unknown includeObject is 400 with ValidateTableOptions\' message', async () => {
      expectStatus(
        await table(`/api/v1/namespaces/${ns}/secrets`, KUBECTL_TABLE, { includeObject: 'All' }),
        400,
        'BadRequest',
        'Unable to convert to Table as requested: includeObject: Invalid value: "All": must be \'Metadata\', \'Object\', \'None\', or empty',
      );
    });

    it('a Table asked under the group domain (meta.platform.io) answers in it', async () => {
      const res = await table(`/api/v1/namespaces/${ns}/secrets`, 'application/json;as=Table;v=v1;g=meta.platform.io');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const body = res.json();
      expect(body).toMatchObject({ kind: 'Table', apiVersion: 'meta.platform.io/v1' });
      expect(body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.platform.io/v1' });
    });

    it('v1beta1 alone gives a meta.k8s.io/v1beta1 Table', async () => {
      const res = await table(`/api/v1/namespaces/${ns}/configmaps`, 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');
      expect(res.json()).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    });

    it('a paged Table carries the continue token', async () => {
      const res = (await table(`/api/v1/namespaces/${ns}/secrets`, KUBECTL_TABLE, { limit: '1' })).json();
      expect(res.rows.map((r: any) => r.cells[0])).toEqual(['s1']);
      expect(res.metadata.continue).toEqual(expect.any(String));
      const next = (await table(`/api/v1/namespaces/${ns}/secrets`, KUBECTL_TABLE, { limit: '1', continue: res.metadata.continue })).json();
      expect(next.rows.map((r: any) => r.cells[0])).toEqual(['s2']);
    });

    it('plain JSON when the Table clause is absent', async () => {
      const res = await api.request('GET', `/api/v1/namespaces/${ns}/secrets/s1`, { headers: { Accept: 'application/json' } });
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toMatchObject({ kind: 'Secret', apiVersion: 'v1' });
    });

    it('as=PartialObjectMetadata on get, as=PartialObjectMetadataList on list', async () => {
      const one = await api.request('GET', `/api/v1/namespaces/${ns}/secrets/s1`, { headers: { Accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' } });
      expect(one.status).toBe(200);
      expect(one.headers['content-type']).toBe('application/json');
      expect(one.json()).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 's1', namespace: ns, labels: { app: 'web' } }) });

      const list = await api.request('GET', `/api/v1/namespaces/${ns}/secrets`, { headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } });
      expect(list.status).toBe(200);
      const body = list.json();
      expect(body).toMatchObject({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: expect.any(String) } });
      expect(body.items.map((i: any) => [i.kind, i.metadata.name, i.data])).toEqual([['PartialObjectMetadata', 's1', undefined], ['PartialObjectMetadata', 's2', undefined]]);
    });

    it('as=PartialObjectMetadata on a list (or the List form on a get) is 406', async () => {
      const list = await api.request('GET', `/api/v1/namespaces/${ns}/secrets`, { headers: { Accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' } });
      expectStatus(list, 406, 'NotAcceptable');
      const one = await api.request('GET', `/api/v1/namespaces/${ns}/secrets/s1`, { headers: { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } });
      expectStatus(one, 406, 'NotAcceptable');
    });
  });
});
