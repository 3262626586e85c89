/**
 * Leases over HTTP on both backends: `coordination.<domain>/v1` served (discovery, CRUD with Kubernetes'
 * validation as a 422 Status, MicroTimes written canonically, PUT creating, kubectl's table), and the
 * server's own leader election visible as the Lease `platform-apiserver-controllers` in the system
 * namespace; on etcd, two replicas share it and a takeover shows a new holder and one more transition.
 */
import { naming } from '../../apiserver/naming/naming.js';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const GROUP = 'coordination.platform.io';
const SYSTEM_NS = naming('platform.io').systemNamespace;
const LEADER_PATH = (group = GROUP, ns = SYSTEM_NS) => `/apis/${group}/v1/namespaces/${ns}/leases/platform-apiserver-controllers`;

/** Polls `check` (every 50 ms) until it returns a value, or fails after `ms`. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The leader Lease once it has a holder (optionally other than `not`). */
const leaderLease = (api: TestApi, not?: string, group?: string, ns?: string) =>
  until(`a holder other than ${not ?? '""'}`, async () => {
    const res = await api.request('GET', LEADER_PATH(group, ns));
    if (res.status !== 200) return undefined;
    const lease = res.json();
    const holder = lease.spec?.holderIdentity;
    return typeof holder === 'string' && holder !== '' && holder !== not ? lease : undefined;
  });

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
  });
  const path = (name = '') => `/apis/${GROUP}/v1/namespaces/${ns}/leases${name === '' ? '' : `/${name}`}`;

  it('discovery lists leases, namespaced, without short names', async () => {
    const res = (await api.request('GET', `/apis/${GROUP}/v1`)).json();
    expect(res.resources).toEqual([expect.objectContaining({ name: 'leases', kind: 'Lease', namespaced: true, singularName: 'lease' })]);
    expect(res.resources[0].shortNames).toBeUndefined();
  });

  it('round trip: create, get, update, table, delete; MicroTimes written with six digits in UTC', async () => {
    const name = uniqueName('lease');
    const created = await api.request('POST', path(), {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Lease', metadata: { name },
        spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, acquireTime: '2024-01-01T02:00:00+02:00', renewTime: '2024-01-01T00:00:10.5Z', leaseTransitions: 0 } },
    });
    expect(created.status).toBe(201);
    const lease = created.json();
    expect(lease.apiVersion).toBe(`${GROUP}/v1`);
    expect(lease.metadata.uid).toEqual(expect.any(String));
    expect(lease.spec).toEqual({ holderIdentity: 'node-1', leaseDurationSeconds: 40, acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:10.500000Z', leaseTransitions: 0 });
    expect((await api.request('GET', path(name))).json().spec).toEqual(lease.spec);

    const renewed = await api.request('PUT', path(name), { body: { ...lease, spec: { ...lease.spec, holderIdentity: 'node-2', leaseTransitions: 1 } } });
    expect(renewed.status).toBe(200);
    expect(renewed.json().spec).toEqual(expect.objectContaining({ holderIdentity: 'node-2', leaseTransitions: 1 }));

    const table = (await api.request('GET', path(), { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Holder', 'Age']);
    expect(table.rows).toEqual([expect.objectContaining({ cells: [name, 'node-2', expect.any(String)] })]);

    expect((await api.request('DELETE', path(name))).status).toBe(200);
    expect((await api.request('GET', path(name))).status).toBe(404);
  });

  it('PUT of a missing Lease creates it', async () => {
    const name = uniqueName('lease');
    const res = await api.request('PUT', path(name), { body: { apiVersion: `${GROUP}/v1`, kind: 'Lease', metadata: { name }, spec: { holderIdentity: 'x' } } });
    expect(res.status).toBe(201);
  });

  it('invalid specs are 422 with the causes of Kubernetes 1.32; a bad MicroTime is refused by the schema', async () => {
    const name = uniqueName('lease');
    const res = await api.request('POST', path(), {
      body: { apiVersion: `${GROUP}/v1`, kind: 'Lease', metadata: { name }, spec: { leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: 'p' } },
    });
    expect(res.status).toBe(422);
    const status = res.json();
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.leaseDurationSeconds' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.leaseTransitions' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: may only be specified if `strategy` is defined', field: 'spec.preferredHolder' },
    ]);
    const badTime = await api.request('POST', path(), { body: { apiVersion: `${GROUP}/v1`, kind: 'Lease', metadata: { name }, spec: { renewTime: 'yesterday' } } });
    expect(badTime.status).toBeGreaterThanOrEqual(400);
    expect(badTime.status).toBeLessThan(500);
    expect(badTime.json().details.causes[0].field).toBe('spec.renewTime');
  });

  it("the server's leader election is the Lease platform-apiserver-controllers in the system namespace", async () => {
    const lease = await leaderLease(api);
    expect(lease.apiVersion).toBe(`${GROUP}/v1`);
    expect(lease.metadata).toEqual(expect.objectContaining({ name: 'platform-apiserver-controllers', namespace: SYSTEM_NS, uid: expect.any(String), creationTimestamp: expect.any(String) }));
    expect(lease.spec).toEqual(expect.objectContaining({ leaseDurationSeconds: 15, leaseTransitions: 0, acquireTime: expect.stringMatching(/\.\d{6}Z$/), renewTime: expect.stringMatching(/\.\d{6}Z$/) }));
    const table = (await api.request('GET', `/apis/${GROUP}/v1/namespaces/${SYSTEM_NS}/leases`, { headers: { Accept: TABLE } })).json();
    expect(table.rows).toEqual([expect.objectContaining({ cells: ['platform-apiserver-controllers', lease.spec.holderIdentity, expect.any(String)] })]);
  });

  it('under --group-domain=k8s.io the Lease is coordination.k8s.io/v1 in kube-system', async () => {
    const k8s = await b.start({ groupDomain: 'k8s.io' });
    const lease = await leaderLease(k8s, undefined, 'coordination.k8s.io', 'kube-system');
    expect(lease.apiVersion).toBe('coordination.k8s.io/v1');
    await k8s.server.close();
  });

  if (b.name === 'etcd') {
    it('two replicas share the Lease: one holds it, and when it stops the other takes over with one more transition', async () => {
      const storagePrefix = `/registry-lease-${process.pid}`;
      const first = await b.start({ storagePrefix });
      const held = await leaderLease(first);
      const second = await b.start({ storagePrefix });
      // Both replicas read the same object; the first keeps renewing it.
      const seenBySecond = (await second.request('GET', LEADER_PATH())).json();
      expect(seenBySecond.spec.holderIdentity).toBe(held.spec.holderIdentity);
      expect(seenBySecond.metadata.uid).toBe(held.metadata.uid);

      await first.server.close();
      const taken = await leaderLease(second, held.spec.holderIdentity);
      expect(taken.spec.holderIdentity).not.toBe(held.spec.holderIdentity);
      expect(taken.spec.leaseTransitions).toBe(held.spec.leaseTransitions + 1);
      expect(taken.metadata.uid).toBe(held.metadata.uid);
      await second.server.close();
    });
  }
});
