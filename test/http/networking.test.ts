/**
 * The networking kinds over HTTP on both backends. `networking.<domain>/v1beta1` (ServiceCIDR, IPAddress)
 * is a beta version Kubernetes introduced after 1.22, so a server without `--runtime-config` serves none of
 * it (no discovery group, no OpenAPI document, 404 on its paths); with `networking.platform.io/v1beta1=true`
 * each kind goes through one round trip: create, Kubernetes' validation as a 422 Status with causes, the
 * immutable fields, ServiceCIDR's status sub-resource with the condition rules, kubectl's tables, protobuf,
 * and a delete that answers with a Status.
 */
import { backends, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const GROUP = 'networking.platform.io';
const BASE = `/apis/${GROUP}/v1beta1`;
const ON = `${GROUP}/v1beta1=true`;

/**
 * A fresh IPv4 address per call (172.31.<pid-derived>.n), so runs on a shared etcd do not collide, outside
 * the default service range, whose addresses the server's own allocator may record.
 */
let counter = 0;
const freshIP = (): string => {
  counter += 1;
  return `172.31.${process.pid % 250}.${counter}`;
};

describeBackends(all, (b) => {
  describe('without --runtime-config', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await b.start();
    });

    it('serves neither the group nor its paths nor its OpenAPI', async () => {
      const groups = (await api.request('GET', '/apis')).json();
      expect(groups.groups.map((g: { name: string }) => g.name)).not.toContain(GROUP);
      expect((await api.request('GET', BASE)).status).toBe(404);
      expect((await api.request('GET', `${BASE}/servicecidrs`)).status).toBe(404);
      const created = await api.request('POST', `${BASE}/ipaddresses`, {
        body: { apiVersion: `${GROUP}/v1beta1`, kind: 'IPAddress', metadata: { name: '10.0.0.1' }, spec: { parentRef: { resource: 'services', name: 'a' } } },
      });
      expect(created.status).toBe(404);
      const v3 = (await api.request('GET', '/openapi/v3')).json();
      expect(Object.keys(v3.paths)).not.toContain(`apis/${GROUP}/v1beta1`);
      const v2 = (await api.request('GET', '/openapi/v2')).json();
      expect(Object.keys(v2.paths).filter((p) => p.startsWith(BASE))).toEqual([]);
    });
  });

  describe(`with --runtime-config=${ON}`, () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await b.start({ runtimeConfig: ON });
    });

    it('discovery lists servicecidrs (with status) and ipaddresses, cluster-scoped; OpenAPI has the group version', async () => {
      const groups = (await api.request('GET', '/apis')).json();
      const group = groups.groups.find((g: { name: string }) => g.name === GROUP);
      expect(group.versions).toEqual([{ groupVersion: `${GROUP}/v1beta1`, version: 'v1beta1' }]);
      const res = (await api.request('GET', BASE)).json();
      expect(res.resources.map((r: { name: string }) => r.name).sort()).toEqual(['ipaddresses', 'servicecidrs', 'servicecidrs/status']);
      const byName = new Map(res.resources.map((r: { name: string }) => [r.name, r]));
      expect(byName.get('servicecidrs')).toEqual(expect.objectContaining({ kind: 'ServiceCIDR', namespaced: false, singularName: 'servicecidr' }));
      expect(byName.get('ipaddresses')).toEqual(expect.objectContaining({ kind: 'IPAddress', namespaced: false, singularName: 'ipaddress' }));
      const v3 = (await api.request('GET', '/openapi/v3')).json();
      expect(Object.keys(v3.paths)).toContain(`apis/${GROUP}/v1beta1`);
    });

    it('ServiceCIDR round trip: 422 causes, empty status on create, immutable blocks, /status with condition rules, table, delete answers a Status', async () => {
      const name = uniqueName('cidr');
      const path = `${BASE}/servicecidrs`;
      const body = { apiVersion: `${GROUP}/v1beta1`, kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.200.0.0/16', 'fd00:200::/112'] } };

      const bad = await api.request('POST', path, { body: { ...body, spec: { cidrs: ['10.200.0.1/16'] } } });
      expect(bad.status).toBe(422);
      expect(bad.json().details.causes).toEqual([
        { reason: 'FieldValueInvalid', message: 'Invalid value: "10.200.0.1/16": wrong CIDR format, IP doesn\'t match network IP address', field: 'spec.cidrs[0]' },
      ]);
      const twoV4 = await api.request('POST', path, { body: { ...body, spec: { cidrs: ['10.1.0.0/16', '10.2.0.0/16'] } } });
      expect(twoV4.status).toBe(422);
      expect(twoV4.json().details.causes.map((c: { field: string }) => c.field)).toEqual(['spec.cidrs']);

      const created = await api.request('POST', path, { body: { ...body, status: { conditions: [{ type: 'Ready', status: 'Bogus' }] } } });
      expect(created.status).toBe(201);
      const cidr = created.json();
      expect(cidr.status).toEqual({});
      expect(cidr.metadata.generation).toBeUndefined();

      const changed = await api.request('PUT', `${path}/${name}`, { body: { ...cidr, spec: { cidrs: ['10.200.0.0/16'] } } });
      expect(changed.status).toBe(422);
      expect(changed.json().details.causes).toEqual([
        { reason: 'FieldValueInvalid', message: 'Invalid value: ["10.200.0.0/16"]: field is immutable', field: 'spec.cidrs' },
      ]);

      const ready = { type: 'Ready', status: 'True', reason: 'ServiceCIDRReady', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
      const badStatus = await api.request('PUT', `${path}/${name}/status`, { body: { ...cidr, status: { conditions: [{ ...ready, reason: '' }] } } });
      expect(badStatus.status).toBe(422);
      expect(badStatus.json().details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value: must be set', field: 'status.conditions[0].reason' }]);
      const status = await api.request('PATCH', `${path}/${name}/status`, { body: { status: { conditions: [ready] } } });
      expect(status.status).toBe(200);
      expect(status.json().status).toEqual({ conditions: [ready] });
      // The main endpoint keeps the stored status.
      const relabelled = await api.request('PATCH', `${path}/${name}`, { body: { metadata: { labels: { a: 'b' } }, status: { conditions: [] } } });
      expect(relabelled.status).toBe(200);
      expect(relabelled.json().status).toEqual({ conditions: [ready] });

      const table = (await api.request('GET', `${path}/${name}`, { headers: { Accept: TABLE } })).json();
      expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'CIDRs', 'Age']);
      expect(table.rows[0].cells.slice(0, 2)).toEqual([name, '10.200.0.0/16,fd00:200::/112']);

      const pb = await api.request('GET', `${path}/${name}`, { headers: { Accept: 'application/vnd.platform.protobuf' } });
      expect(pb.status).toBe(200);
      expect(pb.headers['content-type']).toBe('application/vnd.platform.protobuf');
      expect(pb.raw.includes(Buffer.from('fd00:200::/112'))).toBe(true);
      expect(pb.raw.includes(Buffer.from('ServiceCIDRReady'))).toBe(true);

      const deleted = await api.request('DELETE', `${path}/${name}`);
      expect(deleted.status).toBe(200);
      expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'Status', status: 'Success' }));
      expect((await api.request('GET', `${path}/${name}`)).status).toBe(404);
    });

    it('IPAddress round trip: canonical names, required parent, a second claim of an address is 409, immutable parent, table, delete answers a Status', async () => {
      const path = `${BASE}/ipaddresses`;
      const address = freshIP();
      const body = (name: string, parentRef: Record<string, unknown> = { resource: 'services', namespace: 'default', name: 'web' }) => ({
        apiVersion: `${GROUP}/v1beta1`, kind: 'IPAddress', metadata: { name }, spec: { parentRef },
      });

      const zeros = await api.request('POST', path, { body: body('2001:db8:0:0::7') });
      expect(zeros.status).toBe(422);
      expect(zeros.json().details.causes).toEqual([
        { reason: 'FieldValueInvalid', message: 'Invalid value: "2001:db8:0:0::7": must be a canonical format IP address', field: 'metadata.name' },
      ]);
      const leading = await api.request('POST', path, { body: body('10.01.0.1', {}) });
      expect(leading.status).toBe(422);
      expect(leading.json().details.causes).toEqual([
        { reason: 'FieldValueInvalid', message: 'Invalid value: "10.01.0.1": ParseAddr("10.01.0.1"): IPv4 field has octet with leading zero', field: 'metadata.name' },
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.parentRef.resource' },
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.parentRef.name' },
      ]);
      const generated = await api.request('POST', path, { body: { ...body(''), metadata: { generateName: '10.0.0.' } } });
      expect(generated.status).toBe(422);
      expect(generated.json().details.causes[0]).toEqual(expect.objectContaining({ field: 'metadata.name', reason: 'FieldValueInvalid' }));

      const created = await api.request('POST', path, { body: body(address) });
      expect(created.status).toBe(201);
      expect(created.json().spec).toEqual({ parentRef: { resource: 'services', namespace: 'default', name: 'web' } });
      // The name is the address: a second owner of the same address is refused by the store.
      const again = await api.request('POST', path, { body: body(address, { resource: 'services', namespace: 'default', name: 'other' }) });
      expect(again.status).toBe(409);
      expect(again.json().reason).toBe('AlreadyExists');

      const moved = await api.request('PATCH', `${path}/${address}`, { body: { spec: { parentRef: { name: 'other' } } } });
      expect(moved.status).toBe(422);
      expect(moved.json().details.causes).toEqual([expect.objectContaining({ reason: 'FieldValueInvalid', field: 'spec.parentRef' })]);
      expect((await api.request('GET', `${path}/${address}/status`)).status).toBe(404);

      const table = (await api.request('GET', `${path}/${address}`, { headers: { Accept: TABLE } })).json();
      expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'ParentRef']);
      expect(table.rows[0].cells.slice(0, 2)).toEqual([address, 'services/default/web']);

      const pb = await api.request('GET', `${path}/${address}`, { headers: { Accept: 'application/vnd.platform.protobuf' } });
      expect(pb.status).toBe(200);
      expect(pb.raw.includes(Buffer.from('services'))).toBe(true);

      const deleted = await api.request('DELETE', `${path}/${address}`);
      expect(deleted.status).toBe(200);
      expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'Status', status: 'Success' }));
    });
  });

  describe('with --runtime-config turning only one resource on', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await b.start({ runtimeConfig: `${GROUP}/v1beta1/servicecidrs=true` });
    });

    it('serves that resource alone', async () => {
      const res = (await api.request('GET', BASE)).json();
      expect(res.resources.map((r: { name: string }) => r.name).sort()).toEqual(['servicecidrs', 'servicecidrs/status']);
      expect((await api.request('GET', `${BASE}/ipaddresses`)).status).toBe(404);
    });
  });
});
