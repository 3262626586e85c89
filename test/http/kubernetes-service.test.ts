/**
 * The `kubernetes` Service in `default` and its EndpointSlice, kept by the leader from the live replicas'
 * identity records (kube-apiserver's lease endpoint reconciler), with two replicas on one etcd advertising
 * 10.1.0.11 and 10.1.0.12: the Service takes the first address of the range with port 443 `https` to the
 * secure port (a changed port is put back); the slice lists both replicas, ready, labelled with the service
 * name; a replica that stops leaves the slice; a deleted slice is written again. Conditions are awaited by
 * bounded polls.
 */
import { parseServiceClusterIPRanges } from '../../apiserver/config/service-range-flags.js';
import { backends, describeBackends, stopBackends, type ApiResponse, type TestApi } from './helpers.js';

const all = backends().filter((b) => b.name === 'etcd');
afterAll(() => stopBackends(all));

type Json = Record<string, any>;

async function pollUntil(probe: () => Promise<ApiResponse>, done: (r: ApiResponse) => boolean, what: string, limitMs = 10_000): Promise<ApiResponse> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await probe();
    if (done(r)) return r;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${r.status} ${r.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const SLICE = '/apis/discovery.platform.io/v1/namespaces/default/endpointslices/kubernetes';
const SERVICE = '/api/v1/namespaces/default/services/kubernetes';
const addressesOf = (slice: Json): string[] => (slice.endpoints ?? []).flatMap((e: Json) => e.addresses);

describeBackends(all, (b) => {
  it('the kubernetes Service and its EndpointSlice follow the live replicas', async () => {
    const common = {
      storagePrefix: `/registry-kubesvc-${process.pid}`,
      serviceClusterIPRanges: parseServiceClusterIPRanges('10.96.0.0/16'),
      endpointReconcileIntervalMs: 100,
      // Longer than any wait below: a record that goes within one was deleted, not expired.
      masterLeaseTtlSeconds: 60,
    };
    const a: TestApi = await b.start({ ...common, advertiseAddress: '10.1.0.11' });
    const c: TestApi = await b.start({ ...common, advertiseAddress: '10.1.0.12' });

    const svc = (await pollUntil(() => a.request('GET', SERVICE), (r) => r.status === 200, 'the kubernetes Service')).json();
    expect(svc.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    expect(svc.spec).toEqual(expect.objectContaining({ type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], sessionAffinity: 'None' }));
    expect(svc.spec.selector).toBeUndefined();
    const leaderPort = svc.spec.ports[0].targetPort as number;
    expect(svc.spec.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: leaderPort }]);
    expect([a.server.port, c.server.port]).toContain(leaderPort);

    const both = (await pollUntil(() => c.request('GET', SLICE), (r) => r.status === 200 && addressesOf(r.json()).length === 2, 'both replicas in the slice')).json();
    expect(both.metadata.labels).toEqual({ 'platform.io/service-name': 'kubernetes' });
    expect(both.addressType).toBe('IPv4');
    expect(both.endpoints).toEqual([
      { addresses: ['10.1.0.11'], conditions: { ready: true } },
      { addresses: ['10.1.0.12'], conditions: { ready: true } },
    ]);
    expect(both.ports).toEqual([{ name: 'https', port: leaderPort, protocol: 'TCP' }]);

    // A changed port is put back by the leader.
    const changed = await a.request('PATCH', SERVICE, { body: { spec: { ports: [{ name: 'https', port: 8443, protocol: 'TCP', targetPort: leaderPort }] } } });
    expect(changed.status).toBe(200);
    expect(changed.json().spec.ports[0].port).toBe(8443);
    const restored = (await pollUntil(() => a.request('GET', SERVICE), (r) => r.status === 200 && r.json().spec.ports[0].port === 443, 'the port put back')).json();
    expect(restored.spec.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: leaderPort }]);
    expect(restored.spec.clusterIP).toBe('10.96.0.1');

    // A deleted slice is written again by the leader.
    expect((await a.request('DELETE', SLICE)).status).toBe(200);
    await pollUntil(() => a.request('GET', SLICE), (r) => r.status === 200, 'the slice written again');

    // The replica that does not lead stops: its record goes, and the slice follows.
    const [leader, other, otherIP] = leaderPort === a.server.port ? [a, c, '10.1.0.12'] : [c, a, '10.1.0.11'];
    await other.server.close();
    const one = (await pollUntil(() => leader.request('GET', SLICE), (r) => r.status === 200 && addressesOf(r.json()).length === 1, 'the stopped replica leaving the slice')).json();
    expect(addressesOf(one)).not.toContain(otherIP);
  }, 60_000);
});
