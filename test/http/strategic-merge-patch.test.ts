/**
 * Strategic merge patch through HTTP on real servers, on the embedded store and on a real etcd: list merges
 * by key with every directive as kubectl sends them, atomic lists, the status sub-resource, the decode
 * path after the merge (fieldValidation), dryRun, concurrent patches in the registry's retry loop, the
 * errors Kubernetes answers, and what OpenAPI tells kubectl.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const SMP = { 'Content-Type': 'application/strategic-merge-patch+json' };

type Container = { name: string; image?: string; env?: { name: string; value?: string }[]; ports?: unknown[] };

const podTemplate = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name },
  template: {
    metadata: { labels: { app: name } },
    spec: {
      containers: [
        { name: 'web', image: 'nginx:1.27', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }] },
        { name: 'sidecar', image: 'busybox:1.36', args: ['sleep', 'inf'] },
      ],
      tolerations: [{ key: 'a', operator: 'Exists' }],
    },
  },
});

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  const path = (resource: string, name = ''): string => `/api/v1/namespaces/${ns}/${resource}${name === '' ? '' : `/${name}`}`;
  const smp = (p: string, body: unknown, query?: Record<string, string>) => api.request('PATCH', p, { headers: SMP, body, ...(query === undefined ? {} : { query }) });
  const containersOf = (obj: any): Container[] => obj.template.spec.containers;

  async function createTemplate(name = uniqueName('pt')): Promise<string> {
    const res = await api.request('POST', path('podtemplates'), { body: podTemplate(name) });
    expect(res.status).toBe(201);
    return name;
  }

  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api, uniqueName('smp'));
  });

  it('merges containers by name and env by name; untouched elements, images and defaults stay', async () => {
    const name = await createTemplate();
    const res = await smp(path('podtemplates', name), { template: { spec: { containers: [{ name: 'web', env: [{ name: 'B', value: '3' }, { name: 'C', value: 'c' }] }] } } });
    expect(res.status).toBe(200);
    const [web, sidecar] = containersOf(res.json());
    expect(web).toMatchObject({ name: 'web', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80, protocol: 'TCP' }] });
    expect(web!.env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '3' }, { name: 'C', value: 'c' }]);
    expect(sidecar).toMatchObject({ name: 'sidecar', args: ['sleep', 'inf'] });
    expect(res.json().metadata.generation).toBe(2);
    const stored = (await api.request('GET', path('podtemplates', name))).json();
    expect(stored).toEqual(res.json());
  });

  it('client-side apply patch: $setElementOrder, $patch: delete of a container, last-applied annotation', async () => {
    const name = await createTemplate();
    const lastApplied = JSON.stringify({ kind: 'PodTemplate' });
    const res = await smp(path('podtemplates', name), {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } },
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'web' }],
          containers: [{ '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }], env: [{ name: 'B', value: 'two' }], name: 'web' }, { $patch: 'delete', name: 'sidecar' }],
        },
      },
    });
    expect(res.status).toBe(200);
    const obj = res.json();
    expect(containersOf(obj).map((c) => c.name)).toEqual(['web']);
    expect(containersOf(obj)[0]!.env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: 'two' }]);
    expect(obj.metadata.annotations).toEqual({ 'kubectl.kubernetes.io/last-applied-configuration': lastApplied });
  });

  it('$setElementOrder reorders; $patch: replace replaces the list; tolerations (atomic) are replaced', async () => {
    const name = await createTemplate();
    const reordered = await smp(path('podtemplates', name), { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'web' }] } } });
    expect(containersOf(reordered.json()).map((c) => c.name)).toEqual(['sidecar', 'web']);
    const replaced = await smp(path('podtemplates', name), {
      template: { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'redis:7' }], tolerations: [{ key: 'b', operator: 'Exists' }] } },
    });
    expect(replaced.status).toBe(200);
    expect(containersOf(replaced.json()).map((c) => [c.name, c.image])).toEqual([['only', 'redis:7']]);
    expect(replaced.json().template.spec.tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
  });

  it('ConfigMap data merges; null deletes a key; finalizers merge as a set and $deleteFromPrimitiveList removes one', async () => {
    const name = uniqueName('cm');
    expect((await api.request('POST', path('configmaps'), { body: { metadata: { name, finalizers: ['example.com/a'] }, data: { x: '1', y: '2' } } })).status).toBe(201);
    const merged = await smp(path('configmaps', name), { data: { y: null, z: '3' }, metadata: { finalizers: ['example.com/b'] } });
    expect(merged.status).toBe(200);
    expect(merged.json().data).toEqual({ x: '1', z: '3' });
    expect(merged.json().metadata.finalizers).toEqual(['example.com/b', 'example.com/a']);
    const removed = await smp(path('configmaps', name), { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'example.com/b'] } });
    expect(removed.json().metadata.finalizers).toBeUndefined();
    expect((await api.request('DELETE', path('configmaps', name))).status).toBe(200);
  });

  it('Node status sub-resource: conditions merge by type', async () => {
    const name = uniqueName('node');
    const created = await api.request('POST', '/api/v1/nodes', {
      body: { metadata: { name }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'MemoryPressure', status: 'False' }] } },
    });
    expect(created.status).toBe(201);
    await api.request('PATCH', `/api/v1/nodes/${name}/status`, { body: { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'MemoryPressure', status: 'False' }] } } });
    const res = await smp(`/api/v1/nodes/${name}/status`, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletDown' }] } });
    expect(res.status).toBe(200);
    expect(res.json().status.conditions.map((c: { type: string; status: string }) => [c.type, c.status])).toEqual([['Ready', 'False'], ['MemoryPressure', 'False']]);
    expect((await api.request('DELETE', `/api/v1/nodes/${name}`)).status).toBe(200);
  });

  it('the merged object is decoded like a body: unknown fields and duplicate keys are upstream 422 under Strict, warnings under Warn', async () => {
    const name = await createTemplate();
    const body = { template: { spec: { containers: [{ name: 'web', bogus: 1 }] } } };
    const strict = await smp(path('podtemplates', name), body, { fieldValidation: 'Strict' });
    const value = '"map[template:map[spec:map[containers:[map[bogus:1 name:web]]]]]"';
    const detail = `Invalid value: ${value}: strict decoding error: unknown field "template.spec.containers[0].bogus"`;
    expect({ status: strict.status, body: strict.json() }).toEqual({
      status: 422,
      body: {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
        message: ` "" is invalid: patch: ${detail}`,
        details: { causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }] },
      },
    });
    const warn = await smp(path('podtemplates', name), body, { fieldValidation: 'Warn' });
    expect(warn.status).toBe(200);
    expect(warn.warnings()).toEqual(['299 - "unknown field \\"template.spec.containers[0].bogus\\""']);
    const dup = await smp(path('podtemplates', name), '{"metadata":{"labels":{"a":"1","a":"2"}}}', { fieldValidation: 'Strict' });
    expect(dup.status).toBe(422);
    expect(dup.json().message).toBe(' "" is invalid: patch: Invalid value: "map[metadata:map[labels:map[a:2]]]": strict decoding error: duplicate field "metadata.labels.a"');
    const ignored = await smp(path('podtemplates', name), '{"metadata":{"labels":{"a":"1","a":"2"}}}', { fieldValidation: 'Ignore' });
    expect(ignored.json().metadata.labels).toEqual({ a: '2' });
  });

  it('dryRun=All answers the merge and stores nothing', async () => {
    const name = await createTemplate();
    const before = (await api.request('GET', path('podtemplates', name))).json();
    const res = await smp(path('podtemplates', name), { template: { spec: { containers: [{ $patch: 'delete', name: 'web' }] } } }, { dryRun: 'All' });
    expect(res.status).toBe(200);
    expect(containersOf(res.json()).map((c) => c.name)).toEqual(['sidecar']);
    expect((await api.request('GET', path('podtemplates', name))).json()).toEqual(before);
  });

  it('concurrent strategic patches are all kept (applied again on conflict)', async () => {
    const name = await createTemplate();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => smp(path('podtemplates', name), { template: { spec: { containers: [{ name: 'web', env: [{ name: `V${i}`, value: String(i) }] }] } } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const env = containersOf((await api.request('GET', path('podtemplates', name))).json())[0]!.env!.map((e) => e.name);
    expect(env.sort()).toEqual(['A', 'B', 'V0', 'V1', 'V2', 'V3', 'V4', 'V5']);
  });

  it('errors as Kubernetes answers them (its 500s for a malformed patch are 400 here)', async () => {
    const name = await createTemplate();
    const noKey = await smp(path('podtemplates', name), { template: { spec: { containers: [{ image: 'httpd' }] } } });
    expect(noKey.status).toBe(400);
    expect(noKey.json().message).toBe('map: map[image:httpd] does not contain declared merge key: name');
    const retain = await smp(path('podtemplates', name), { template: { $retainKeys: ['metadata'], spec: {} } });
    expect(retain.status).toBe(400);
    expect(retain.json()).toMatchObject({ reason: 'BadRequest', message: 'invalid patch format of retainKeys' });
    const listMerge = await smp(path('podtemplates', name), { template: { spec: { containers: [{ $patch: 'merge' }] } } });
    expect(listMerge.json().message).toBe('merging lists cannot yet be specified in the patch');
    const notObject = await smp(path('podtemplates', name), [{ op: 'add' }]);
    expect(notObject.status).toBe(400);
    expect(notObject.json().message).toBe('json: cannot unmarshal array into Go value of type map[string]interface {}');
    const missing = await smp(path('podtemplates', uniqueName('missing')), { metadata: { labels: { a: 'b' } } });
    expect(missing.status).toBe(404);
    const unknownType = await api.request('PATCH', path('podtemplates', name), { headers: { 'Content-Type': 'application/x-unknown' }, body: {} });
    expect(unknownType.status).toBe(415);
    expect(unknownType.json().message).toMatch(/^the body of the request was in an unknown format - accepted media types include: .*application\/strategic-merge-patch\+json/);
    // Nothing of the failed patches was stored.
    expect(containersOf((await api.request('GET', path('podtemplates', name))).json()).map((c) => c.name)).toEqual(['web', 'sidecar']);
  });

  it('OpenAPI v3 lists strategic merge patch on PATCH and publishes the merge keys', async () => {
    const doc = (await api.request('GET', '/openapi/v3/api/v1')).json();
    const op = doc.paths['/api/v1/namespaces/{namespace}/podtemplates/{name}'].patch;
    expect(Object.keys(op.requestBody.content)).toContain('application/strategic-merge-patch+json');
    const text = JSON.stringify(doc.components.schemas);
    expect(text).toContain('"x-platform-patch-merge-key":"containerPort"');
    expect(text).toContain('"x-platform-patch-strategy":"merge,retainKeys"');
    // and under the names kubectl reads to compute client-side apply patches
    expect(text).toContain('"x-kubernetes-patch-merge-key":"containerPort"');
    expect(text).toContain('"x-kubernetes-patch-strategy":"merge,retainKeys"');
  });
});
