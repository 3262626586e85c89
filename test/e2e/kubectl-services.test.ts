/**
 * End to end: stock kubectl (the dispatcher on PATH, which runs kubectl 1.32 for this server) against the
 * BUILT server (`bin/platform-apiserver`, embedded store, `--service-cluster-ip-range=10.96.0.0/16`) for
 * Services, in both group-domain modes: `kubectl create service clusterip|nodeport` (a PROTOBUF body, and
 * protobuf back), `get svc` with kubectl's columns (and `-o wide`), `describe svc`, `expose svc`, a chosen
 * node port that is taken refused with Kubernetes' message, `get all` listing Services, and `delete`.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

for (const domain of ['platform.io', 'k8s.io'] as const) {
  describe(`kubectl and Services (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const ns = 'svc-e2e';

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`, '--service-cluster-ip-range=10.96.0.0/16', '--service-node-port-range=30000-30999']);
      ok(await kubectl('create', 'namespace', ns));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('create service clusterip sends protobuf; the server allocates an address from the range', async () => {
      const res = await kubectl('create', 'service', 'clusterip', 'web', '-n', ns, '--tcp=80:8080', '-v=9');
      expect(res.status).toBe(0);
      expect(res.stdout).toBe('service/web created\n');
      const post = res.stderr.split('\n').find((l) => l.includes('curl -v -XPOST') && l.includes(`/api/v1/namespaces/${ns}/services?`));
      expect(post).toContain('-H "Content-Type: application/vnd.kubernetes.protobuf"');

      const svc = JSON.parse(ok(await kubectl('get', 'svc', 'web', '-n', ns, '-o', 'json')));
      expect(svc.spec).toEqual(expect.objectContaining({
        type: 'ClusterIP', selector: { app: 'web' }, sessionAffinity: 'None', ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'],
        internalTrafficPolicy: 'Cluster', ports: [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }],
      }));
      expect(svc.spec.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
      expect(svc.status).toEqual({ loadBalancer: {} });
    });

    it('create service nodeport with a chosen node port; the same port again is refused', async () => {
      expect(ok(await kubectl('create', 'service', 'nodeport', 'np', '-n', ns, '--tcp=443:8443', '--node-port=30443'))).toBe('service/np created\n');
      const again = await kubectl('create', 'service', 'nodeport', 'np2', '-n', ns, '--tcp=443:8443', '--node-port=30443');
      expect(again.status).toBe(1);
      expect(again.stderr).toBe('error: failed to create NodePort service: Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated\n');
    });

    it('get svc shows kubectl\'s columns, -o wide the selector', async () => {
      const out = ok(await kubectl('get', 'svc', '-n', ns));
      expect(headerLine(out)).toMatch(/^NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\(S\) +AGE$/);
      const rows = parseTable(out);
      expect(rows).toEqual([
        { NAME: 'np', TYPE: 'NodePort', 'CLUSTER-IP': expect.stringMatching(/^10\.96\./), 'EXTERNAL-IP': '<none>', 'PORT(S)': '443:30443/TCP', AGE: expect.stringMatching(/^\d+s$/) },
        { NAME: 'web', TYPE: 'ClusterIP', 'CLUSTER-IP': expect.stringMatching(/^10\.96\./), 'EXTERNAL-IP': '<none>', 'PORT(S)': '80/TCP', AGE: expect.stringMatching(/^\d+s$/) },
      ]);
      const wide = parseTable(ok(await kubectl('get', 'svc', 'web', '-n', ns, '-o', 'wide')));
      expect(wide[0]).toEqual(expect.objectContaining({ SELECTOR: 'app=web' }));
      const everything = ok(await kubectl('get', 'all', '-n', ns));
      expect(everything).toContain('service/web');
      expect(everything).toContain('service/np');
    });

    it('describe svc', async () => {
      const ip = JSON.parse(ok(await kubectl('get', 'svc', 'web', '-n', ns, '-o', 'json'))).spec.clusterIP;
      const out = ok(await kubectl('describe', 'svc', 'web', '-n', ns));
      expect(out).toMatch(/^Name: +web$/m);
      expect(out).toMatch(new RegExp(`^Namespace: +${ns}$`, 'm'));
      expect(out).toMatch(/^Selector: +app=web$/m);
      expect(out).toMatch(/^Type: +ClusterIP$/m);
      expect(out).toMatch(/^IP Family Policy: +SingleStack$/m);
      expect(out).toMatch(/^IP Families: +IPv4$/m);
      expect(out).toMatch(new RegExp(`^IP: +${ip.replace(/\./g, '\\.')}$`, 'm'));
      expect(out).toMatch(/^Port: +80-8080 +80\/TCP$/m);
      expect(out).toMatch(/^TargetPort: +8080\/TCP$/m);
      expect(out).toMatch(/^Session Affinity: +None$/m);
    });

    it('expose svc makes a Service with the same selector; delete answers', async () => {
      expect(ok(await kubectl('expose', 'svc', 'web', '-n', ns, '--name=web-alt', '--port=81', '--target-port=8080'))).toBe('service/web-alt exposed\n');
      const alt = JSON.parse(ok(await kubectl('get', 'svc', 'web-alt', '-n', ns, '-o', 'json')));
      expect(alt.spec.selector).toEqual({ app: 'web' });
      expect(alt.spec.ports).toEqual([{ port: 81, protocol: 'TCP', targetPort: 8080 }]);
      expect(ok(await kubectl('delete', 'svc', 'web-alt', 'np', '-n', ns))).toBe('service "web-alt" deleted\nservice "np" deleted\n');
      // The node port is free again.
      expect(ok(await kubectl('create', 'service', 'nodeport', 'np3', '-n', ns, '--tcp=443:8443', '--node-port=30443'))).toBe('service/np3 created\n');
    });
  });
}
