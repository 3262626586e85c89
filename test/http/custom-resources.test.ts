/**
 * CustomResourceDefinitions served at runtime, on both backends, through the HTTP API: a definition becomes
 * NamesAccepted and Established and its resource is served (discovery, OpenAPI, every verb, tables from
 * printer columns, selectable fields, status sub-resource, pruning, defaulting, CEL rules); names that
 * conflict with another definition or a built-in resource are not accepted; deleting a definition deletes
 * its instances first (an instance's own finalizer holds it Terminating, with create refused), then stops
 * serving, and a re-created definition serves again. On etcd, two replicas: a definition created through
 * one is served by the other, and an instance written through the other is watched on the first.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';
import { openWatch } from './watch-client.js';
import { eventually } from '../server/helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const CRDS = '/apis/apiextensions.platform.io/v1/customresourcedefinitions';

/** A namespaced Widget definition in `group`, with status, printer columns, a selectable field and a CEL rule. */
function widgetCrd(group: string, overrides: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      names: { kind: 'Widget', plural: 'widgets', shortNames: ['wd'], categories: ['all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          selectableFields: [{ jsonPath: '.spec.color' }],
          additionalPrinterColumns: [
            { name: 'Color', type: 'string', jsonPath: '.spec.color' },
            { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    color: { type: 'string', enum: ['red', 'blue'] },
                    size: { type: 'integer', default: 3, maximum: 10 },
                    free: { type: 'object', 'x-platform-preserve-unknown-fields': true },
                  },
                  'x-platform-validations': [{ rule: "self.size < 9 || self.color == 'red'", message: 'big widgets must be red' }],
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
      ...overrides,
    },
  };
}

const widget = (name: string, spec: Record<string, unknown>, group: string) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec });

const conditionOf = (crd: any, type: string) => (crd.status?.conditions ?? []).find((c: any) => c.type === type);

async function createCrd(api: TestApi, body: unknown): Promise<any> {
  const res = await api.request('POST', CRDS, { body });
  expect(res.status).toBe(201);
  return res.json();
}

/** Waits until the definition has `type` = `status` and returns it. */
async function waitCondition(api: TestApi, name: string, type: string, status = 'True'): Promise<any> {
  let crd: any;
  await eventually(async () => {
    crd = (await api.request('GET', `${CRDS}/${name}`)).json();
    return conditionOf(crd, type)?.status === status;
  }, `${name} ${type}=${status}`, 10_000);
  return crd;
}

/** Waits until `path` is served (not 404) by `api`. */
const waitServed = (api: TestApi, path: string) => eventually(async () => (await api.request('GET', path)).status !== 404, `${path} served`, 10_000);

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
  });

  describe('an accepted definition', () => {
    const group = `${uniqueName('g')}.example.com`;
    let base: string;
    beforeAll(async () => {
      await createCrd(api, widgetCrd(group));
      await waitCondition(api, `widgets.${group}`, 'Established');
      base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
      await waitServed(api, base);
    });

    it('has its names accepted, is Established and records its storage version', async () => {
      const crd = (await api.request('GET', `${CRDS}/widgets.${group}`)).json();
      expect(crd.status.acceptedNames).toEqual({ plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] });
      expect(conditionOf(crd, 'NamesAccepted')).toMatchObject({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
      expect(conditionOf(crd, 'Established')).toMatchObject({ status: 'True', reason: 'InitialNamesAccepted' });
      expect(crd.status.storedVersions).toEqual(['v1']);
    });

    it('is listed in legacy and aggregated discovery and in OpenAPI v3', async () => {
      const groups = (await api.request('GET', '/apis')).json();
      expect(groups.groups.find((g: any) => g.name === group)).toMatchObject({ preferredVersion: { groupVersion: `${group}/v1`, version: 'v1' } });
      const list = (await api.request('GET', `/apis/${group}/v1`)).json();
      const names = list.resources.map((r: any) => r.name).sort();
      expect(names).toEqual(['widgets', 'widgets/status']);
      expect(list.resources.find((r: any) => r.name === 'widgets')).toMatchObject({ kind: 'Widget', namespaced: true, shortNames: ['wd'], categories: ['all'], singularName: 'widget' });
      const aggregated = (await api.request('GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } })).json();
      expect(aggregated.items.find((g: any) => g.metadata.name === group)?.versions[0].resources[0]).toMatchObject({ resource: 'widgets', responseKind: { group, version: 'v1', kind: 'Widget' } });
      const root = (await api.request('GET', '/openapi/v3')).json();
      expect(Object.keys(root.paths)).toContain(`apis/${group}/v1`);
    });

    it('prunes unknown fields, keeps preserved ones, defaults, and drops status on create', async () => {
      const res = await api.request('POST', base, { body: { ...widget('pruned', { color: 'blue', junk: 1, free: { any: { thing: true } } }, group), status: { ready: true } } });
      expect(res.status).toBe(201);
      const obj = res.json();
      expect(obj.spec).toEqual({ color: 'blue', size: 3, free: { any: { thing: true } } });
      expect(obj.status).toBeUndefined();
      expect(obj.metadata.generation).toBe(1);
    });

    it('rejects invalid objects with every cause in one 422, CEL messages included', async () => {
      const res = await api.request('POST', base, { body: widget('bad', { color: 'green', size: 11 }, group) });
      expect(res.status).toBe(422);
      const status = res.json();
      expect(status.reason).toBe('Invalid');
      const causes = status.details.causes.map((c: any) => `${c.field}: ${c.message}`);
      expect(causes).toEqual(expect.arrayContaining([expect.stringContaining('spec.color: Unsupported value: "green"'), expect.stringContaining('spec.size: Invalid value: 11')]));
      const cel = await api.request('POST', base, { body: widget('bad2', { color: 'blue', size: 9 }, group) });
      expect(cel.status).toBe(422);
      expect(cel.json().message).toBe(`Widget.${group} "bad2" is invalid: spec: Invalid value: "object": big widgets must be red`);
      expect((await api.request('GET', `${base}/bad2`)).status).toBe(404);
    });

    it('keeps status on main writes and spec on status writes; generation follows the spec', async () => {
      await api.request('POST', base, { body: widget('st', { color: 'red' }, group) });
      const withStatus = await api.request('PUT', `${base}/st/status`, { body: { ...widget('st', { color: 'blue' }, group), status: { ready: true } } });
      expect(withStatus.status).toBe(200);
      expect(withStatus.json()).toMatchObject({ spec: { color: 'red' }, status: { ready: true }, metadata: { generation: 1 } });
      const main = await api.request('PATCH', `${base}/st`, { body: { spec: { size: 5 }, status: { ready: false } } });
      expect(main.json()).toMatchObject({ spec: { color: 'red', size: 5 }, status: { ready: true }, metadata: { generation: 2 } });
    });

    it('serves tables from the printer columns, and the selectable field as a field selector', async () => {
      await api.request('POST', base, { body: widget('tbl-a', { color: 'red', size: 7 }, group) });
      await api.request('POST', base, { body: widget('tbl-b', { color: 'blue', size: 2 }, group) });
      const table = (await api.request('GET', base, { query: { fieldSelector: 'spec.color=blue' }, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).json();
      // The printer columns replace the default Age column (a definition lists Age itself when it wants it).
      expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Color', 'Size']);
      const rows = table.rows.map((r: any) => r.cells.slice(0, 3));
      expect(rows).toContainEqual(['tbl-b', 'blue', 2]);
      expect(rows.every((r: unknown[]) => r[1] === 'blue')).toBe(true);
      const bad = await api.request('GET', base, { query: { fieldSelector: 'spec.size=2' } });
      expect(bad.status).toBe(400);
    });

    it('takes JSON patch, merge patch and apply; refuses strategic merge patch with 415', async () => {
      await api.request('POST', base, { body: widget('p', { color: 'blue' }, group) });
      const json = await api.request('PATCH', `${base}/p`, { body: [{ op: 'replace', path: '/spec/size', value: 4 }], headers: { 'Content-Type': 'application/json-patch+json' } });
      expect(json.json().spec.size).toBe(4);
      const applied = await api.request('PATCH', `${base}/p`, {
        body: JSON.stringify(widget('p', { color: 'red' }, group)),
        query: { fieldManager: 'tester', force: 'true' },
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
      });
      expect(applied.status).toBe(200);
      expect(applied.json().spec.color).toBe('red');
      expect(applied.json().metadata.managedFields.map((m: any) => m.manager)).toContain('tester');
      const smp = await api.request('PATCH', `${base}/p`, { body: { spec: { size: 1 } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
      expect(smp.status).toBe(415);
    });

    it('are deleted with their namespace', async () => {
      const doomed = await createNamespace(api);
      const path = `/apis/${group}/v1/namespaces/${doomed}/widgets`;
      expect((await api.request('POST', path, { body: widget('gone', { color: 'red' }, group) })).status).toBe(201);
      expect((await api.request('DELETE', `/api/v1/namespaces/${doomed}`)).status).toBe(200);
      await eventually(async () => (await api.request('GET', `/api/v1/namespaces/${doomed}`)).status === 404, 'namespace removed');
      expect((await api.request('GET', `${path}/gone`)).status).toBe(404);
    });

    it('watches, honours dry run and deletes collections', async () => {
      const w = await openWatch(api, base, { resourceVersion: (await api.request('GET', base)).json().metadata.resourceVersion });
      const dry = await api.request('POST', base, { body: widget('dry', { color: 'red' }, group), query: { dryRun: 'All' } });
      expect(dry.status).toBe(201);
      await api.request('POST', base, { body: widget('watched', { color: 'red' }, group) });
      const ev = await w.next();
      expect(ev).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'watched' } } });
      expect((await api.request('GET', `${base}/dry`)).status).toBe(404);
      const deleted = await api.request('DELETE', base, { query: { labelSelector: '' } });
      expect(deleted.status).toBe(200);
      expect((await api.request('GET', base)).json().items).toEqual([]);
      await w.until((e) => e.type === 'DELETED' && e.object.metadata.name === 'watched');
      w.close();
    });
  });

  it('treats members JSONSchemaProps lacks (Kubernetes-spelled extensions here) as unknown fields', async () => {
    const group = `${uniqueName('g')}.example.com`;
    const body = widgetCrd(group) as any;
    body.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'false', messagex: 'x' }];
    body.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-platform-validations'][0].messagex = 'typo';
    const strict = await api.request('POST', CRDS, { body, query: { fieldValidation: 'Strict' } });
    expect(strict.status).toBe(400);
    expect(strict.json().message).toBe(
      'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: ' +
        'unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations", ' +
        'unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.x-platform-validations[0].messagex"',
    );
    const warned = await api.request('POST', CRDS, { body, query: { fieldValidation: 'Warn' } });
    expect(warned.status).toBe(201);
    expect(warned.warnings().join('\n')).toContain('unknown field \\"spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations\\"');
    const spec = warned.json().spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec['x-kubernetes-validations']).toBeUndefined();
    expect(spec['x-platform-validations']).toEqual([{ rule: "self.size < 9 || self.color == 'red'", message: 'big widgets must be red' }]);
  });

  it('does not accept names another definition of the group holds', async () => {
    const group = `${uniqueName('g')}.example.com`;
    await createCrd(api, widgetCrd(group));
    await waitCondition(api, `widgets.${group}`, 'Established');
    const gadgets = widgetCrd(group);
    gadgets.metadata.name = `gadgets.${group}`;
    gadgets.spec.names = { kind: 'Gadget', plural: 'gadgets', shortNames: ['wd'], categories: [] };
    await createCrd(api, gadgets);
    const crd = await waitCondition(api, `gadgets.${group}`, 'NamesAccepted', 'False');
    expect(conditionOf(crd, 'NamesAccepted')).toMatchObject({ reason: 'ShortNamesConflict', message: '"wd" is already in use' });
    expect(conditionOf(crd, 'Established')).toMatchObject({ status: 'False', reason: 'NotAccepted' });
    expect((await api.request('GET', `/apis/${group}/v1/gadgets`)).status).toBe(404);
    // Freed by the other definition's deletion: accepted and served.
    expect((await api.request('DELETE', `${CRDS}/widgets.${group}`)).status).toBe(200);
    await waitCondition(api, `gadgets.${group}`, 'Established');
    await waitServed(api, `/apis/${group}/v1/gadgets`);
  });

  it('does not accept a plural a built-in resource of the group serves', async () => {
    const crd = widgetCrd('rbac.platform.io');
    crd.metadata.name = 'roles.rbac.platform.io';
    crd.spec.names = { kind: 'Role2', plural: 'roles', shortNames: [], categories: [] };
    await createCrd(api, crd);
    const got = await waitCondition(api, 'roles.rbac.platform.io', 'NamesAccepted', 'False').catch(async (err) => {
      throw new Error(`${err.message}: ${(await api.request('GET', `${CRDS}/roles.rbac.platform.io`)).text()}`);
    });
    expect(conditionOf(got, 'NamesAccepted')).toMatchObject({ reason: 'PluralConflict', message: '"roles" is already in use' });
    // The built-in resource is untouched.
    expect((await api.request('GET', '/apis/rbac.platform.io/v1/roles')).json().kind).toBe('RoleList');
    expect((await api.request('DELETE', `${CRDS}/roles.rbac.platform.io`)).status).toBe(200);
    await eventually(async () => (await api.request('GET', `${CRDS}/roles.rbac.platform.io`)).status === 404, 'definition removed');
  });

  it('deletes the instances before the definition; an instance finalizer holds it Terminating; re-created it serves again', async () => {
    const group = `${uniqueName('g')}.example.com`;
    const name = `widgets.${group}`;
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await createCrd(api, widgetCrd(group));
    await waitCondition(api, name, 'Established');
    await waitServed(api, base);
    const other = await createNamespace(api);
    await api.request('POST', base, { body: widget('plain', { color: 'red' }, group) });
    await api.request('POST', `/apis/${group}/v1/namespaces/${other}/widgets`, { body: widget('held', { color: 'red' }, group) });
    await api.request('PATCH', `/apis/${group}/v1/namespaces/${other}/widgets/held`, { body: { metadata: { finalizers: ['example.com/hold'] } } });

    const del = await api.request('DELETE', `${CRDS}/${name}`);
    expect(del.status).toBe(200);
    expect(del.json().metadata.finalizers).toContain('customresourcecleanup.apiextensions.platform.io');
    expect(conditionOf(del.json(), 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionPending' });

    await eventually(async () => (await api.request('GET', `${base}/plain`)).status === 404, 'plain instance deleted');
    const terminating = await waitCondition(api, name, 'Terminating');
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    const create = await api.request('POST', base, { body: widget('late', { color: 'red' }, group) });
    expect(create.status).toBe(405);
    expect(create.json().message).toBe('create not allowed while custom resource definition is terminating');
    expect((await api.request('GET', `/apis/${group}/v1/widgets`)).json().items.map((i: any) => i.metadata.name)).toEqual(['held']);

    await api.request('PATCH', `/apis/${group}/v1/namespaces/${other}/widgets/held`, { body: { metadata: { finalizers: null } } });
    await eventually(async () => (await api.request('GET', `${CRDS}/${name}`)).status === 404, 'definition removed', 90_000);
    await eventually(async () => (await api.request('GET', base)).status === 404, 'resource no longer served');
    expect((await api.request('GET', `/apis/${group}/v1`)).status).toBe(404);

    await createCrd(api, widgetCrd(group));
    await waitCondition(api, name, 'Established');
    await waitServed(api, base);
    expect((await api.request('GET', base)).json().items).toEqual([]);
    expect((await api.request('POST', base, { body: widget('again', { color: 'red' }, group) })).status).toBe(201);
  }, 120_000);

  if (b.name === 'etcd') {
    it('two replicas: a definition created through one is served by the other, whose writes the first watches', async () => {
      const prefix = `/registry-crd-${process.pid}`;
      const a = await b.start({ storagePrefix: prefix });
      const c = await b.start({ storagePrefix: prefix });
      const group = `${uniqueName('g')}.example.com`;
      const space = await createNamespace(a);
      await createCrd(a, widgetCrd(group));
      const base = `/apis/${group}/v1/namespaces/${space}/widgets`;
      await waitServed(c, base);
      const w = await openWatch(a, base, { resourceVersion: '0' });
      expect((await c.request('POST', base, { body: widget('from-c', { color: 'red' }, group) })).status).toBe(201);
      expect(await w.until((e) => e.type === 'ADDED')).toMatchObject({ object: { metadata: { name: 'from-c' } } });
      w.close();
    });
  }
});
