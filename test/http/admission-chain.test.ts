/**
 * The admission chain on every write, through HTTP: a recording plugin (added after NamespaceLifecycle)
 * sees each phase with Kubernetes' attributes — operation, objects, name, namespace, resource,
 * sub-resource, kind, options, dryRun, user — for create, PUT, PUT that creates, patch, apply (update and
 * create), delete, each object of a delete collection, `/status`, `/scale` (as the Scale), the token
 * sub-resource (as the TokenRequest) and dry runs; a plugin that denies stops the write with its Status and
 * nothing is stored; warnings become Warning headers. NamespaceLifecycle is the chain's first plugin.
 */
import type { AdmissionAttributes } from '../../apiserver/admission/attributes.js';
import type { AdmissionPlugin } from '../../apiserver/admission/plugin.js';
import { StatusError } from '../../apiserver/errors/status-error.js';
import { eventually } from '../server/helpers.js';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

interface Seen {
  readonly phase: 'admit' | 'validate';
  readonly a: AdmissionAttributes;
  /** The object as the phase saw it (mutating plugins after this one may change it later). */
  readonly object: any;
}

/** Records every call; denies objects labelled `deny=<phase>`; warns on `warn=yes`; mutates on `mutate=yes`. */
function recorder(seen: Seen[]): AdmissionPlugin {
  const deny = (phase: 'admit' | 'validate', a: AdmissionAttributes): void => {
    const labels = (a.object ?? a.oldObject)?.metadata?.labels ?? {};
    if (labels['deny'] === phase || (a.operation === 'DELETE' && labels['deny-delete'] === phase)) throw new StatusError('Forbidden', `denied by the recorder in ${phase}`, { name: a.name, kind: a.resource.resource });
  };
  return {
    name: 'Recorder',
    admit(a) {
      seen.push({ phase: 'admit', a, object: structuredClone(a.object) });
      if (a.object?.metadata?.labels?.['mutate'] === 'yes') a.object.metadata.annotations = { ...a.object.metadata.annotations, mutated: 'by-admission' };
      deny('admit', a);
    },
    validate(a) {
      seen.push({ phase: 'validate', a, object: structuredClone(a.object) });
      if (a.object?.metadata?.labels?.['warn'] === 'yes') a.addWarning('the recorder warns');
      deny('validate', a);
    },
  };
}

const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: 'v' } });

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  const seen: Seen[] = [];
  const take = (): Seen[] => seen.splice(0);
  beforeAll(async () => {
    api = await b.start({}, { admissionPlugins: () => [recorder(seen)] });
    ns = await createNamespace(api);
    take();
  });
  const path = () => `/api/v1/namespaces/${ns}/configmaps`;

  it('create: admit then validate, with Kubernetes attributes; a mutation is stored and the kind defaults after it', async () => {
    const res = await api.request('POST', path(), { body: cm('c1', { mutate: 'yes' }), query: { fieldManager: 'tester' } });
    expect(res.status).toBe(201);
    expect(res.json().metadata.annotations).toEqual({ mutated: 'by-admission' });
    const [admit, validate, ...rest] = take();
    expect(rest).toEqual([]);
    expect(admit!.phase).toBe('admit');
    expect(validate!.phase).toBe('validate');
    expect(admit!.a).toMatchObject({
      operation: 'CREATE',
      name: 'c1',
      namespace: ns,
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      subresource: '',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tester' },
      dryRun: false,
      oldObject: undefined,
    });
    expect(admit!.a.userInfo?.groups).toContain('system:masters');
    // The validating phase sees the object as the kind prepared it (uid, creationTimestamp).
    expect(admit!.object.metadata.uid).toBeUndefined();
    expect(validate!.object.metadata.uid).toBe(res.json().metadata.uid);
  });

  it('a denial in either phase is the plugin Status and stores nothing; warnings reach the client', async () => {
    for (const phase of ['admit', 'validate']) {
      const res = await api.request('POST', path(), { body: cm(`denied-${phase}`, { deny: phase }) });
      expect(res.status).toBe(403);
      expect(res.json().message).toBe(`denied by the recorder in ${phase}`);
      expect((await api.request('GET', `${path()}/denied-${phase}`)).status).toBe(404);
    }
    const warned = await api.request('POST', path(), { body: cm('warned', { warn: 'yes' }) });
    expect(warned.status).toBe(201);
    expect(warned.warnings()).toEqual(['299 - "the recorder warns"']);
    take();
  });

  it('generateName: the validating phase knows the generated name', async () => {
    const res = await api.request('POST', path(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
    const [admit, validate] = take();
    expect(admit!.a.name).toBe('');
    expect(validate!.a.name).toBe(res.json().metadata.name);
  });

  it('update, patch and apply are UPDATE with both objects; PUT and apply that create are CREATE', async () => {
    await api.request('POST', path(), { body: cm('u1') });
    take();
    expect((await api.request('PUT', `${path()}/u1`, { body: { ...cm('u1'), data: { k: 'put' } } })).status).toBe(200);
    expect((await api.request('PATCH', `${path()}/u1`, { body: { data: { k: 'patched' } } })).status).toBe(200);
    const apply = await api.request('PATCH', `${path()}/u1`, {
      body: JSON.stringify({ ...cm('u1'), data: { k: 'applied' } }),
      query: { fieldManager: 'applier', force: 'true' },
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(200);
    const updates = take();
    expect(updates.map((s) => `${s.phase} ${s.a.operation} ${(s.a.options as any).kind} ${s.object.data.k} ${(s.a.oldObject as any)?.data?.k}`)).toEqual([
      'admit UPDATE UpdateOptions put v',
      'validate UPDATE UpdateOptions put v',
      'admit UPDATE PatchOptions patched put',
      'validate UPDATE PatchOptions patched put',
      'admit UPDATE PatchOptions applied patched',
      'validate UPDATE PatchOptions applied patched',
    ]);
    expect(updates[4]!.a.options).toMatchObject({ force: true, fieldManager: 'applier' });

    const created = await api.request('PATCH', `${path()}/a-new`, {
      body: JSON.stringify(cm('a-new')),
      query: { fieldManager: 'applier' },
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(created.status).toBe(201);
    expect(take().map((s) => `${s.phase} ${s.a.operation} ${s.a.oldObject === undefined}`)).toEqual(['admit CREATE true', 'validate CREATE true']);
  });

  it('dry run passes through the chain with dryRun set, and stores nothing', async () => {
    const res = await api.request('POST', path(), { body: cm('dry'), query: { dryRun: 'All' } });
    expect(res.status).toBe(201);
    const calls = take();
    expect(calls.map((s) => [s.phase, s.a.dryRun, (s.a.options as any).dryRun])).toEqual([
      ['admit', true, ['All']],
      ['validate', true, ['All']],
    ]);
    expect((await api.request('GET', `${path()}/dry`)).status).toBe(404);
  });

  it('delete is DELETE with the old object; a delete collection admits each object; a denied delete keeps it', async () => {
    await api.request('POST', path(), { body: cm('d1') });
    take();
    const del = await api.request('DELETE', `${path()}/d1`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' } });
    expect(del.status).toBe(200);
    const [admit, validate] = take();
    expect(admit!.a).toMatchObject({ operation: 'DELETE', name: 'd1', object: undefined, options: { kind: 'DeleteOptions', propagationPolicy: 'Background' } });
    expect((validate!.a.oldObject as any).metadata.name).toBe('d1');

    const space = await createNamespace(api);
    const other = `/api/v1/namespaces/${space}/configmaps`;
    await api.request('POST', other, { body: cm('x1') });
    await api.request('POST', other, { body: cm('x2') });
    take();
    const coll = await api.request('DELETE', other, { query: { labelSelector: '' } });
    expect(coll.status).toBe(200);
    const names = take().filter((s) => s.phase === 'validate').map((s) => `${s.a.operation} ${s.a.namespace}/${s.a.name}`);
    expect(names.sort()).toEqual([`DELETE ${space}/x1`, `DELETE ${space}/x2`]);

    // A denied delete leaves the object.
    await api.request('POST', path(), { body: cm('kept') });
    await api.request('PATCH', `${path()}/kept`, { body: { metadata: { labels: { 'deny-delete': 'validate' } } } });
    take();
    expect((await api.request('DELETE', `${path()}/kept`)).status).toBe(403);
    expect((await api.request('GET', `${path()}/kept`)).status).toBe(200);
  });

  it('/status and the token sub-resource are admitted under their parent resource (the TokenRequest as its kind)', async () => {
    // status: the Namespace's status sub-resource.
    const space = await createNamespace(api);
    take();
    const status = await api.request('PUT', `/api/v1/namespaces/${space}/status`, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: space }, status: { phase: 'Active' } } });
    expect(status.status).toBe(200);
    expect(take()[0]!.a).toMatchObject({ operation: 'UPDATE', subresource: 'status', resource: { resource: 'namespaces' }, kind: { kind: 'Namespace' } });

    // token: a TokenRequest CREATE on serviceaccounts/token.
    await api.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa1' } } });
    take();
    const token = await api.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/sa1/token`, { body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: {} } });
    expect(token.text()).toContain('"kind":"TokenRequest"');
    expect(token.status).toBe(201);
    const [t] = take();
    expect(t!.a).toMatchObject({ operation: 'CREATE', name: 'sa1', subresource: 'token', resource: { resource: 'serviceaccounts' }, kind: { kind: 'TokenRequest' } });
  });

  it('/scale is admitted as the Scale (autoscaling/v1) under the parent resource', async () => {
    const group = `${uniqueName('g')}.example.com`;
    const crd = {
      apiVersion: 'apiextensions.platform.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        names: { kind: 'Widget', plural: 'widgets' },
        scope: 'Namespaced',
        versions: [{
          name: 'v1', served: true, storage: true,
          subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } } } },
        }],
      },
    };
    expect((await api.request('POST', '/apis/apiextensions.platform.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const widgets = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await eventually(async () => (await api.request('GET', widgets)).status === 200, 'widgets served', 10_000);
    await api.request('POST', widgets, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } } });
    take();
    const res = await api.request('PATCH', `${widgets}/w/scale`, { body: { spec: { replicas: 3 } } });
    expect(res.status).toBe(200);
    const [admit, validate] = take();
    expect(admit!.a).toMatchObject({ operation: 'UPDATE', subresource: 'scale', resource: { group, resource: 'widgets' }, kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } });
    expect(validate!.object).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 } });
    expect((validate!.a.oldObject as any).spec).toEqual({ replicas: 1 });
  });

  it('NamespaceLifecycle runs first: a create in a missing namespace is 404 before the recorder is asked', async () => {
    const res = await api.request('POST', `/api/v1/namespaces/${uniqueName('missing')}/configmaps`, { body: cm('c') });
    expect(res.status).toBe(404);
    expect(take()).toEqual([]);
    const immortal = await api.request('DELETE', '/api/v1/namespaces/default');
    expect(immortal.status).toBe(403);
    expect(immortal.json().message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });
});
