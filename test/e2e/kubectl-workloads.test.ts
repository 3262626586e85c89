/**
 * End to end: stock kubectl (the dispatcher on PATH, which runs kubectl 1.32 for this server) against the
 * BUILT server (`bin/platform-apiserver`, embedded store) for StatefulSets and ReplicationControllers, in
 * both group-domain modes: `create -f`, refused objects as kubectl prints the 422, `get sts|rc` (and
 * `-o wide`, `get all`), `scale statefulset|rc` through the scale sub-resource, `describe sts|rc`,
 * `explain statefulset.spec.updateStrategy`, the immutable StatefulSet spec, and `delete`.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const MANIFEST = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{ containerPort: 80, name: http }]
        volumeMounts: [{ name: data, mountPath: /usr/share/nginx/html }]
  volumeClaimTemplates:
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: frontend
spec:
  template:
    metadata:
      labels: { app: frontend, tier: web }
    spec:
      containers:
      - name: php
        image: php:8.3-apache
`;

/** kubectl's human duration for a young object (seconds; minutes past 2 min on a slow machine). */
const AGE = /^(\d+s|\d+m(\d+s)?)$/;

for (const domain of ['platform.io', 'k8s.io'] as const) {
  describe(`kubectl and the workload kinds (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const ns = 'workloads-e2e';

    beforeAll(async () => {
      // The kinds alone: their controllers (pods, status) have their own suites in test/e2e/controllers/.
      server = await startApiserver([`--group-domain=${domain}`, '--controllers=*,-statefulset-controller,-replicationcontroller-controller']);
      ok(await kubectl('create', 'namespace', ns));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('create -f a StatefulSet and a ReplicationController; invalid ones are refused with the causes', async () => {
      expect(ok(await kubectl('create', '-n', ns, '-f', server.file('workloads.yaml', MANIFEST)))).toBe(
        'statefulset.apps/web created\nreplicationcontroller/frontend created\n',
      );
      const sts = JSON.parse(ok(await kubectl('get', 'sts', 'web', '-n', ns, '-o', 'json')));
      expect(sts.spec).toEqual(expect.objectContaining({
        replicas: 1, podManagementPolicy: 'OrderedReady', revisionHistoryLimit: 10,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      }));
      const rc = JSON.parse(ok(await kubectl('get', 'rc', 'frontend', '-n', ns, '-o', 'json')));
      expect([rc.spec.replicas, rc.spec.selector, rc.metadata.labels]).toEqual([1, { app: 'frontend', tier: 'web' }, { app: 'frontend', tier: 'web' }]);

      const bad = MANIFEST.split('---\n')[0]!.replace('name: web\nspec:', 'name: bad\nspec:').replace('serviceName: web', 'serviceName: ""').replace('name: data\n    spec', 'name: logs\n    spec');
      const refused = await kubectl('create', '-n', ns, '-f', server.file('bad.yaml', bad));
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('The StatefulSet "bad" is invalid: \n');
      expect(refused.stderr).toContain('* spec.serviceName: Required value');
      expect(refused.stderr).toContain('* spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"');
      expect(refused.stderr).toContain('* spec.volumeClaimTemplates[0].metadata.name: Invalid value: "logs": must match the name of a volumeMount of a container in the template');
    });

    it('get sts and rc show kubectl\'s columns; -o wide adds the containers; get all lists both', async () => {
      const sts = await kubectl('get', 'statefulsets', '-n', ns);
      expect(sts.stderr).toBe('');
      expect(headerLine(sts.stdout)).toMatch(/^NAME +READY +AGE$/);
      const [row] = parseTable(sts.stdout);
      expect([row!.NAME, row!.READY]).toEqual(['web', '0/1']);
      expect(row!.AGE).toMatch(AGE);
      const wide = parseTable(ok(await kubectl('get', 'sts', '-n', ns, '-o', 'wide')));
      expect(wide[0]).toEqual(expect.objectContaining({ NAME: 'web', CONTAINERS: 'nginx', IMAGES: 'nginx:1.27' }));

      const rc = await kubectl('get', 'rc', '-n', ns);
      expect(headerLine(rc.stdout)).toMatch(/^NAME +DESIRED +CURRENT +READY +AGE$/);
      expect(parseTable(rc.stdout).map((r) => [r.NAME, r.DESIRED, r.CURRENT, r.READY])).toEqual([['frontend', '1', '0', '0']]);
      const rcWide = parseTable(ok(await kubectl('get', 'replicationcontrollers', '-n', ns, '-o', 'wide')));
      expect(rcWide[0]).toEqual(expect.objectContaining({ CONTAINERS: 'php', IMAGES: 'php:8.3-apache', SELECTOR: 'app=frontend,tier=web' }));

      const everything = ok(await kubectl('get', 'all', '-n', ns, '-o', 'name')).split('\n');
      expect(everything).toEqual(expect.arrayContaining(['statefulset.apps/web', 'replicationcontroller/frontend']));
    });

    it('scale statefulset and rc through the scale sub-resource', async () => {
      expect(ok(await kubectl('scale', 'statefulset', 'web', '-n', ns, '--replicas=3'))).toBe('statefulset.apps/web scaled\n');
      expect(ok(await kubectl('scale', 'rc', 'frontend', '-n', ns, '--replicas=2'))).toBe('replicationcontroller/frontend scaled\n');
      expect(ok(await kubectl('get', 'sts', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas} {.metadata.generation}'))).toBe('3 2');
      expect(ok(await kubectl('get', 'rc', 'frontend', '-n', ns, '-o', 'jsonpath={.spec.replicas}'))).toBe('2');
      // --current-replicas is checked against the Scale before writing.
      const stale = await kubectl('scale', 'sts', 'web', '-n', ns, '--current-replicas=1', '--replicas=5');
      expect(stale.status).toBe(1);
      expect(stale.stderr).toContain('error: Expected replicas to be 1, was 3');
      expect(parseTable(ok(await kubectl('get', 'sts', '-n', ns)))[0]!.READY).toBe('0/3');
    });

    it('describe sts and rc', async () => {
      const sts = ok(await kubectl('describe', 'sts', 'web', '-n', ns));
      expect(sts).toMatch(/^Name: +web$/m);
      expect(sts).toMatch(/^Namespace: +workloads-e2e$/m);
      expect(sts).toMatch(/^Selector: +app=web$/m);
      expect(sts).toMatch(/^Replicas: +3 desired \| 0 total$/m);
      expect(sts).toMatch(/^Update Strategy: +RollingUpdate$/m);
      expect(sts).toMatch(/^ {2}Partition: +0$/m);
      expect(sts).toMatch(/^Pods Status: +0 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
      expect(sts).toMatch(/^ {4}Image: +nginx:1\.27$/m);
      expect(sts).toMatch(/^Volume Claims:$/m);
      expect(sts).toMatch(/^ {2}Capacity: +1Gi$/m);
      expect(sts).toMatch(/^ {2}Access Modes: +\[ReadWriteOnce\]$/m);

      const rc = ok(await kubectl('describe', 'rc', 'frontend', '-n', ns));
      expect(rc).toMatch(/^Name: +frontend$/m);
      expect(rc).toMatch(/^Selector: +app=frontend,tier=web$/m);
      expect(rc).toMatch(/^Labels: +app=frontend$/m);
      expect(rc).toMatch(/^Replicas: +0 current \/ 2 desired$/m);
      expect(rc).toMatch(/^ {4}Image: +php:8\.3-apache$/m);
    });

    it('explain statefulset.spec.updateStrategy', async () => {
      const out = ok(await kubectl('explain', 'statefulset.spec.updateStrategy'));
      expect(out).toMatch(/^GROUP: +apps$/m);
      expect(out).toMatch(/^KIND: +StatefulSet$/m);
      expect(out).toMatch(/^VERSION: +v1$/m);
      expect(out).toMatch(/^FIELD: +updateStrategy </m);
      expect(out).toMatch(/^ {2}rollingUpdate\s+<Object>$/m);
      expect(out).toMatch(/^ {2}type\s+<string>$/m);
      const spec = ok(await kubectl('explain', 'sts.spec'));
      expect(spec).toMatch(/^ {2}serviceName\s+<string> -required-$/m);
      expect(spec).toMatch(/^ {2}volumeClaimTemplates\s+<\[\]Object>$/m);
    });

    it('the StatefulSet spec outside the mutable fields is immutable: kubectl shows the 422', async () => {
      const res = await kubectl('patch', 'sts', 'web', '-n', ns, '--type=merge', '-p', '{"spec":{"podManagementPolicy":"Parallel"}}');
      expect(res.status).toBe(1);
      expect(res.stderr).toContain(
        "The StatefulSet \"web\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      );
      ok(await kubectl('set', 'image', 'sts/web', 'nginx=nginx:1.28', '-n', ns));
      expect(ok(await kubectl('get', 'sts', 'web', '-n', ns, '-o', 'jsonpath={.spec.template.spec.containers[0].image}'))).toBe('nginx:1.28');
    });

    it('delete sts and rc', async () => {
      expect(ok(await kubectl('delete', 'sts', 'web', '-n', ns))).toBe('statefulset.apps "web" deleted\n');
      expect(ok(await kubectl('delete', 'rc', 'frontend', '-n', ns))).toBe('replicationcontroller "frontend" deleted\n');
      expect((await kubectl('get', 'sts', 'web', '-n', ns)).status).toBe(1);
    });
  });
}
