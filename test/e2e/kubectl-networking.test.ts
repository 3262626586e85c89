/**
 * End to end: stock kubectl (the dispatcher on PATH, which runs kubectl 1.32 for this server) against the
 * BUILT server (`bin/platform-apiserver`, embedded store) for ServiceCIDR and IPAddress, in both group-domain
 * modes. `networking.<domain>/v1beta1` is off by default (kubectl does not know the resources) and served with
 * `--runtime-config=networking.<domain>/v1beta1=true`: `api-resources`, `create -f`, `get` with kubectl's
 * columns (IPADDRESS shows NAME and PARENTREF only, as Kubernetes declares), `describe`, `explain`, a
 * validation error and the immutable blocks as kubectl prints them, and `delete`.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

for (const domain of ['platform.io', 'k8s.io'] as const) {
  const group = `networking.${domain}`;
  const manifest = `apiVersion: ${group}/v1beta1
kind: ServiceCIDR
metadata:
  name: extra-range
spec:
  cidrs: [10.100.0.0/16, "fd00:100::/112"]
---
apiVersion: ${group}/v1beta1
kind: IPAddress
metadata:
  name: 10.100.0.10
spec:
  parentRef: { group: "", resource: services, namespace: default, name: web }
`;

  describe(`kubectl and the networking kinds (--group-domain=${domain})`, () => {
    let off: RunningApiserver;
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

    beforeAll(async () => {
      [off, server] = await Promise.all([
        startApiserver([`--group-domain=${domain}`]),
        startApiserver([`--group-domain=${domain}`, `--runtime-config=${group}/v1beta1=true`]),
      ]);
    }, 60_000);
    afterAll(async () => {
      await Promise.all([off?.stop(), server?.stop()]);
    });

    it('without --runtime-config kubectl does not know servicecidrs', async () => {
      const res = await off.kubectl(['get', 'servicecidrs']);
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('the server doesn\'t have a resource type "servicecidrs"');
      expect(ok(await off.kubectl(['api-resources', `--api-group=${group}`]))).toBe('NAME   SHORTNAMES   APIVERSION   NAMESPACED   KIND\n');
    });

    it('api-resources lists both, cluster-scoped', async () => {
      const rows = parseTable(ok(await kubectl('api-resources', `--api-group=${group}`)));
      expect(rows).toEqual([
        { NAME: 'ipaddresses', SHORTNAMES: '', APIVERSION: `${group}/v1beta1`, NAMESPACED: 'false', KIND: 'IPAddress' },
        { NAME: 'servicecidrs', SHORTNAMES: '', APIVERSION: `${group}/v1beta1`, NAMESPACED: 'false', KIND: 'ServiceCIDR' },
      ]);
    });

    it('create -f, then get shows kubectl\'s columns', async () => {
      expect(ok(await server.kubectl(['create', '-f', '-'], { stdin: manifest }))).toBe(
        `servicecidr.${group}/extra-range created\nipaddress.${group}/10.100.0.10 created\n`,
      );
      const cidrs = ok(await kubectl('get', 'servicecidrs', 'extra-range'));
      expect(headerLine(cidrs)).toMatch(/^NAME +CIDRS +AGE$/);
      expect(parseTable(cidrs)).toEqual([{ NAME: 'extra-range', CIDRS: '10.100.0.0/16,fd00:100::/112', AGE: expect.stringMatching(/^\d+s$/) }]);
      const ips = ok(await kubectl('get', 'ipaddresses', '10.100.0.10'));
      expect(headerLine(ips)).toMatch(/^NAME +PARENTREF$/);
      expect(parseTable(ips)).toEqual([{ NAME: '10.100.0.10', PARENTREF: 'services/default/web' }]);
    });

    it('describe both', async () => {
      const cidr = ok(await kubectl('describe', 'servicecidr', 'extra-range'));
      expect(cidr).toMatch(/^Name: +extra-range$/m);
      expect(cidr).toMatch(/10\.100\.0\.0\/16/);
      const ip = ok(await kubectl('describe', 'ipaddress', '10.100.0.10'));
      expect(ip).toMatch(/^Name: +10\.100\.0\.10$/m);
      expect(ip).toMatch(/Resource: +services$/m);
    });

    it('explain servicecidr.spec and ipaddress.spec.parentRef', async () => {
      const spec = ok(await kubectl('explain', 'servicecidr.spec'));
      expect(spec).toMatch(new RegExp(`^GROUP: +${group.replace(/\./g, '\\.')}$`, 'm'));
      expect(spec).toMatch(/^KIND: +ServiceCIDR$/m);
      expect(spec).toMatch(/^VERSION: +v1beta1$/m);
      expect(spec).toMatch(/^ {2}cidrs\s+<\[\]string>$/m);
      const ref = ok(await kubectl('explain', 'ipaddress.spec.parentRef'));
      expect(ref).toMatch(/^ {2}resource\s+<string>$/m);
    });

    it('a non-canonical address and a changed block: kubectl prints the 422s', async () => {
      const bad = manifest.split('---\n')[1]!.replace('name: 10.100.0.10', 'name: "2001:db8:0:0::1"');
      const created = await server.kubectl(['create', '-f', '-'], { stdin: bad });
      expect(created.status).toBe(1);
      expect(created.stderr).toContain('The IPAddress "2001:db8:0:0::1" is invalid: metadata.name: Invalid value: "2001:db8:0:0::1": must be a canonical format IP address');
      const patched = await kubectl('patch', 'servicecidr', 'extra-range', '--type=merge', '-p', '{"spec":{"cidrs":["10.101.0.0/16"]}}');
      expect(patched.status).toBe(1);
      expect(patched.stderr).toContain('spec.cidrs: Invalid value: ["10.101.0.0/16"]: field is immutable');
    });

    it('delete both', async () => {
      expect(ok(await kubectl('delete', 'ipaddress', '10.100.0.10'))).toBe(`ipaddress.${group} "10.100.0.10" deleted\n`);
      expect(ok(await kubectl('delete', 'servicecidr', 'extra-range'))).toBe(`servicecidr.${group} "extra-range" deleted\n`);
    });
  });
}
