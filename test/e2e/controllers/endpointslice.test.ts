/**
 * End to end: the endpointslice-controller in the BUILT server (`bin/platform-apiserver`, embedded store),
 * driven with stock kubectl, the test playing the node agent (`kubectl patch --subresource=status` with
 * the pod IPs and Ready, terminating pods removed with `--grace-period=0 --force`), in both group-domain
 * modes: slices appear for a Service's pods with the domain's labels, `kubectl get endpointslices` shows
 * them, readiness and termination move through the conditions, a selector change and pods leaving update
 * them, the `kubernetes` Service's slice is left alone, and a deleted Service's slices go with it.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from '../kubectl-helpers.js';
import { until as poll } from '../../harness/until.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const until = <T>(what: string, check: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> => poll(what, check, ms, 100);

const MANIFEST = `apiVersion: v1
kind: Node
metadata:
  name: node-1
  labels: { topology.kubernetes.io/zone: zone-a }
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: { app: web }
  ports:
  - { name: http, port: 80, targetPort: http }
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  labels: { app: web }
spec:
  nodeName: node-1
  containers:
  - { name: nginx, image: nginx:1.27, ports: [{ name: http, containerPort: 8080 }] }
---
apiVersion: v1
kind: Pod
metadata:
  name: web-2
  labels: { app: web }
spec:
  nodeName: node-1
  containers:
  - { name: nginx, image: nginx:1.27, ports: [{ name: http, containerPort: 8080 }] }
---
apiVersion: v1
kind: Pod
metadata:
  name: db-1
  labels: { app: db }
spec:
  nodeName: node-1
  containers:
  - { name: db, image: postgres:16, ports: [{ name: http, containerPort: 5432 }] }
`;

interface Ep {
  addresses: string[];
  conditions: { ready?: boolean; serving?: boolean; terminating?: boolean };
  targetRef?: { name?: string };
  zone?: string;
  nodeName?: string;
}
interface SliceJson {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[] };
  addressType: string;
  endpoints?: Ep[];
  ports?: { name?: string; port?: number; protocol?: string }[];
}

for (const domain of ['k8s.io', 'platform.io'] as const) {
  const legacy = domain === 'k8s.io' ? 'kubernetes.io' : domain;
  // The Node's zone label is domain-bearing too.
  const manifest = MANIFEST.replace('topology.kubernetes.io/zone', `topology.${legacy}/zone`);

  describe(`endpointslice-controller (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const ns = 'slices-e2e';
    const slicesOf = async (service: string): Promise<SliceJson[]> =>
      (JSON.parse(ok(await kubectl('get', 'endpointslices', '-n', ns, '-l', `${legacy}/service-name=${service}`, '-o', 'json'))) as { items: SliceJson[] }).items;
    const endpoints = (ss: SliceJson[]): Record<string, Ep> => Object.fromEntries(ss.flatMap((s) => s.endpoints ?? []).map((e) => [e.targetRef?.name ?? '', e]));
    const slicesWhen = (what: string, check: (ss: SliceJson[]) => boolean): Promise<SliceJson[]> =>
      until(what, async () => {
        const ss = await slicesOf('web');
        return check(ss) ? ss : undefined;
      });
    /** The node agent's status write: Running, the IP, Ready. */
    const nodeAgent = async (pod: string, ip: string, ready: boolean): Promise<void> => {
      const status = { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().slice(0, 19) + 'Z' }] };
      ok(await kubectl('patch', 'pod', pod, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })));
    };

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', 'namespace', ns));
      ok(await kubectl('create', '-n', ns, '-f', server.file('web.yaml', manifest)));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('a slice of the ready pods, with the domain names, shown by kubectl get endpointslices', async () => {
      await nodeAgent('web-1', '10.1.0.1', true);
      await nodeAgent('web-2', '10.1.0.2', false);
      await nodeAgent('db-1', '10.1.0.9', true);
      const [slice] = await slicesWhen('2 endpoints', (ss) => Object.keys(endpoints(ss)).length === 2);
      const svcUid = ok(await kubectl('get', 'service', 'web', '-n', ns, '-o', 'jsonpath={.metadata.uid}'));
      expect(slice!.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(slice!.metadata.labels).toEqual({ [`${legacy}/service-name`]: 'web', [`endpointslice.${legacy}/managed-by`]: `endpointslice-controller.${domain}` });
      expect(slice!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Service', name: 'web', uid: svcUid, controller: true })]);
      expect(Object.keys(slice!.metadata.annotations ?? {})).toEqual([`endpoints.${legacy}/last-change-trigger-time`]);
      expect(slice!.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
      const eps = endpoints([slice!]);
      expect(eps['web-1']).toEqual(expect.objectContaining({ addresses: ['10.1.0.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-1', zone: 'zone-a' }));
      expect(eps['web-2']!.conditions).toEqual({ ready: false, serving: false, terminating: false });

      const table = await kubectl('get', 'endpointslices', '-n', ns);
      expect(table.stderr).toBe('');
      expect(headerLine(table.stdout)).toMatch(/^NAME +ADDRESSTYPE +PORTS +ENDPOINTS +AGE$/);
      const row = parseTable(table.stdout).find((r) => r.NAME === slice!.metadata.name)!;
      expect([row.ADDRESSTYPE, row.PORTS, row.ENDPOINTS]).toEqual(['IPv4', '8080', '10.1.0.1,10.1.0.2']);
      // The slice is what `kubectl describe endpointslice` shows.
      const described = ok(await kubectl('describe', 'endpointslice', slice!.metadata.name, '-n', ns));
      if (domain === 'k8s.io') {
        expect(described).toMatch(/^AddressType: +IPv4$/m);
        expect(described).toMatch(/^ {2}- Addresses: +10\.1\.0\.1$/m);
        expect(described).toMatch(/^ {4}Zone: +zone-a$/m);
      } else {
        // A group kubectl does not know: its generic describer.
        expect(described).toMatch(/^ {2}Zone: +zone-a$/m);
        expect(described).toMatch(/^ {4}10\.1\.0\.1$/m);
      }
      // describe service: kubectl 1.32 lists the ready endpoints it reads from discovery.k8s.io slices.
      const svc = ok(await kubectl('describe', 'service', 'web', '-n', ns));
      expect(svc).toMatch(/^Selector: +app=web$/m);
      expect(svc).toMatch(/^TargetPort: +http\/TCP$/m);
      if (domain === 'k8s.io') expect(svc).toMatch(/^Endpoints: +10\.1\.0\.1:8080$/m);
    });

    it('readiness and termination move through the conditions; pods leaving leave the slice', async () => {
      await nodeAgent('web-2', '10.1.0.2', true);
      await slicesWhen('web-2 ready', (ss) => endpoints(ss)['web-2']?.conditions.ready === true);
      ok(await kubectl('delete', 'pod', 'web-1', '-n', ns, '--wait=false'));
      const ss = await slicesWhen('web-1 terminating', (s) => endpoints(s)['web-1']?.conditions.terminating === true);
      expect(endpoints(ss)['web-1']!.conditions).toEqual({ ready: false, serving: true, terminating: true });
      ok(await kubectl('delete', 'pod', 'web-1', '-n', ns, '--grace-period=0', '--force'));
      await slicesWhen('web-1 gone', (s) => Object.keys(endpoints(s)).join() === 'web-2');
    });

    it('a selector change moves the endpoints; the kubernetes Service slice is not this controller\'s', async () => {
      ok(await kubectl('patch', 'service', 'web', '-n', ns, '--type=merge', '-p', JSON.stringify({ spec: { selector: { app: 'db' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } })));
      const ss = await slicesWhen('db', (s) => Object.keys(endpoints(s)).join() === 'db-1');
      expect(ss[0]!.ports).toEqual([{ name: 'http', port: 5432, protocol: 'TCP' }]);
      const apiserver = JSON.parse(ok(await kubectl('get', 'endpointslice', 'kubernetes', '-n', 'default', '-o', 'json'))) as SliceJson;
      expect(apiserver.metadata.labels?.[`endpointslice.${legacy}/managed-by`]).toBeUndefined();
      expect(apiserver.metadata.ownerReferences).toBeUndefined();
    });

    it('a deleted Service\'s slices go with it (owner reference, garbage collector)', async () => {
      expect(await slicesOf('web')).toHaveLength(1);
      ok(await kubectl('delete', 'service', 'web', '-n', ns));
      await until('slices gone', async () => ((await slicesOf('web')).length === 0 ? true : undefined));
    });
  });
}
