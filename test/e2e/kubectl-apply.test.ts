/**
 * End to end: stock kubectl's client-side apply, strategic patches and diff against the BUILT server
 * (`bin/platform-apiserver`), on the embedded store, for both group domains. kubectl sends strategic merge
 * patches (with `$setElementOrder` and `$patch: delete` directives it computes from the
 * `kubectl.kubernetes.io/last-applied-configuration` annotation) for the kinds it compiles in, and `diff`
 * sends the same patch with `dryRun=All`.
 */
import { requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** A PodTemplate with the given containers (name, image, env A's value). */
function podTemplate(containers: readonly (readonly [string, string, string])[]): string {
  const lines = containers.map(
    ([name, image, a]) => `    - name: ${name}
      image: ${image}
      env:
      - name: A
        value: "${a}"
      - name: B
        value: "b"
      ports:
      - containerPort: 8080`,
  );
  return `apiVersion: v1
kind: PodTemplate
metadata:
  name: web
  namespace: apply
  labels:
    app: web
template:
  metadata:
    labels:
      app: web
  spec:
    containers:
${lines.join('\n')}
`;
}

const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: apply
`;

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

type Container = { name: string; image: string; env?: { name: string; value: string }[] };

for (const domain of ['platform.io', 'k8s.io'] as const) {
  describe(`kubectl apply, patch and diff (--group-domain=${domain}, memory)`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const template = async (): Promise<{ metadata: { annotations?: Record<string, string> }; template: { spec: { containers: Container[] } } }> =>
      JSON.parse(ok(await kubectl('get', 'podtemplate', 'web', '-n', 'apply', '-o', 'json')));

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', '-f', server.file('ns.yaml', NAMESPACE)));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('apply creates with the last-applied annotation; re-applying with a container removed and an env value changed updates it', async () => {
      const two = server.file('two.yaml', podTemplate([['app', 'nginx:1.27', '1'], ['sidecar', 'busybox:1.36', 's']]));
      expect(ok(await kubectl('apply', '-f', two))).toBe('podtemplate/web created\n');
      const created = await template();
      expect(created.template.spec.containers.map((c) => c.name)).toEqual(['app', 'sidecar']);
      expect(JSON.parse(created.metadata.annotations![LAST_APPLIED]!).template.spec.containers).toHaveLength(2);

      const one = server.file('one.yaml', podTemplate([['app', 'nginx:1.27', 'changed']]));
      expect(ok(await kubectl('apply', '-f', one))).toBe('podtemplate/web configured\n');
      const updated = await template();
      expect(updated.template.spec.containers.map((c) => c.name)).toEqual(['app']);
      expect(updated.template.spec.containers[0]!.env).toEqual([{ name: 'A', value: 'changed' }, { name: 'B', value: 'b' }]);
      const lastApplied = JSON.parse(updated.metadata.annotations![LAST_APPLIED]!);
      expect(lastApplied.template.spec.containers).toEqual([
        { name: 'app', image: 'nginx:1.27', env: [{ name: 'A', value: 'changed' }, { name: 'B', value: 'b' }], ports: [{ containerPort: 8080 }] },
      ]);
      expect(ok(await kubectl('apply', '-f', one))).toBe('podtemplate/web unchanged\n');
    });

    it('patch --type=strategic merges list elements by key and deletes them with $patch: delete', async () => {
      const add = JSON.stringify({ template: { spec: { containers: [{ name: 'app', env: [{ name: 'EXTRA', value: 'x' }] }, { name: 'debug', image: 'busybox:1.36' }] } } });
      expect(ok(await kubectl('patch', 'podtemplate', 'web', '-n', 'apply', '--type=strategic', '-p', add))).toBe('podtemplate/web patched\n');
      let spec = (await template()).template.spec;
      expect(spec.containers.map((c) => c.name)).toEqual(['app', 'debug']);
      // without $setElementOrder a new element goes first (upstream's ordering: patch items before server-only ones)
      expect(spec.containers[0]!.env!.map((e) => e.name)).toEqual(['EXTRA', 'A', 'B']);
      expect(spec.containers[0]!.image).toBe('nginx:1.27');

      const del = JSON.stringify({ template: { spec: { containers: [{ name: 'app', env: [{ name: 'EXTRA', $patch: 'delete' }] }, { name: 'debug', $patch: 'delete' }] } } });
      // strategic is kubectl patch's default type
      expect(ok(await kubectl('patch', 'podtemplate', 'web', '-n', 'apply', '-p', del))).toBe('podtemplate/web patched\n');
      spec = (await template()).template.spec;
      expect(spec.containers.map((c) => c.name)).toEqual(['app']);
      expect(spec.containers[0]!.env!.map((e) => e.name)).toEqual(['A', 'B']);
    });

    it('patch --type=strategic without a merge key reports the server error', async () => {
      const res = await kubectl('patch', 'podtemplate', 'web', '-n', 'apply', '--type=strategic', '-p', '{"template":{"spec":{"containers":[{"image":"httpd"}]}}}');
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('map: map[image:httpd] does not contain declared merge key: name');
    });

    it('diff exits 0 without changes and 1 with them, showing the change; nothing is stored', async () => {
      const same = server.file('same.yaml', podTemplate([['app', 'nginx:1.27', 'changed']]));
      const none = await kubectl('diff', '-f', same);
      expect({ status: none.status, stdout: none.stdout, stderr: none.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });

      const changed = server.file('changed.yaml', podTemplate([['app', 'nginx:1.28', 'changed'], ['extra', 'busybox:1.36', 'e']]));
      const diff = await kubectl('diff', '-f', changed);
      expect(diff.status).toBe(1);
      expect(diff.stdout).toMatch(/^-\s+image: nginx:1\.27$/m);
      expect(diff.stdout).toMatch(/^\+\s+image: nginx:1\.28$/m);
      expect(diff.stdout).toMatch(/^\+\s+name: extra$/m);
      expect((await template()).template.spec.containers.map((c) => [c.name, c.image])).toEqual([['app', 'nginx:1.27']]);
    });

    it('apply of every built-in kind: created, unchanged when re-applied, configured when changed; a volume switching source keeps only the new one', async () => {
      const manifest = (v: { mode: string; taint: string; source: string; cpu: string }): string => `apiVersion: v1
kind: ConfigMap
metadata: {name: all-config, namespace: apply}
data: {mode: ${v.mode}}
---
apiVersion: v1
kind: Secret
metadata: {name: all-secret, namespace: apply}
type: Opaque
data: {password: ${Buffer.from(v.mode).toString('base64')}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: all-sa, namespace: apply}
imagePullSecrets: [{name: regcred}]
secrets: [{name: s1}]
---
apiVersion: v1
kind: Node
metadata: {name: all-node-${domain.replace('.', '-')}}
spec:
  podCIDR: 10.244.1.0/24
  podCIDRs: [10.244.1.0/24]
  taints: [{key: dedicated, value: ${v.taint}, effect: NoSchedule}]
---
apiVersion: v1
kind: PodTemplate
metadata: {name: all-pt, namespace: apply}
template:
  spec:
    volumes: [{name: data, ${v.source}}]
    containers:
    - name: c
      image: nginx:1.27
      volumeMounts: [{name: data, mountPath: /data}]
      resources: {limits: {cpu: "${v.cpu}"}}
`;
      const node = `node/all-node-${domain.replace('.', '-')}`;
      const first = server.file('all1.yaml', manifest({ mode: 'a', taint: 'gpu', source: 'emptyDir: {}', cpu: '500m' }));
      expect(ok(await kubectl('apply', '-f', first))).toBe(
        `configmap/all-config created\nsecret/all-secret created\nserviceaccount/all-sa created\n${node} created\npodtemplate/all-pt created\n`,
      );
      expect(ok(await kubectl('apply', '-f', first))).toBe(
        `configmap/all-config unchanged\nsecret/all-secret unchanged\nserviceaccount/all-sa unchanged\n${node} unchanged\npodtemplate/all-pt unchanged\n`,
      );
      const second = server.file('all2.yaml', manifest({ mode: 'b', taint: 'cpu', source: 'configMap: {name: all-config}', cpu: '1' }));
      expect(ok(await kubectl('apply', '-f', second))).toBe(
        `configmap/all-config configured\nsecret/all-secret configured\nserviceaccount/all-sa unchanged\n${node} configured\npodtemplate/all-pt configured\n`,
      );
      const pt = JSON.parse(ok(await kubectl('get', 'podtemplate', 'all-pt', '-n', 'apply', '-o', 'json')));
      expect(pt.template.spec.volumes).toEqual([{ name: 'data', configMap: { name: 'all-config', defaultMode: 420 } }]);
      expect(pt.template.spec.containers[0].resources).toEqual({ limits: { cpu: '1' } });
      const taints = JSON.parse(ok(await kubectl('get', node, '-o', 'jsonpath={.spec.taints}')));
      expect(taints).toEqual([{ key: 'dedicated', value: 'cpu', effect: 'NoSchedule' }]);
      const none = await kubectl('diff', '-f', second);
      expect(none.status).toBe(0);
    });

    it('apply of a ConfigMap drops a key removed from the file and keeps one added by someone else', async () => {
      const cm = (data: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: apply\ndata:\n${data}`;
      expect(ok(await kubectl('apply', '-f', server.file('cm1.yaml', cm('  a: "1"\n  b: "2"\n'))))).toBe('configmap/settings created\n');
      ok(await kubectl('patch', 'configmap', 'settings', '-n', 'apply', '-p', '{"data":{"other":"kept"}}'));
      expect(ok(await kubectl('apply', '-f', server.file('cm2.yaml', cm('  a: "10"\n'))))).toBe('configmap/settings configured\n');
      const data = JSON.parse(ok(await kubectl('get', 'configmap', 'settings', '-n', 'apply', '-o', 'json'))).data;
      expect(data).toEqual({ a: '10', other: 'kept' });
    });
  });
}
