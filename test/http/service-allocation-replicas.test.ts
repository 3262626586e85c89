/**
 * Two replicas on one etcd (one storage prefix) creating 500 NodePort Services at once, half through each
 * (so 500 cluster IPs and 500 node ports are allocated concurrently): no address and no port is handed out
 * twice, every value is in its range, and after every Service is deleted nothing is left taken but the
 * `kubernetes` Service's address: the bitmap records hold that one bit (default mode), and its IPAddress is
 * the only one left (`--runtime-config networking.<domain>/v1beta1=true`, where the default ServiceCIDR
 * `kubernetes` exists).
 */
import { parseServiceClusterIPRanges } from '../../apiserver/config/service-range-flags.js';
import { backends, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends().filter((b) => b.name === 'etcd');
afterAll(() => stopBackends(all));

const COUNT = 500;
const CONCURRENCY = 40;
type Json = Record<string, any>;

/** Runs `task(i)` for i in [0, n) with at most `limit` in flight. */
async function pool(n: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < n) await task(next++);
  }));
}

/** The set bits of a RangeAllocation record (0 when the record does not exist). */
async function bitsSet(api: TestApi, prefix: string, key: string): Promise<number> {
  const { kv } = await api.server.store.get(`${prefix}/ranges/${key}`);
  if (kv === undefined) return 0;
  const data = Buffer.from(JSON.parse(Buffer.from(kv.value).toString('utf8')).data as string, 'base64');
  let n = 0;
  for (const byte of data) for (let b = byte; b !== 0; b &= b - 1) n++;
  return n;
}

describeBackends(all, (b) => {
  for (const mode of ['bitmap', 'ipaddress'] as const) {
    it(`two replicas allocate ${COUNT} cluster IPs and ${COUNT} node ports concurrently without duplicates, and free them all (${mode})`, async () => {
      const prefix = `/registry-svc-${mode}-${process.pid}`;
      const overrides = {
        storagePrefix: prefix,
        serviceClusterIPRanges: parseServiceClusterIPRanges('10.100.0.0/20'),
        ...(mode === 'ipaddress' ? { runtimeConfig: 'networking.platform.io/v1beta1=true' } : {}),
      };
      const a = await b.start(overrides);
      const c = await b.start(overrides);
      const ns = uniqueName('alloc');
      expect((await a.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status).toBe(201);
      const path = `/api/v1/namespaces/${ns}/services`;
      // Both replicas must know the namespace before creating in it.
      const deadline = Date.now() + 5000;
      while ((await c.request('GET', `/api/v1/namespaces/${ns}`)).status !== 200) {
        if (Date.now() > deadline) throw new Error('replica B never saw the namespace');
      }

      // The leader creates the `kubernetes` Service (10.100.0.1) on its own; it holds one address throughout.
      const kube = '/api/v1/namespaces/default/services/kubernetes';
      while ((await a.request('GET', kube)).status !== 200) {
        if (Date.now() > deadline + 10_000) throw new Error('the kubernetes Service was never created');
      }

      const created: Json[] = [];
      const started = performance.now();
      await pool(COUNT, CONCURRENCY, async (i) => {
        const api = i % 2 === 0 ? a : c;
        const res = await api.request('POST', path, {
          body: { apiVersion: 'v1', kind: 'Service', metadata: { name: `s${i}` }, spec: { type: 'NodePort', selector: { app: `s${i}` }, ports: [{ port: 80 }] } },
        });
        if (res.status !== 201) throw new Error(`create s${i}: ${res.status} ${res.text()}`);
        created.push(res.json());
      });
      const createMs = performance.now() - started;

      const ips = created.map((s) => s.spec.clusterIP as string);
      const ports = created.map((s) => s.spec.ports[0].nodePort as number);
      expect(new Set(ips).size).toBe(COUNT);
      expect(new Set(ports).size).toBe(COUNT);
      for (const ip of ips) expect(ip).toMatch(/^10\.100\.(1[0-5]|[0-9])\.\d+$/);
      for (const p of ports) expect(p >= 30000 && p <= 32767).toBe(true);
      // What is stored agrees with what was answered.
      const listed = (await c.request('GET', path)).json().items as Json[];
      expect(new Set(listed.map((s) => s.spec.clusterIP)).size).toBe(COUNT);

      if (mode === 'bitmap') {
        expect(await bitsSet(a, prefix, 'serviceips')).toBe(COUNT + 1);
        expect(await bitsSet(a, prefix, 'servicenodeports')).toBe(COUNT);
      } else {
        const addresses = (await a.request('GET', '/apis/networking.platform.io/v1beta1/ipaddresses')).json().items as Json[];
        expect(addresses.map((x) => x.metadata.name).sort()).toEqual([...ips, '10.100.0.1'].sort());
        expect(addresses.find((x) => x.metadata.name === ips[0])!.spec.parentRef).toEqual({ resource: 'services', namespace: ns, name: created[0]!.metadata.name });
        const cidr = (await a.request('GET', '/apis/networking.platform.io/v1beta1/servicecidrs/kubernetes')).json();
        expect(cidr.spec.cidrs).toEqual(['10.100.0.0/20']);
      }

      await pool(COUNT, CONCURRENCY, async (i) => {
        const res = await (i % 2 === 0 ? c : a).request('DELETE', `${path}/s${i}`);
        if (res.status !== 200) throw new Error(`delete s${i}: ${res.status} ${res.text()}`);
      });
      // Only the kubernetes Service's address is left.
      if (mode === 'bitmap') expect(await bitsSet(a, prefix, 'serviceips')).toBe(1);
      else {
        const left = (await a.request('GET', '/apis/networking.platform.io/v1beta1/ipaddresses')).json().items as Json[];
        expect(left.map((x) => [x.metadata.name, x.spec.parentRef])).toEqual([['10.100.0.1', { resource: 'services', namespace: 'default', name: 'kubernetes' }]]);
      }
      expect(await bitsSet(a, prefix, 'servicenodeports')).toBe(0);
      console.log(`${mode}: ${COUNT} Services through two replicas in ${Math.round(createMs)} ms`);
    }, 60_000);
  }
});
