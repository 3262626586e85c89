/**
 * End to end: `kubectl apply --server-side` with the stock kubectl on PATH against the BUILT server, on the
 * embedded store and on a real etcd: create on apply, a second field manager conflicting with the first,
 * `--force-conflicts` taking the field, re-applying without a field removing it, the managedFields kubectl
 * shows with `--show-managed-fields`, and the take-over of an object made by client-side `kubectl apply`.
 */
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import { requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

let etcd: EtcdCluster | undefined;

beforeAll(() => requireBuild());
afterAll(async () => {
  await etcd?.stop();
});

const manifest = (data: Record<string, string>): string => `apiVersion: v1
kind: Namespace
metadata:
  name: ssa
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ssa
  labels:
    app: web
data:
${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`).join('\n')}
`;

const configMap = (data: Record<string, string>): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ssa
data:
${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`).join('\n')}
`;

function expectOk(r: KubectlResult): string {
  if (r.status !== 0) throw new Error(`kubectl exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

for (const backend of ['memory', 'etcd'] as const) {
  (backend === 'etcd' ? describeEtcd : describe)(`kubectl apply --server-side (${backend})`, () => {
    let server: RunningApiserver;

    beforeAll(async () => {
      const args: string[] = [];
      if (backend === 'etcd') {
        etcd ??= await startEtcd();
        args.push(`--etcd-servers=${etcd.endpoints.join(',')}`, `--etcd-prefix=/ssa-e2e-${process.pid}`);
      }
      server = await startApiserver(args);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    const data = async (): Promise<Record<string, string>> =>
      JSON.parse(expectOk(await server.kubectl(['get', 'configmap', 'settings', '-n', 'ssa', '-o', 'jsonpath={.data}'])) || '{}');

    it('creates the objects of a manifest (serverside-applied)', async () => {
      const out = expectOk(await server.kubectl(['apply', '--server-side', '-f', server.file('m.yaml', manifest({ color: 'blue', size: 'm' }))]));
      expect(out.split('\n').filter((l) => l !== '')).toEqual(['namespace/ssa serverside-applied', 'configmap/settings serverside-applied']);
      expect(await data()).toEqual({ color: 'blue', size: 'm' });
    });

    it('a second field manager changing a field of the first gets a conflict, and nothing changes', async () => {
      const r = await server.kubectl(['apply', '--server-side', '--field-manager=team-b', '-f', server.file('b.yaml', configMap({ color: 'red' }))]);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.color');
      expect(await data()).toEqual({ color: 'blue', size: 'm' });
    });

    it('--force-conflicts takes the field for the second manager', async () => {
      const out = expectOk(
        await server.kubectl(['apply', '--server-side', '--field-manager=team-b', '--force-conflicts', '-f', server.file('b.yaml', configMap({ color: 'red' }))]),
      );
      expect(out.trim()).toBe('configmap/settings serverside-applied');
      expect(await data()).toEqual({ color: 'red', size: 'm' });
      const obj = JSON.parse(expectOk(await server.kubectl(['get', 'configmap', 'settings', '-n', 'ssa', '-o', 'json', '--show-managed-fields'])));
      const byManager = Object.fromEntries(obj.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]));
      expect(byManager['team-b']).toEqual({ 'f:data': { '.': {}, 'f:color': {} } });
      expect(byManager.kubectl).toEqual({ 'f:data': { '.': {}, 'f:size': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
    });

    it('re-applying without a field removes it; a field another manager took stays', async () => {
      expectOk(await server.kubectl(['apply', '--server-side', '-f', server.file('m2.yaml', manifest({ shape: 'round' }))]));
      expect(await data()).toEqual({ color: 'red', shape: 'round' });
    });

    it('kubectl apply --server-side takes over an object made by client-side kubectl apply, without conflicts', async () => {
      const file = (color: string): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: legacy
  namespace: ssa
data:
  color: "${color}"
`;
      expectOk(await server.kubectl(['apply', '-f', server.file('l1.yaml', file('blue'))]));
      expectOk(await server.kubectl(['apply', '--server-side', '-f', server.file('l2.yaml', file('green'))]));
      const obj = JSON.parse(expectOk(await server.kubectl(['get', 'configmap', 'legacy', '-n', 'ssa', '-o', 'json'])));
      expect(obj.data).toEqual({ color: 'green' });
      expect(JSON.parse(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data).toEqual({ color: 'green' });
    });

    it('--dry-run=server reports the apply and changes nothing; diff --server-side exits 1 with changes, 0 without', async () => {
      const changed = server.file('d1.yaml', manifest({ shape: 'square' }));
      const dry = expectOk(await server.kubectl(['apply', '--server-side', '--dry-run=server', '-f', changed]));
      expect(dry).toContain('configmap/settings serverside-applied (server dry run)');
      expect(await data()).toEqual({ color: 'red', shape: 'round' });
      const diff = await server.kubectl(['diff', '--server-side', '-f', changed]);
      expect(diff.status).toBe(1);
      expect(diff.stdout).toMatch(/-\s+shape: round/);
      expect(diff.stdout).toMatch(/\+\s+shape: square/);
      const same = await server.kubectl(['diff', '--server-side', '-f', server.file('d2.yaml', manifest({ shape: 'round' }))]);
      expect([same.status, same.stdout]).toEqual([0, '']);
    });

    it('re-applying the same manifest is a no-op (the resourceVersion stays)', async () => {
      const rv = async (): Promise<string> => expectOk(await server.kubectl(['get', 'configmap', 'settings', '-n', 'ssa', '-o', 'jsonpath={.metadata.resourceVersion}']));
      const before = await rv();
      expectOk(await server.kubectl(['apply', '--server-side', '-f', server.file('m3.yaml', manifest({ shape: 'round' }))]));
      expect(await rv()).toBe(before);
    });
  });
}
