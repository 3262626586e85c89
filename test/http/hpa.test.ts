/**
 * HorizontalPodAutoscaler over HTTP on both backends: `autoscaling/v1` served in discovery (namespaced,
 * short name hpa, category all, the status sub-resource) in both group-domain modes, and one round trip:
 * create with v1's defaults and an empty status, Kubernetes' validation as a 422 Status with causes, the
 * main endpoint keeping the status, `/status` writes with their rules, kubectl's table, protobuf, the
 * all-namespaces list, and a delete that answers with a Status.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const BASE = '/apis/autoscaling/v1';

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
  });

  it('discovery lists horizontalpodautoscalers (hpa, all) with status', async () => {
    const res = (await api.request('GET', BASE)).json();
    const byName = new Map(res.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('horizontalpodautoscalers')).toEqual(expect.objectContaining({
      kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'], singularName: 'horizontalpodautoscaler',
    }));
    expect(byName.has('horizontalpodautoscalers/status')).toBe(true);
  });

  it("OpenAPI publishes document 2's reduced query parameter sets for it", async () => {
    const doc = (await api.request('GET', '/openapi/v3/apis/autoscaling/v1')).json();
    const params = (path: string, method: string): string[] =>
      doc.paths[path][method].parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name);
    const collection = '/apis/autoscaling/v1/namespaces/{namespace}/horizontalpodautoscalers';
    expect(params(collection, 'get')).toEqual(['continue', 'limit', 'watch']);
    expect(params('/apis/autoscaling/v1/horizontalpodautoscalers', 'get')).toEqual(['continue', 'limit', 'watch']);
    expect(params(collection, 'post')).toEqual(['dryRun']);
    expect(params(`${collection}/{name}`, 'put')).toEqual(['dryRun']);
    expect(params(`${collection}/{name}`, 'patch')).toEqual(['dryRun', 'force']);
    expect(params(`${collection}/{name}`, 'delete')).toEqual(['dryRun']);
    expect(params(collection, 'delete')).toEqual(['continue', 'dryRun', 'limit']);
  });

  it('round trip: defaults, empty status, 422 causes, status kept by the main endpoint, /status rules, table, protobuf, delete answers a Status', async () => {
    const name = uniqueName('hpa');
    const path = `${BASE}/namespaces/${ns}/horizontalpodautoscalers`;
    const body = {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, maxReplicas: 4, targetCPUUtilizationPercentage: 60 },
      status: { currentReplicas: 7, desiredReplicas: 7 },
    };

    const bad = await api.request('POST', path, { body: { ...body, spec: { scaleTargetRef: { kind: 'StatefulSet' }, minReplicas: 0, maxReplicas: 0, targetCPUUtilizationPercentage: 0 } } });
    expect(bad.status).toBe(422);
    expect(bad.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than or equal to 1', field: 'spec.minReplicas' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.maxReplicas' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.scaleTargetRef.name' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.metrics[0].resource.target.averageUtilization' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: must specify at least one Object or External metric to support scaling to zero replicas', field: 'spec.metrics' },
    ]);

    const created = await api.request('POST', path, { body });
    expect(created.status).toBe(201);
    const hpa = created.json();
    expect(hpa.spec.minReplicas).toBe(1);
    expect(hpa.status).toEqual({ currentReplicas: 0, desiredReplicas: 0 });

    const status = { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 72, lastScaleTime: '2026-01-01T00:00:00Z' };
    const negative = await api.request('PUT', `${path}/${name}/status`, { body: { ...hpa, status: { ...status, desiredReplicas: -1 } } });
    expect(negative.status).toBe(422);
    expect(negative.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'status.desiredReplicas' },
    ]);
    const written = await api.request('PUT', `${path}/${name}/status`, { body: { ...hpa, spec: { ...hpa.spec, maxReplicas: 99 }, status } });
    expect(written.status).toBe(200);
    expect(written.json().status).toEqual(status);
    expect(written.json().spec.maxReplicas).toBe(4);

    const scaled = await api.request('PATCH', `${path}/${name}`, { body: { spec: { maxReplicas: 10, minReplicas: 2 }, status: { currentReplicas: 0 } } });
    expect(scaled.status).toBe(200);
    expect(scaled.json().spec).toEqual(expect.objectContaining({ minReplicas: 2, maxReplicas: 10 }));
    expect(scaled.json().status).toEqual(status);
    const below = await api.request('PATCH', `${path}/${name}`, { body: { spec: { maxReplicas: 1 } } });
    expect(below.status).toBe(422);
    expect(below.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 1: must be greater than or equal to `minReplicas`', field: 'spec.maxReplicas' },
    ]);

    const table = (await api.request('GET', `${path}/${name}`, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
    expect(table.rows[0].cells.slice(0, 6)).toEqual([name, 'StatefulSet/web', 'cpu: 72%/60%', '2', 10, 2]);

    const pb = await api.request('GET', `${path}/${name}`, { headers: { Accept: 'application/vnd.platform.protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe('application/vnd.platform.protobuf');
    expect(pb.raw.includes(Buffer.from('autoscaling/v1'))).toBe(true);
    expect(pb.raw.includes(Buffer.from('StatefulSet'))).toBe(true);

    const everywhere = (await api.request('GET', `${BASE}/horizontalpodautoscalers`)).json();
    expect(everywhere.kind).toBe('HorizontalPodAutoscalerList');
    expect(everywhere.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain(name);

    const deleted = await api.request('DELETE', `${path}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'Status', status: 'Success' }));
    expect((await api.request('GET', `${path}/${name}`)).status).toBe(404);
  });

  it('is autoscaling/v1 under --group-domain=k8s.io too', async () => {
    const k8s = await b.start({ groupDomain: 'k8s.io' });
    const res = (await k8s.request('GET', BASE)).json();
    expect(res.groupVersion).toBe('autoscaling/v1');
    expect(res.resources.map((r: { name: string }) => r.name)).toContain('horizontalpodautoscalers');
  });
});
