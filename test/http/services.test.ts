/**
 * Services over HTTP on both backends, with the server's allocation (bitmap records):
 * - discovery (svc, category all, status) and the v1 defaults of a create;
 * - cluster IPs from `--service-cluster-ip-range` (10.96.0.0/16 here) and node ports from
 *   `--service-node-port-range` (30000-32767), never the same twice, the `kubernetes` Service's first
 *   address excluded from dynamic picks (lower band);
 * - user-chosen values reserved, and 422 with Kubernetes' messages when taken or out of range; on create,
 *   ports of one number and two protocols share one node port;
 * - a dry run fills in values it does not reserve (a real create can take them; they differ from the
 *   real request's);
 * - release on delete (the same value can be chosen again), on a failed create, and on type changes
 *   (NodePort -> ClusterIP frees the node ports; ClusterIP -> ExternalName frees the cluster IP);
 * - the table columns, and delete answering the Service.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
type Json = Record<string, any>;

const svc = (name: string, spec: Json = {}): Json => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
});

const inRange = (ip: string): boolean => /^10\.96\.\d+\.\d+$/.test(ip);

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  let path: string;
  beforeAll(async () => {
    api = await b.start({
      serviceClusterIPRanges: (await import('../../apiserver/config/service-range-flags.js')).parseServiceClusterIPRanges('10.96.0.0/16'),
    });
    ns = await createNamespace(api);
    path = `/api/v1/namespaces/${ns}/services`;
  });

  const create = async (body: Json, query: Record<string, string> = {}) => api.request('POST', path, { body, query });

  it('discovery: services with svc, category all and status', async () => {
    const res = (await api.request('GET', '/api/v1')).json();
    const byName = new Map(res.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('services')).toEqual(expect.objectContaining({ kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'] }));
    expect(byName.has('services/status')).toBe(true);
  });

  it('a ClusterIP create gets v1 defaults and an address from the range', async () => {
    const res = await create(svc(uniqueName('web'), { ports: [{ port: 80 }], status: undefined }));
    expect(res.status).toBe(201);
    const s = res.json();
    expect(s.spec).toEqual(expect.objectContaining({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    }));
    expect(inRange(s.spec.clusterIP)).toBe(true);
    expect(s.spec.clusterIPs).toEqual([s.spec.clusterIP]);
    expect(s.spec.externalTrafficPolicy).toBeUndefined();
    expect(s.status).toEqual({ loadBalancer: {} });
  });

  it('NodePort: node ports in range, externalTrafficPolicy Cluster, table PORT(S) and delete answers the Service', async () => {
    const name = uniqueName('np');
    const res = await create(svc(name, { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'dns', port: 53, protocol: 'UDP', targetPort: 'dns' }] }));
    expect(res.status).toBe(201);
    const s = res.json();
    const [p1, p2] = s.spec.ports.map((p: Json) => p.nodePort);
    // One port number for two protocols shares one node port on create, as Kubernetes allocates it.
    const dns = (await create(svc(uniqueName('dns'), { type: 'NodePort', ports: [{ name: 'tcp', port: 53 }, { name: 'udp', port: 53, protocol: 'UDP' }] }))).json();
    expect(dns.spec.ports[0].nodePort).toBe(dns.spec.ports[1].nodePort);
    for (const p of [p1, p2]) expect(p >= 30000 && p <= 32767).toBe(true);
    expect(p1).not.toBe(p2);
    expect(s.spec.externalTrafficPolicy).toBe('Cluster');

    const table = (await api.request('GET', `${path}/${name}`, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: Json) => [c.name, c.priority])).toEqual([
      ['Name', 0], ['Type', 0], ['Cluster-IP', 0], ['External-IP', 0], ['Port(s)', 0], ['Age', 0], ['Selector', 1],
    ]);
    expect(table.rows[0].cells.slice(0, 5)).toEqual([name, 'NodePort', s.spec.clusterIP, '<none>', `80:${p1}/TCP,53:${p2}/UDP`]);
    expect(table.rows[0].cells[6]).toBe(`app=${name}`);

    const deleted = await api.request('DELETE', `${path}/${name}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toEqual(expect.objectContaining({ kind: 'Service', metadata: expect.objectContaining({ name }) }));
    // Released: both node ports and the address can be chosen again at once.
    const again = await create(svc(uniqueName('np'), { type: 'NodePort', clusterIP: s.spec.clusterIP, ports: [{ name: 'http', port: 80, nodePort: p1 }, { name: 'dns', port: 53, protocol: 'UDP', nodePort: p2 }] }));
    expect(again.status).toBe(201);
  });

  it('user-chosen values are reserved; taken or out of range is 422 with Kubernetes\' messages', async () => {
    const first = await create(svc(uniqueName('pick'), { type: 'NodePort', clusterIP: '10.96.3.3', ports: [{ port: 80, nodePort: 30333 }] }));
    expect(first.status).toBe(201);
    expect(first.json().spec.clusterIPs).toEqual(['10.96.3.3']);
    expect(first.json().spec.ports[0].nodePort).toBe(30333);

    const ipTaken = await create(svc(uniqueName('pick'), { clusterIP: '10.96.3.3' }));
    expect(ipTaken.status).toBe(422);
    expect(ipTaken.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.96.3.3"}: failed to allocate IP 10.96.3.3: provided IP is already allocated', field: 'spec.clusterIPs' },
    ]);
    const portTaken = await create(svc(uniqueName('pick'), { type: 'NodePort', ports: [{ port: 80, nodePort: 30333 }] }));
    expect(portTaken.status).toBe(422);
    expect(portTaken.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 30333: provided port is already allocated', field: 'spec.ports[0].nodePort' },
    ]);
    const outOfRange = await create(svc(uniqueName('pick'), { type: 'NodePort', clusterIP: '10.200.0.1', ports: [{ port: 80, nodePort: 8080 }] }));
    expect(outOfRange.status).toBe(422);
    expect(outOfRange.json().details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: []string{"10.200.0.1"}: failed to allocate IP 10.200.0.1: the provided IP (10.200.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/16',
        field: 'spec.clusterIPs',
      },
    ]);
    // The address of a refused create is free again (nothing leaked): a create that names it succeeds... and
    // a node port refused for being out of range is reported once the address is fine.
    const portOut = await create(svc(uniqueName('pick'), { type: 'NodePort', clusterIP: '10.96.4.4', ports: [{ port: 80, nodePort: 8080 }] }));
    expect(portOut.status).toBe(422);
    expect(portOut.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767', field: 'spec.ports[0].nodePort' },
    ]);
    expect((await create(svc(uniqueName('pick'), { clusterIP: '10.96.4.4' }))).status).toBe(201);
  });

  it('validation 422s come before any allocation', async () => {
    const res = await create(svc(uniqueName('bad'), { type: 'ClusterIP', clusterIP: '10.96.5.5', ports: [{ port: 80, nodePort: 30500 }, { port: 80 }] }));
    expect(res.status).toBe(422);
    expect(res.json().details.causes.map((c: Json) => [c.field, c.reason])).toEqual([
      ['spec.ports[1]', 'FieldValueDuplicate'],
      ['spec.ports[0].name', 'FieldValueRequired'],
      ['spec.ports[1].name', 'FieldValueRequired'],
      ['spec.ports[0].nodePort', 'FieldValueForbidden'],
    ]);
    // 10.96.5.5 was not taken by the refused create.
    expect((await create(svc(uniqueName('ok'), { clusterIP: '10.96.5.5' }))).status).toBe(201);
  });

  it('a dry run fills in values without reserving them, and they differ from the real request\'s', async () => {
    const name = uniqueName('dry');
    const dry = await create(svc(name, { type: 'NodePort' }), { dryRun: 'All' });
    expect(dry.status).toBe(201);
    const d = dry.json();
    expect(inRange(d.spec.clusterIP)).toBe(true);
    expect(d.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    expect((await api.request('GET', `${path}/${name}`)).status).toBe(404);
    // Not reserved: another Service may take exactly these values.
    const taker = await create(svc(uniqueName('taker'), { type: 'NodePort', clusterIP: d.spec.clusterIP, ports: [{ port: 80, nodePort: d.spec.ports[0].nodePort }] }));
    expect(taker.status).toBe(201);
    // So the real request gets other values.
    const real = await create(svc(name, { type: 'NodePort' }));
    expect(real.status).toBe(201);
    expect(real.json().spec.clusterIP).not.toBe(d.spec.clusterIP);
    expect(real.json().spec.ports[0].nodePort).not.toBe(d.spec.ports[0].nodePort);
  });

  it('type changes: NodePort -> ClusterIP frees the node ports, ClusterIP -> ExternalName frees the address, back allocates again', async () => {
    const name = uniqueName('chg');
    const created = (await create(svc(name, { type: 'NodePort' }))).json();
    const nodePort = created.spec.ports[0].nodePort;
    const ip = created.spec.clusterIP;

    const toClusterIP = await api.request('PUT', `${path}/${name}`, { body: { ...created, spec: { ...created.spec, type: 'ClusterIP' } } });
    expect(toClusterIP.status).toBe(200);
    expect(toClusterIP.json().spec.ports[0].nodePort).toBeUndefined();
    expect(toClusterIP.json().spec.externalTrafficPolicy).toBeUndefined();
    expect(toClusterIP.json().spec.clusterIP).toBe(ip);
    expect((await create(svc(uniqueName('reuse'), { type: 'NodePort', ports: [{ port: 80, nodePort }] }))).status).toBe(201);

    const current = toClusterIP.json();
    const toExternal = await api.request('PUT', `${path}/${name}`, {
      body: { ...current, spec: { ...current.spec, type: 'ExternalName', externalName: 'db.example.com' } },
    });
    expect(toExternal.status).toBe(200);
    expect(toExternal.json().spec.clusterIP).toBeUndefined();
    expect(toExternal.json().spec.ipFamilies).toBeUndefined();
    expect((await create(svc(uniqueName('reuse'), { clusterIP: ip }))).status).toBe(201);

    const ext = toExternal.json();
    const back = await api.request('PUT', `${path}/${name}`, { body: { ...ext, spec: { ...ext.spec, type: 'ClusterIP', externalName: undefined } } });
    expect(back.status).toBe(200);
    expect(inRange(back.json().spec.clusterIP)).toBe(true);
    expect(back.json().spec.clusterIP).not.toBe(ip);

    // An update that changes the address is refused.
    const b2 = back.json();
    const moved = await api.request('PUT', `${path}/${name}`, { body: { ...b2, spec: { ...b2.spec, clusterIP: '10.96.9.9', clusterIPs: ['10.96.9.9'] } } });
    expect(moved.status).toBe(422);
    expect(moved.json().details.causes[0]).toEqual({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: []string{"10.96.9.9"}: may not change once set',
      field: 'spec.clusterIPs[0]',
    });
  });

  it('a merge patch keeps the allocated values; headless Services get no address', async () => {
    const name = uniqueName('patch');
    const created = (await create(svc(name, { type: 'NodePort' }))).json();
    const patched = await api.request('PATCH', `${path}/${name}`, { body: { spec: { selector: { app: 'other' } } } });
    expect(patched.status).toBe(200);
    expect(patched.json().spec.clusterIP).toBe(created.spec.clusterIP);
    expect(patched.json().spec.ports[0].nodePort).toBe(created.spec.ports[0].nodePort);

    const headless = await create(svc(uniqueName('hl'), { clusterIP: 'None' }));
    expect(headless.status).toBe(201);
    expect(headless.json().spec.clusterIPs).toEqual(['None']);
    expect(headless.json().spec.ipFamilies).toEqual(['IPv4']);
  });
});

describe('dual-stack (memory)', () => {
  const memory = backends().filter((b) => b.name === 'memory');
  afterAll(() => stopBackends(memory));
  if (memory.length === 0) return;
  let api: TestApi;
  let single: TestApi;
  let path: string;
  beforeAll(async () => {
    const { parseServiceClusterIPRanges } = await import('../../apiserver/config/service-range-flags.js');
    api = await memory[0]!.start({ serviceClusterIPRanges: parseServiceClusterIPRanges('10.96.0.0/16,fd00:96::/112') });
    single = await memory[0]!.start();
    const ns = await createNamespace(api);
    path = `/api/v1/namespaces/${ns}/services`;
  });

  it('families follow the policy; upgrade adds and downgrade releases the secondary address', async () => {
    const plain = (await api.request('POST', path, { body: svc(uniqueName('ds')) })).json();
    expect([plain.spec.ipFamilyPolicy, plain.spec.ipFamilies, plain.spec.clusterIPs.length]).toEqual(['SingleStack', ['IPv4'], 1]);

    const v6first = await api.request('POST', path, { body: svc(uniqueName('ds'), { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] }) });
    expect(v6first.status).toBe(201);
    expect(v6first.json().spec.clusterIPs[0]).toMatch(/^fd00:96::/);
    expect(v6first.json().spec.clusterIPs[1]).toMatch(/^10\.96\./);

    const name = uniqueName('ds');
    const created = (await api.request('POST', path, { body: svc(name) })).json();
    const up = await api.request('PUT', `${path}/${name}`, { body: { ...created, spec: { ...created.spec, ipFamilyPolicy: 'PreferDualStack' } } });
    expect(up.status).toBe(200);
    expect(up.json().spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
    const secondary = up.json().spec.clusterIPs[1];
    expect(secondary).toMatch(/^fd00:96::/);

    const upgraded = up.json();
    const down = await api.request('PUT', `${path}/${name}`, { body: { ...upgraded, spec: { ...upgraded.spec, ipFamilyPolicy: 'SingleStack' } } });
    expect(down.status).toBe(200);
    expect([down.json().spec.clusterIPs, down.json().spec.ipFamilies]).toEqual([[created.spec.clusterIP], ['IPv4']]);
    // The secondary address was released: another Service can take it.
    const taker = await api.request('POST', path, { body: svc(uniqueName('ds'), { ipFamilyPolicy: 'RequireDualStack', clusterIPs: ['10.96.77.77', secondary], clusterIP: '10.96.77.77' }) });
    expect(taker.status).toBe(201);
  });

  it('a single-stack cluster refuses RequireDualStack and IPv6', async () => {
    const ns = await createNamespace(single);
    const p = `/api/v1/namespaces/${ns}/services`;
    const res = await single.request('POST', p, { body: svc(uniqueName('ss'), { ipFamilyPolicy: 'RequireDualStack' }) });
    expect(res.status).toBe(422);
    expect(res.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services', field: 'spec.ipFamilyPolicy' },
    ]);
    const v6 = await single.request('POST', p, { body: svc(uniqueName('ss'), { ipFamilies: ['IPv6'] }) });
    expect(v6.status).toBe(422);
    expect(v6.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "IPv6": not configured on this cluster', field: 'spec.ipFamilies[0]' },
    ]);
    const v6ip = await single.request('POST', p, { body: svc(uniqueName('ss'), { clusterIP: 'fd00::5' }) });
    expect(v6ip.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: []string{"fd00::5"}: IPv6 is not configured on this cluster', field: 'spec.clusterIPs[0]' },
    ]);
    const two = await single.request('POST', p, { body: svc(uniqueName('ss'), { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] }) });
    expect(two.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "SingleStack": must be \'RequireDualStack\' or \'PreferDualStack\' when multiple IP families are specified', field: 'spec.ipFamilyPolicy' },
    ]);
    // A headless Service without a selector is dual-stack whatever the cluster has, as Kubernetes makes it.
    const headless = await single.request('POST', p, { body: svc(uniqueName('ss'), { clusterIP: 'None', selector: undefined }) });
    expect(headless.status).toBe(201);
    expect([headless.json().spec.ipFamilyPolicy, headless.json().spec.ipFamilies]).toEqual(['RequireDualStack', ['IPv4', 'IPv6']]);
  });
});

describe('IPAddress mode with more ServiceCIDRs (memory)', () => {
  const memory = backends().filter((b) => b.name === 'memory');
  afterAll(() => stopBackends(memory));
  if (memory.length === 0) return;

  it('a full default range is a 500; a ServiceCIDR users add is allocated from, and a chosen address in it is taken', async () => {
    const { parseServiceClusterIPRanges } = await import('../../apiserver/config/service-range-flags.js');
    const api = await memory[0]!.start({ serviceClusterIPRanges: parseServiceClusterIPRanges('10.96.0.0/29'), runtimeConfig: 'networking.platform.io/v1beta1=true' });
    const ns = await createNamespace(api);
    const path = `/api/v1/namespaces/${ns}/services`;
    const deadline = Date.now() + 10_000;
    // The leader's kubernetes Service holds 10.96.0.1; five addresses are left.
    while ((await api.request('GET', '/api/v1/namespaces/default/services/kubernetes')).status !== 200) {
      if (Date.now() > deadline) throw new Error('the kubernetes Service was never created');
    }
    const ips: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.request('POST', path, { body: svc(uniqueName('fill')) });
      expect(res.status).toBe(201);
      ips.push(res.json().spec.clusterIP);
    }
    expect(ips.sort()).toEqual(['10.96.0.2', '10.96.0.3', '10.96.0.4', '10.96.0.5', '10.96.0.6']);
    const full = await api.request('POST', path, { body: svc(uniqueName('full')) });
    expect(full.status).toBe(500);
    expect(full.json().message).toBe('Internal error occurred: failed to allocate a serviceIP: range is full');
    const outside = await api.request('POST', path, { body: svc(uniqueName('out'), { clusterIP: '10.200.0.5' }) });
    expect(outside.status).toBe(422);

    const cidr = await api.request('POST', '/apis/networking.platform.io/v1beta1/servicecidrs', {
      body: { apiVersion: 'networking.platform.io/v1beta1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.200.0.0/28'] } },
    });
    expect(cidr.status).toBe(201);
    const spilled = await api.request('POST', path, { body: svc(uniqueName('spill')) });
    expect(spilled.status).toBe(201);
    expect(spilled.json().spec.clusterIP).toMatch(/^10\.200\.0\.(\d+)$/);
    const pick = spilled.json().spec.clusterIP === '10.200.0.5' ? '10.200.0.6' : '10.200.0.5';
    const chosen = await api.request('POST', path, { body: svc(uniqueName('chosen'), { clusterIP: pick }) });
    expect(chosen.status).toBe(201);
    expect(chosen.json().spec.clusterIPs).toEqual([pick]);
    const address = await api.request('GET', `/apis/networking.platform.io/v1beta1/ipaddresses/${spilled.json().spec.clusterIP}`);
    expect(address.json().spec.parentRef).toEqual({ resource: 'services', namespace: ns, name: spilled.json().metadata.name });
  });
});
