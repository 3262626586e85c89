/**
 * Job (`batch/v1`) over HTTP on both backends: discovery (status sub-resource, category `all`, no short
 * names), a create answering with the defaults and the generated selector, Kubernetes' validation as a 422
 * Status with causes, the immutable fields, `/status` writes and their invariants, the `status.successful`
 * field selector, kubectl's table, protobuf, and a delete answering a Status. Under `--group-domain=k8s.io`
 * the generated labels are Kubernetes' `batch.kubernetes.io/...`.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const BASE = '/apis/batch/v1';

/** Managed by another controller: the built-in job controller leaves its status to these writes. */
const jobBody = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { managedBy: 'example.com/test-runner', template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34', command: ['perl', '-e', 'print 1'] }] } }, ...spec },
});

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
  });

  it('discovery lists jobs and jobs/status in batch/v1, in the all category', async () => {
    const res = (await api.request('GET', BASE)).json();
    const byName = new Map(res.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('jobs')).toEqual(expect.objectContaining({ kind: 'Job', namespaced: true, categories: ['all'], singularName: 'job' }));
    expect((byName.get('jobs') as { shortNames?: unknown }).shortNames).toBeUndefined();
    expect(byName.get('jobs/status')).toEqual(expect.objectContaining({ kind: 'Job', verbs: expect.arrayContaining(['get', 'patch', 'update']) }));
  });

  it('round trip: defaults, 422 causes, immutability, /status invariants, field selector, table, protobuf, delete Status', async () => {
    const name = uniqueName('pi');
    const path = `${BASE}/namespaces/${ns}/jobs`;

    const bad = await api.request('POST', path, {
      body: jobBody(name, { parallelism: -1, completionMode: 'Indexed', template: { spec: { restartPolicy: 'Always', containers: [{ name: 'pi', image: 'perl' }] } } }),
    });
    expect(bad.status).toBe(422);
    expect(bad.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.parallelism' },
      { reason: 'FieldValueRequired', message: 'Required value: when completion mode is Indexed', field: 'spec.completions' },
      { reason: 'FieldValueRequired', message: 'Required value: valid values: "OnFailure", "Never"', field: 'spec.template.spec.restartPolicy' },
    ]);

    const created = await api.request('POST', path, { body: { ...jobBody(name), status: { active: 5 } } });
    expect(created.status).toBe(201);
    const job = created.json();
    const uid = job.metadata.uid;
    expect(job.metadata.generation).toBe(1);
    expect(job.status).toEqual({});
    expect(job.spec).toEqual(expect.objectContaining({
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed', selector: { matchLabels: { 'batch.platform.io/controller-uid': uid } },
    }));
    const labels = { 'controller-uid': uid, 'job-name': name, 'batch.platform.io/controller-uid': uid, 'batch.platform.io/job-name': name };
    expect(job.spec.template.metadata.labels).toEqual(labels);
    expect(job.metadata.labels).toEqual(labels);

    // The spec may change where Kubernetes lets it; the generation follows.
    const scaled = await api.request('PUT', `${path}/${name}`, { body: { ...job, spec: { ...job.spec, parallelism: 2 } } });
    expect(scaled.status).toBe(200);
    expect(scaled.json().metadata.generation).toBe(2);
    const immutable = await api.request('PATCH', `${path}/${name}`, {
      body: { spec: { completions: 3, template: { spec: { containers: [{ name: 'pi', image: 'perl:5.36' }] } } } },
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect(immutable.status).toBe(422);
    expect(immutable.json().details.causes.map((c: { field: string; message: string }) => [c.field, c.message.endsWith('field is immutable')])).toEqual([
      ['spec.completions', true],
      ['spec.template', true],
    ]);

    // Status: the controller's writes, through /status only; the main endpoint keeps the stored status.
    const ignored = await api.request('PATCH', `${path}/${name}`, { body: { status: { active: 1 } } });
    expect(ignored.status).toBe(200);
    expect(ignored.json().status).toEqual({});
    const startTime = '2026-01-01T00:00:00Z';
    const running = await api.request('PATCH', `${path}/${name}/status`, { body: { status: { startTime, active: 1, ready: 1 } } });
    expect(running.status).toBe(200);
    const early = await api.request('PATCH', `${path}/${name}/status`, {
      body: { status: { active: 0, ready: 0, succeeded: 1, completionTime: '2025-12-31T23:59:00Z', conditions: [{ type: 'Complete', status: 'True' }] } },
    });
    expect(early.status).toBe(422);
    expect(early.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "2025-12-31T23:59:00Z": completionTime cannot be set before startTime', field: 'status.completionTime' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition', field: 'status.conditions' },
    ]);
    const completionTime = '2026-01-01T00:01:30Z';
    const done = await api.request('PATCH', `${path}/${name}/status`, {
      body: {
        status: {
          active: 0, ready: 0, succeeded: 1, completionTime,
          conditions: [{ type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: completionTime }, { type: 'Complete', status: 'True', lastTransitionTime: completionTime }],
        },
      },
    });
    expect(done.status).toBe(200);
    expect(done.json().status).toEqual(expect.objectContaining({ startTime, completionTime, succeeded: 1 }));
    const reopened = await api.request('PUT', `${path}/${name}/status`, { body: { ...done.json(), status: { ...done.json().status, conditions: [] } } });
    expect(reopened.status).toBe(422);
    expect(reopened.json().details.causes.map((c: { message: string }) => c.message)).toEqual([
      'Invalid value: "2026-01-01T00:01:30Z": cannot set completionTime when there is no Complete=True condition',
      'Invalid value: cannot disable the terminal Complete=True condition',
      'Invalid value: cannot disable the SuccessCriteriaMet=True condition',
    ]);

    const other = uniqueName('other');
    expect((await api.request('POST', path, { body: jobBody(other, { completions: 3, parallelism: 3 }) })).status).toBe(201);
    const successful = (await api.request('GET', path, { query: { fieldSelector: 'status.successful=1' } })).json();
    expect(successful.items.map((j: { metadata: { name: string } }) => j.metadata.name)).toEqual([name]);
    expect((await api.request('GET', path, { query: { fieldSelector: 'status.active=1' } })).status).toBe(400);

    const table = (await api.request('GET', path, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string; priority: number }) => [c.name, c.priority])).toEqual([
      ['Name', 0], ['Status', 0], ['Completions', 0], ['Duration', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1],
    ]);
    const rows = new Map(table.rows.map((r: { cells: unknown[] }) => [r.cells[0], r.cells]));
    expect((rows.get(name) as unknown[]).slice(1, 4)).toEqual(['Complete', '1/1', '90s']);
    expect((rows.get(other) as unknown[]).slice(1, 4)).toEqual(['Running', '0/3', '']);
    expect((rows.get(name) as unknown[]).slice(5)).toEqual(['pi', 'perl:5.34', `batch.platform.io/controller-uid=${uid}`]);

    const pb = await api.request('GET', `${path}/${name}`, { headers: { Accept: 'application/vnd.platform.protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe('application/vnd.platform.protobuf');
    expect(pb.raw.includes(Buffer.from('batch.platform.io/controller-uid'))).toBe(true);

    // A DELETE with a policy (kubectl always sends one) removes the Job and answers a Status.
    const deleted = await api.request('DELETE', `${path}/${name}`, { query: { propagationPolicy: 'Background' } });
    expect(deleted.status).toBe(200);
    expect(deleted.warnings()).toEqual([]);
    expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'Status', status: 'Success', details: expect.objectContaining({ name, kind: 'jobs', group: 'batch' }) }));
    expect((await api.request('GET', `${path}/${name}`)).status).toBe(404);
    // The all-namespaces path lists the rest.
    const everywhere = (await api.request('GET', `${BASE}/jobs`)).json();
    expect(everywhere.items.map((j: { metadata: { name: string } }) => j.metadata.name)).toContain(other);
    // Without a policy batch/v1 orphans (kube): a Warning, the Job answered marked with the `orphan` finalizer,
    // removed once the garbage collector has orphaned its pods.
    const orphaning = await api.request('DELETE', `${path}/${other}`);
    expect(orphaning.status).toBe(200);
    expect(orphaning.warnings()).toEqual([
      '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"',
    ]);
    expect(orphaning.json().metadata).toMatchObject({ name: other, finalizers: ['orphan'] });
    expect(orphaning.json().metadata.deletionTimestamp).toEqual(expect.any(String));
    const gone = Date.now() + 30_000;
    while ((await api.request('GET', `${path}/${other}`)).status !== 404) {
      if (Date.now() > gone) throw new Error('the orphaned Job was not removed');
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('under --group-domain=k8s.io the generated labels are batch.kubernetes.io/...', async () => {
    const k8s = await b.start({ groupDomain: 'k8s.io' });
    const k8sNs = await createNamespace(k8s);
    const name = uniqueName('pi');
    const created = await k8s.request('POST', `${BASE}/namespaces/${k8sNs}/jobs`, { body: jobBody(name) });
    expect(created.status).toBe(201);
    const job = created.json();
    expect(job.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': job.metadata.uid } });
    expect(Object.keys(job.spec.template.metadata.labels).sort()).toEqual(['batch.kubernetes.io/controller-uid', 'batch.kubernetes.io/job-name', 'controller-uid', 'job-name']);
  });
});
