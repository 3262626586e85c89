/**
 * The workload kinds over HTTP on both backends: `apps/v1` StatefulSet and core/v1 ReplicationController
 * served (discovery with short names, category `all`, `status` and `scale`), each in one round trip:
 * create with Kubernetes v1.32's defaults, validation as a 422 Status with causes, the immutable fields
 * (StatefulSet), the status sub-resource and its invariants, the `scale` sub-resource (get, update,
 * merge and strategic merge patch, a negative count refused on the Scale), generation tracking, kubectl's
 * table, protobuf, and a delete that answers a Status.
 */
import { parseControllers } from '../../apiserver/config/controllers-flag.js';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const IMMUTABLE =
  "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

type Obj = Record<string, any>;

const statefulSet = (name: string): Obj => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name },
  spec: {
    serviceName: name,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] },
    },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } } }],
  },
});

const replicationController = (name: string): Obj => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name },
  spec: { template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
});

const causesOf = (res: ApiResponse): [string, string][] => res.json().details.causes.map((c: { field: string; reason: string }) => [c.field, c.reason]);

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    // The kinds alone: their controllers (which write pods and status) have their own suites.
    api = await b.start({ controllers: parseControllers(['*', '-statefulset-controller', '-replicationcontroller-controller']) });
    ns = await createNamespace(api);
  });

  it('discovery: statefulsets (sts) in apps/v1 and replicationcontrollers (rc) in v1, with status and scale', async () => {
    const apps = (await api.request('GET', '/apis/apps/v1')).json();
    const byName = new Map(apps.resources.map((r: { name: string }) => [r.name, r]));
    expect([...byName.keys()].filter((n) => String(n).startsWith('statefulsets')).sort()).toEqual(['statefulsets', 'statefulsets/scale', 'statefulsets/status']);
    expect(byName.get('statefulsets')).toEqual(expect.objectContaining({ kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'] }));
    expect(byName.get('statefulsets/scale')).toEqual(expect.objectContaining({ kind: 'Scale', group: 'autoscaling', version: 'v1' }));
    const core = (await api.request('GET', '/api/v1')).json();
    const rc = core.resources.filter((r: { name: string }) => r.name.startsWith('replicationcontrollers'));
    expect(rc.map((r: { name: string }) => r.name).sort()).toEqual(['replicationcontrollers', 'replicationcontrollers/scale', 'replicationcontrollers/status']);
    expect(rc.find((r: { name: string }) => r.name === 'replicationcontrollers')).toEqual(expect.objectContaining({ kind: 'ReplicationController', shortNames: ['rc'], categories: ['all'] }));
  });

  it('StatefulSet round trip: defaults, 422 causes, scale, status, immutable spec, table, protobuf, delete answers a Status', async () => {
    const name = uniqueName('sts');
    const path = `/apis/apps/v1/namespaces/${ns}/statefulsets`;

    const bad = statefulSet(name);
    bad.spec.serviceName = '';
    bad.spec.template.spec.restartPolicy = 'Never';
    bad.spec.selector = { matchLabels: { app: 'other' } };
    const refused = await api.request('POST', path, { body: bad });
    expect(refused.status).toBe(422);
    expect(causesOf(refused)).toEqual([
      ['spec.serviceName', 'FieldValueRequired'],
      ['spec.template.metadata.labels', 'FieldValueInvalid'],
      ['spec.template.spec.restartPolicy', 'FieldValueNotSupported'],
    ]);

    // Pods are named <set>-<ordinal>: the set's name is a DNS label (a subdomain with dots is refused).
    const dotted = await api.request('POST', path, { body: statefulSet(`${name}.v1`) });
    expect(dotted.status).toBe(422);
    expect(causesOf(dotted)).toEqual([['metadata.name', 'FieldValueInvalid']]);

    const created = await api.request('POST', path, { body: { ...statefulSet(name), status: { replicas: 5 } } });
    expect(created.status).toBe(201);
    const sts = created.json();
    expect(sts.metadata.generation).toBe(1);
    expect(sts.spec).toMatchObject({
      replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
    expect(sts.spec.volumeClaimTemplates[0]).toMatchObject({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      spec: { volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' },
    });
    expect(sts.status).toEqual({ replicas: 0, availableReplicas: 0 });

    // The scale sub-resource: the Scale of the set, then writes through it.
    const scale = await api.request('GET', `${path}/${name}/scale`);
    expect(scale.json()).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 0, selector: `app=${name}` } });
    const put = await api.request('PUT', `${path}/${name}/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 3 } } });
    expect(put.status).toBe(200);
    expect(put.json().spec).toEqual({ replicas: 3 });
    const smp = await api.request('PATCH', `${path}/${name}/scale`, { body: { spec: { replicas: 4 } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(200);
    const merge = await api.request('PATCH', `${path}/${name}/scale`, { body: { spec: { replicas: 2 } } });
    expect(merge.json().spec).toEqual({ replicas: 2 });
    const negative = await api.request('PATCH', `${path}/${name}/scale`, { body: { spec: { replicas: -1 } } });
    expect(negative.status).toBe(422);
    expect(negative.json().details).toMatchObject({ kind: 'Scale', causes: [{ field: 'spec.replicas', reason: 'FieldValueInvalid' }] });
    const scaled = (await api.request('GET', `${path}/${name}`)).json();
    expect([scaled.spec.replicas, scaled.metadata.generation]).toEqual([2, 4]);

    // Status: written through /status only, invariants checked, the spec kept.
    const badStatus = await api.request('PUT', `${path}/${name}/status`, { body: { ...scaled, status: { replicas: 1, readyReplicas: 2, conditions: [{ type: 'X', status: 'Maybe' }] } } });
    expect(badStatus.status).toBe(422);
    expect(causesOf(badStatus)).toEqual([['status.readyReplicas', 'FieldValueInvalid'], ['status.conditions[0].status', 'FieldValueNotSupported']]);
    const status = { replicas: 2, readyReplicas: 1, availableReplicas: 1, currentReplicas: 2, observedGeneration: 4 };
    const written = await api.request('PUT', `${path}/${name}/status`, { body: { ...scaled, spec: { ...scaled.spec, replicas: 9 }, status } });
    expect(written.status).toBe(200);
    expect([written.json().spec.replicas, written.json().status, written.json().metadata.generation]).toEqual([2, status, 4]);
    const mainKeeps = await api.request('PATCH', `${path}/${name}`, { body: { status: { replicas: 7 }, spec: { minReadySeconds: 5 } } });
    expect([mainKeeps.json().status, mainKeeps.json().metadata.generation]).toEqual([status, 5]);

    // Immutable fields.
    const renamed = await api.request('PATCH', `${path}/${name}`, { body: { spec: { serviceName: 'other' } } });
    expect(renamed.status).toBe(422);
    expect(renamed.json().details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'spec', message: IMMUTABLE }]);
    const claims = await api.request('PATCH', `${path}/${name}`, {
      body: [{ op: 'replace', path: '/spec/volumeClaimTemplates/0/spec/resources/requests/storage', value: '2Gi' }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(claims.status).toBe(422);

    const table = (await api.request('GET', path, { headers: { Accept: TABLE }, query: { includeObject: 'None' } })).json();
    expect(table.columnDefinitions.map((c: { name: string; priority: number }) => [c.name, c.priority])).toEqual([
      ['Name', 0], ['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1],
    ]);
    expect(table.rows.map((r: { cells: unknown[] }) => [r.cells[0], r.cells[1], r.cells[3], r.cells[4]])).toEqual([[name, '1/2', 'web', 'nginx:1.27']]);

    const pb = await api.request('GET', `${path}/${name}`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.raw.includes(Buffer.from('OrderedReady'))).toBe(true);

    const deleted = await api.request('DELETE', `${path}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name, group: 'apps', kind: 'statefulsets' } });
    expect((await api.request('GET', `${path}/${name}`)).status).toBe(404);
  });

  it('ReplicationController round trip: defaults from the template, 422 causes, scale, status, table, delete answers a Status', async () => {
    const name = uniqueName('rc');
    const path = `/api/v1/namespaces/${ns}/replicationcontrollers`;

    const bad = replicationController(name);
    bad.spec.selector = { app: 'other' };
    bad.spec.replicas = -1;
    bad.spec.template.spec.activeDeadlineSeconds = 5;
    const refused = await api.request('POST', path, { body: bad });
    expect(refused.status).toBe(422);
    expect(causesOf(refused)).toEqual([
      ['spec.replicas', 'FieldValueInvalid'],
      ['spec.template.metadata.labels', 'FieldValueInvalid'],
      ['spec.template.spec.activeDeadlineSeconds', 'FieldValueForbidden'],
    ]);

    const created = await api.request('POST', path, { body: replicationController(name) });
    expect(created.status).toBe(201);
    const rc = created.json();
    expect([rc.spec.selector, rc.metadata.labels, rc.spec.replicas, rc.status, rc.metadata.generation]).toEqual([
      { app: name }, { app: name }, 1, { replicas: 0 }, 1,
    ]);

    const scale = await api.request('GET', `${path}/${name}/scale`);
    expect(scale.json()).toMatchObject({ kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 0, selector: `app=${name}` } });
    const put = await api.request('PUT', `${path}/${name}/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 0 } } });
    expect(put.status).toBe(200);
    expect(put.json().spec).toEqual({});
    expect((await api.request('GET', `${path}/${name}`)).json().spec.replicas).toBe(0);
    const patched = await api.request('PATCH', `${path}/${name}/scale`, { body: { spec: { replicas: 2 } } });
    expect(patched.json().spec).toEqual({ replicas: 2 });

    const badStatus = await api.request('PATCH', `${path}/${name}/status`, { body: { status: { replicas: 1, availableReplicas: 1 } } });
    expect(badStatus.status).toBe(422);
    expect(causesOf(badStatus)).toEqual([['status.availableReplicas', 'FieldValueInvalid']]);
    const status = { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 3 };
    const written = await api.request('PATCH', `${path}/${name}/status`, { body: { status, spec: { replicas: 9 } } });
    expect(written.status).toBe(200);
    expect([written.json().status, written.json().spec.replicas]).toEqual([status, 2]);

    // The field selector of the kind: status.replicas.
    const selected = await api.request('GET', path, { query: { fieldSelector: 'status.replicas=2' } });
    expect(selected.json().items.map((i: Obj) => i.metadata.name)).toEqual([name]);
    expect((await api.request('GET', path, { query: { fieldSelector: 'status.replicas=3' } })).json().items).toEqual([]);
    expect((await api.request('GET', path, { query: { fieldSelector: 'spec.replicas=2' } })).status).toBe(400);

    // Nothing in the spec is immutable: a new selector with matching template labels is accepted.
    const relabeled = await api.request('PATCH', `${path}/${name}`, { body: { spec: { selector: { app: name, v: '2' }, template: { metadata: { labels: { v: '2' } } } } } });
    expect(relabeled.status).toBe(200);
    expect([relabeled.json().metadata.generation, relabeled.json().status]).toEqual([4, status]);

    const table = (await api.request('GET', `${path}/${name}`, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector']);
    expect(table.rows[0].cells.filter((_: unknown, i: number) => i !== 4)).toEqual([name, 2, 2, 1, 'web', 'nginx', `app=${name},v=2`]);

    // Without a policy core v1 orphans (kube): the answer is the object marked with the `orphan` finalizer
    // (a dry run here: nothing written); with one (kubectl always sends it) it is deleted, answering a Status.
    const orphaning = await api.request('DELETE', `${path}/${name}`, { query: { dryRun: 'All' } });
    expect(orphaning.status).toBe(200);
    expect(orphaning.json().metadata).toMatchObject({ name, finalizers: ['orphan'] });
    const deleted = await api.request('DELETE', `${path}/${name}`, { query: { propagationPolicy: 'Background' } });
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name, kind: 'replicationcontrollers' } });
  });
});
