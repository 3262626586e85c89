/**
 * End to end: stock kubectl (the dispatcher on PATH, which runs kubectl 1.32 for this server) against the
 * BUILT server (`bin/platform-apiserver`, embedded store) for HorizontalPodAutoscalers, in both group-domain
 * modes (the group is `autoscaling` in both): `create -f`, `get hpa` with kubectl's columns (TARGETS as
 * `cpu: <current>/<target>`), the status sub-resource through `patch --subresource=status`, `describe hpa`
 * (kubectl asks for autoscaling/v2 first, gets 404 and describes the v1 object), `get all`, `explain
 * hpa.spec`, a validation error as kubectl prints it, `kubectl autoscale rc` (kubectl 1.32 POSTs an
 * autoscaling/v1 HPA for a scalable kind it has read), and `delete`.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const HPA = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: StatefulSet
    name: web
  maxReplicas: 3
  targetCPUUtilizationPercentage: 60
`;

/** kubectl's human duration for a young object (seconds; minutes past 2 min on a slow machine). */
const AGE = /^(\d+s|\d+m(\d+s)?)$/;

for (const domain of ['platform.io', 'k8s.io'] as const) {
  describe(`kubectl and HorizontalPodAutoscalers (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const ns = 'hpa-e2e';

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', 'namespace', ns));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('create -f, then get hpa shows kubectl\'s columns with the default minReplicas', async () => {
      expect(ok(await server.kubectl(['create', '-f', '-', '-n', ns], { stdin: HPA }))).toBe('horizontalpodautoscaler.autoscaling/web created\n');
      const out = ok(await kubectl('get', 'hpa', '-n', ns));
      expect(headerLine(out)).toMatch(/^NAME +REFERENCE +TARGETS +MINPODS +MAXPODS +REPLICAS +AGE$/);
      const rows = parseTable(out);
      expect(rows).toEqual([{ NAME: 'web', REFERENCE: 'StatefulSet/web', TARGETS: 'cpu: <unknown>/60%', MINPODS: '1', MAXPODS: '3', REPLICAS: '0', AGE: expect.stringMatching(AGE) }]);
    });

    it('patch --subresource=status, then get hpa shows the current utilization and replicas', async () => {
      const status = JSON.stringify({ status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 42 } });
      ok(await kubectl('patch', 'hpa', 'web', '-n', ns, '--subresource=status', '--type=merge', '-p', status));
      const rows = parseTable(ok(await kubectl('get', 'horizontalpodautoscalers.autoscaling', 'web', '-n', ns)));
      expect(rows[0]).toEqual(expect.objectContaining({ TARGETS: 'cpu: 42%/60%', REPLICAS: '2' }));
      const bad = await kubectl('patch', 'hpa', 'web', '-n', ns, '--subresource=status', '--type=merge', '-p', '{"status":{"desiredReplicas":-1}}');
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('The HorizontalPodAutoscaler "web" is invalid: status.desiredReplicas: Invalid value: -1: must be greater than or equal to 0');
    });

    it('describe hpa falls back from autoscaling/v2 to the v1 object', async () => {
      const res = await kubectl('describe', 'hpa', 'web', '-n', ns, '-v=6');
      const out = ok(res);
      expect(res.stderr).toMatch(/GET https:\/\/\S+\/apis\/autoscaling\/v2\/namespaces\/hpa-e2e\/horizontalpodautoscalers\/web 404 Not Found/);
      expect(out).toMatch(/^Name: +web$/m);
      expect(out).toMatch(/^Namespace: +hpa-e2e$/m);
      expect(out).toMatch(/^Reference: +StatefulSet\/web$/m);
      expect(out).toMatch(/^Target CPU utilization: +60%$/m);
      expect(out).toMatch(/^Current CPU utilization: +42%$/m);
      expect(out).toMatch(/^Min replicas: +1$/m);
      expect(out).toMatch(/^Max replicas: +3$/m);
      expect(out).toMatch(/^StatefulSet pods: +2 current \/ 3 desired$/m);
    });

    it('get all lists it (category all)', async () => {
      const out = ok(await kubectl('get', 'all', '-n', ns, '-o', 'name'));
      expect(out.split('\n')).toContain('horizontalpodautoscaler.autoscaling/web');
    });

    it('explain hpa.spec', async () => {
      const out = ok(await kubectl('explain', 'hpa.spec'));
      expect(out).toMatch(/^GROUP: +autoscaling$/m);
      expect(out).toMatch(/^KIND: +HorizontalPodAutoscaler$/m);
      expect(out).toMatch(/^VERSION: +v1$/m);
      expect(out).toMatch(/^FIELD: +spec </m);
      expect(out).toMatch(/^ {2}maxReplicas\s+<integer> -required-$/m);
      expect(out).toMatch(/^ {2}minReplicas\s+<integer>$/m);
      expect(out).toMatch(/^ {2}scaleTargetRef\s+<Object> -required-$/m);
      expect(out).toMatch(/^ {2}targetCPUUtilizationPercentage\s+<integer>$/m);
    });

    it('a spec that breaks the rules: kubectl prints the 422 causes', async () => {
      const bad = HPA.replace('name: web\nspec:', 'name: bad\nspec:\n  minReplicas: 5');
      const res = await server.kubectl(['create', '-f', '-', '-n', ns], { stdin: bad });
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('The HorizontalPodAutoscaler "bad" is invalid: spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`');
    });

    it('kubectl autoscale rc creates an autoscaling/v1 HPA for a ReplicationController', async () => {
      const rc = `apiVersion: v1
kind: ReplicationController
metadata:
  name: frontend
spec:
  replicas: 1
  selector: { app: frontend }
  template:
    metadata:
      labels: { app: frontend }
    spec:
      containers: [{ name: web, image: nginx }]
`;
      ok(await server.kubectl(['create', '-f', '-', '-n', ns], { stdin: rc }));
      const res = await kubectl('autoscale', 'rc', 'frontend', '-n', ns, '--min=2', '--max=5', '--cpu-percent=70', '-v=6');
      expect(ok(res)).toBe('horizontalpodautoscaler.autoscaling/frontend autoscaled\n');
      expect(res.stderr).toMatch(/POST https:\/\/\S+\/apis\/autoscaling\/v1\/namespaces\/hpa-e2e\/horizontalpodautoscalers\?fieldManager=kubectl-autoscale 201 Created/);
      const rows = parseTable(ok(await kubectl('get', 'hpa', 'frontend', '-n', ns)));
      expect(rows).toEqual([expect.objectContaining({ REFERENCE: 'ReplicationController/frontend', TARGETS: 'cpu: <unknown>/70%', MINPODS: '2', MAXPODS: '5' })]);
    });

    it('delete hpa', async () => {
      expect(ok(await kubectl('delete', 'hpa', 'web', '-n', ns))).toBe('horizontalpodautoscaler.autoscaling "web" deleted\n');
      expect((await kubectl('get', 'hpa', 'web', '-n', ns)).status).toBe(1);
    });
  });
}
