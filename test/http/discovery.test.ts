/**
 * EndpointSlice over HTTP on both backends: `discovery.<domain>/v1` served (namespaced, no status
 * sub-resource), in one round trip through create (v1 defaults, the deprecated topology dropped),
 * Kubernetes' validation as a 422 Status with causes, the immutable address type, the generation (bumped by label changes too), kubectl's
 * table, protobuf, the all-namespaces list, and a delete that answers with a Status.
 */
import { backends, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const GROUP = 'discovery.platform.io';
const BASE = `/apis/${GROUP}/v1`;

describeBackends(all, (b) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await b.start();
  });

  it('discovery lists endpointslices, namespaced, without a status sub-resource', async () => {
    const res = (await api.request('GET', BASE)).json();
    expect(res.resources.map((r: { name: string }) => r.name)).toEqual(['endpointslices']);
    expect(res.resources[0]).toEqual(expect.objectContaining({ kind: 'EndpointSlice', namespaced: true, singularName: 'endpointslice' }));
  });

  it('EndpointSlice round trip: defaults, 422 causes, immutable address type, table, protobuf, delete answers a Status', async () => {
    const name = uniqueName('web');
    const path = `${BASE}/namespaces/default/endpointslices`;
    const body = {
      apiVersion: `${GROUP}/v1`, kind: 'EndpointSlice',
      metadata: { name, labels: { 'platform.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.0.7'], conditions: { ready: true }, nodeName: 'node-1', deprecatedTopology: { rack: 'r1' } }],
      ports: [{ name: 'http', port: 8080 }],
    };

    const bad = await api.request('POST', path, {
      body: { ...body, addressType: 'IPv6', endpoints: [{ addresses: ['10.1.0.7'] }, { addresses: [] }], ports: [{ name: 'http', protocol: 'ICMP' }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "10.1.0.7": must be a valid IPv6 address', field: 'endpoints[0].addresses[0]' },
      { reason: 'FieldValueRequired', message: 'Required value: must contain at least 1 address', field: 'endpoints[1].addresses' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"', field: 'ports[0].protocol' },
    ]);

    const created = await api.request('POST', path, { body });
    expect(created.status).toBe(201);
    const es = created.json();
    expect(es.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(es.endpoints).toEqual([{ addresses: ['10.1.0.7'], conditions: { ready: true }, nodeName: 'node-1' }]);
    expect(es.metadata.generation).toBe(1);

    const retyped = await api.request('PUT', `${path}/${name}`, { body: { ...es, addressType: 'FQDN', endpoints: [{ addresses: ['web.example.com'] }] } });
    expect(retyped.status).toBe(422);
    expect(retyped.json().details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "FQDN": field is immutable', field: 'addressType' }]);

    const moved = await api.request('PUT', `${path}/${name}`, { body: { ...es, endpoints: [...es.endpoints, { addresses: ['10.1.0.8', '10.1.0.9', '10.1.0.10'] }] } });
    expect(moved.status).toBe(200);
    expect(moved.json().metadata.generation).toBe(2);
    const relabeled = await api.request('PUT', `${path}/${name}`, { body: { ...moved.json(), metadata: { ...moved.json().metadata, labels: { 'platform.io/service-name': 'api' } } } });
    expect(relabeled.status).toBe(200);
    expect(relabeled.json().metadata.generation).toBe(3);

    const table = (await api.request('GET', `${BASE}/endpointslices`, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    const row = table.rows.find((r: { cells: unknown[] }) => r.cells[0] === name);
    expect(row.cells.slice(0, 4)).toEqual([name, 'IPv4', '8080', '10.1.0.7,10.1.0.8,10.1.0.9 + 1 more...']);

    const pb = await api.request('GET', `${path}/${name}`, { headers: { Accept: 'application/vnd.platform.protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe('application/vnd.platform.protobuf');
    expect(pb.raw.includes(Buffer.from('10.1.0.10'))).toBe(true);

    const deleted = await api.request('DELETE', `${path}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'Status', status: 'Success' }));
    expect((await api.request('GET', `${path}/${name}`)).status).toBe(404);
  });
});
