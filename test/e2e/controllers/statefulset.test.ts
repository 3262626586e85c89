/**
 * End to end: the StatefulSet controller in the BUILT server (`bin/platform-apiserver`, embedded store) with
 * stock kubectl 1.32, in both group-domain modes. The test plays the node agent: it marks pods Running and
 * Ready through `kubectl patch --subresource=status`. Covered: `create -f`, `kubectl rollout status
 * statefulset` returning once the pods are ready, the claims (`get pvc`, `describe pvc`), the revisions
 * (`get controllerrevisions`), a rolling update by `kubectl set image`, `kubectl rollout history` and
 * `kubectl rollout undo` back to the first template, the controller's events, `scale` down in reverse order.
 */
import { headerLine, parseTable, requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from '../kubectl-helpers.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const MANIFEST = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: 2
  serviceName: nginx
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        volumeMounts: [{ name: data, mountPath: /usr/share/nginx/html }]
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: standard
      resources:
        requests:
          storage: 1Gi
`;

interface PodView {
  readonly name: string;
  readonly uid: string;
  readonly image: string;
  readonly ready: boolean;
  readonly revision: string;
}

for (const domain of ['k8s.io', 'platform.io'] as const) {
  describe(`the StatefulSet controller with kubectl (--group-domain=${domain})`, () => {
    const legacy = domain === 'k8s.io' ? 'kubernetes.io' : domain;
    const ns = 'sts-e2e';
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

    const listPods = async (): Promise<PodView[]> => {
      const list = JSON.parse(ok(await kubectl('get', 'pods', '-n', ns, '-o', 'json'))) as { items: any[] };
      return list.items.map((p) => ({
        name: p.metadata.name,
        uid: p.metadata.uid,
        image: p.spec.containers[0].image,
        ready: (p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
        revision: p.metadata.labels?.['controller-revision-hash'] ?? '',
      })).sort((a, b) => a.name.localeCompare(b.name));
    };

    /** The node agent: every pod that is not Ready becomes Running and Ready. */
    const makeReady = async (): Promise<void> => {
      for (const pod of await listPods()) {
        if (pod.ready) continue;
        const status = { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } };
        await kubectl('patch', 'pod', pod.name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify(status));
      }
    };

    /** Runs `command` while playing the node agent until it exits. */
    const whileNodeAgent = async (command: Promise<KubectlResult>): Promise<KubectlResult> => {
      let done = false;
      const result = command.finally(() => (done = true));
      while (!done) {
        await makeReady();
        await Promise.race([result, new Promise((r) => setTimeout(r, 200))]);
      }
      return result;
    };

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', 'namespace', ns));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('kubectl rollout status returns once the node agent made the pods ready, in order', async () => {
      expect(ok(await kubectl('create', '-n', ns, '-f', server.file('sts.yaml', MANIFEST)))).toBe('statefulset.apps/web created\n');
      const rollout = await whileNodeAgent(kubectl('rollout', 'status', 'statefulset/web', '-n', ns, '--timeout=60s'));
      expect(rollout.stderr).toBe('');
      expect(rollout.status).toBe(0);
      const sts = JSON.parse(ok(await kubectl('get', 'sts', 'web', '-n', ns, '-o', 'json')));
      // kubectl reports a set with a rollingUpdate member (defaulted: partition 0) as a partitioned roll out, on Kubernetes too.
      expect(rollout.stdout).toContain('Waiting for 2 pods to be ready...\n');
      expect(rollout.stdout.endsWith('partitioned roll out complete: 2 new pods have been updated...\n')).toBe(true);
      expect(sts.status).toEqual({
        observedGeneration: 1, replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2,
        currentRevision: sts.status.currentRevision, updateRevision: sts.status.currentRevision, collisionCount: 0,
      });
      expect(sts.status.currentRevision).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/);

      const pod = JSON.parse(ok(await kubectl('get', 'pod', 'web-1', '-n', ns, '-o', 'json')));
      expect(pod.metadata.labels).toEqual({
        app: 'web', 'controller-revision-hash': sts.status.currentRevision,
        [`statefulset.${legacy}/pod-name`]: 'web-1', [`apps.${legacy}/pod-index`]: '1',
      });
      expect([pod.spec.hostname, pod.spec.subdomain]).toEqual(['web-1', 'nginx']);
      expect(parseTable(ok(await kubectl('get', 'sts', '-n', ns)))[0]).toEqual(expect.objectContaining({ NAME: 'web', READY: '2/2' }));
      const described = ok(await kubectl('describe', 'sts', 'web', '-n', ns));
      expect(described).toMatch(/^Replicas: +2 desired \| 2 total$/m);
      expect(described).toMatch(/^Pods Status: +2 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
      expect(described).toMatch(/^ +Normal +SuccessfulCreate +\S+ +statefulset-controller +create Pod web-1 in StatefulSet web successful$/m);
      // web-0 was created, and made ready, before web-1.
      const created = ok(await kubectl('get', 'events', '-n', ns, '--field-selector', 'reason=SuccessfulCreate', '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}'));
      expect(created.trim().split('\n')).toEqual([
        'create Claim data-web-0 Pod web-0 in StatefulSet web success',
        'create Pod web-0 in StatefulSet web successful',
        'create Claim data-web-1 Pod web-1 in StatefulSet web success',
        'create Pod web-1 in StatefulSet web successful',
      ]);
    });

    it('get and describe the claims and the revision', async () => {
      const pvc = await kubectl('get', 'pvc', '-n', ns);
      expect(pvc.stderr).toBe('');
      expect(headerLine(pvc.stdout)).toMatch(/^NAME +STATUS +VOLUME +CAPACITY +ACCESS MODES +STORAGECLASS +VOLUMEATTRIBUTESCLASS +AGE$/);
      expect(parseTable(pvc.stdout).map((r) => [r.NAME, r.STATUS, r.STORAGECLASS, r.VOLUMEATTRIBUTESCLASS])).toEqual([
        ['data-web-0', 'Pending', 'standard', '<unset>'],
        ['data-web-1', 'Pending', 'standard', '<unset>'],
      ]);
      const described = ok(await kubectl('describe', 'pvc', 'data-web-0', '-n', ns));
      expect(described).toMatch(/^Name: +data-web-0$/m);
      expect(described).toMatch(/^Status: +Pending$/m);
      expect(described).toMatch(/^StorageClass: +standard$/m);
      expect(described).toMatch(/^Labels: +app=web$/m);
      expect(described).toMatch(/^Used By: +web-0$/m);

      const revs = await kubectl('get', 'controllerrevisions', '-n', ns);
      expect(headerLine(revs.stdout)).toMatch(/^NAME +CONTROLLER +REVISION +AGE$/);
      const rows = parseTable(revs.stdout);
      expect(rows.map((r) => [r.CONTROLLER, r.REVISION])).toEqual([['statefulset.apps/web', '1']]);
      const rev = JSON.parse(ok(await kubectl('get', 'controllerrevision', rows[0]!.NAME!, '-n', ns, '-o', 'json')));
      expect(rev.data.spec.template.$patch).toBe('replace');
      expect(rev.metadata.labels).toEqual({ app: 'web', [`controller.${legacy}/hash`]: rows[0]!.NAME!.slice('web-'.length) });
      expect(ok(await kubectl('describe', 'controllerrevision', rows[0]!.NAME!, '-n', ns))).toMatch(/^Revision: +1$/m);
    });

    it('a rolling update by set image, history, and undo back to the first template', async () => {
      const before = await listPods();
      ok(await kubectl('set', 'image', 'statefulset/web', 'nginx=nginx:1.28', '-n', ns));
      const rollout = await whileNodeAgent(kubectl('rollout', 'status', 'statefulset/web', '-n', ns, '--timeout=60s'));
      expect(rollout.status).toBe(0);
      const updated = await listPods();
      expect(updated.map((p) => p.image)).toEqual(['nginx:1.28', 'nginx:1.28']);
      expect(updated.map((p) => p.uid)).not.toContain(before[0]!.uid);
      expect(updated.map((p) => p.uid)).not.toContain(before[1]!.uid);
      // Highest ordinal first.
      const deleted = ok(await kubectl('get', 'events', '-n', ns, '--field-selector', 'reason=SuccessfulDelete', '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}'));
      expect(deleted.trim().split('\n')).toEqual(['delete Pod web-1 in StatefulSet web successful', 'delete Pod web-0 in StatefulSet web successful']);

      const history = ok(await kubectl('rollout', 'history', 'statefulset/web', '-n', ns));
      expect(history).toMatch(/^REVISION +CHANGE-CAUSE$/m);
      expect(history).toMatch(/^1 +<none>$/m);
      expect(history).toMatch(/^2 +<none>$/m);

      const undo = await kubectl('rollout', 'undo', 'statefulset/web', '-n', ns);
      expect(undo.stderr).toBe('');
      expect(undo.stdout).toBe('statefulset.apps/web rolled back\n');
      const back = await whileNodeAgent(kubectl('rollout', 'status', 'statefulset/web', '-n', ns, '--timeout=60s'));
      expect(back.status).toBe(0);
      expect((await listPods()).map((p) => p.image)).toEqual(['nginx:1.27', 'nginx:1.27']);
      // The first revision was renumbered to 3, not copied.
      const revs = parseTable(ok(await kubectl('get', 'controllerrevisions', '-n', ns))).map((r) => r.REVISION).sort();
      expect(revs).toEqual(['2', '3']);
      const sts = JSON.parse(ok(await kubectl('get', 'sts', 'web', '-n', ns, '-o', 'json')));
      expect((await listPods()).map((p) => p.revision)).toEqual([sts.status.updateRevision, sts.status.updateRevision]);
    });

    it('deleting a set with whenDeleted Delete: the garbage collector removes its pods and claims', async () => {
      const manifest = MANIFEST.replace(/name: web\n/, 'name: db\n').replaceAll('app: web', 'app: db').replace('replicas: 2', 'replicas: 1')
        .replace('  volumeClaimTemplates:', '  persistentVolumeClaimRetentionPolicy: { whenDeleted: Delete, whenScaled: Retain }\n  volumeClaimTemplates:');
      ok(await kubectl('create', '-n', ns, '-f', server.file('db.yaml', manifest)));
      expect((await whileNodeAgent(kubectl('rollout', 'status', 'statefulset/db', '-n', ns, '--timeout=60s'))).status).toBe(0);
      const claim = JSON.parse(ok(await kubectl('get', 'pvc', 'data-db-0', '-n', ns, '-o', 'json')));
      expect(claim.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'StatefulSet', name: 'db', controller: true, blockOwnerDeletion: true })]);
      expect(ok(await kubectl('delete', 'sts', 'db', '-n', ns))).toBe('statefulset.apps "db" deleted\n');
      const gone = async (): Promise<boolean> => {
        const names = ok(await kubectl('get', 'pods,pvc', '-n', ns, '-o', 'name')).split('\n');
        return !names.includes('pod/db-0') && !names.includes('persistentvolumeclaim/data-db-0');
      };
      for (let i = 0; i < 150 && !(await gone()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(await gone()).toBe(true);
      // The other set's claims stay (Retain).
      expect(parseTable(ok(await kubectl('get', 'pvc', '-n', ns))).map((r) => r.NAME)).toEqual(['data-web-0', 'data-web-1']);
    });

    it('scale down removes the highest ordinal and keeps its claim', async () => {
      expect(ok(await kubectl('scale', 'statefulset', 'web', '-n', ns, '--replicas=1'))).toBe('statefulset.apps/web scaled\n');
      const done = await whileNodeAgent(kubectl('rollout', 'status', 'statefulset/web', '-n', ns, '--timeout=60s'));
      expect(done.status).toBe(0);
      for (let i = 0; i < 100 && (await listPods()).length > 1; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await listPods()).map((p) => p.name)).toEqual(['web-0']);
      expect(parseTable(ok(await kubectl('get', 'pvc', '-n', ns))).map((r) => r.NAME)).toEqual(['data-web-0', 'data-web-1']);
    });
  });
}
