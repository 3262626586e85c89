/**
 * End to end: the replicationcontroller-controller in the BUILT server (`bin/platform-apiserver`, embedded
 * store) with stock kubectl, the test playing the node agent (`kubectl patch --subresource=status`):
 * `create -f` makes the pods, `get rc` and `describe rc` show the counts and kube's events, `scale`
 * up and down, pods marked ready count as ready, `delete --cascade=orphan` leaves the pods without owner
 * references, and a new controller with the same selector adopts them.
 */
import { requireBuild, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from '../kubectl-helpers.js';
import { until as poll } from '../../harness/until.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const until = <T>(what: string, check: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> => poll(what, check, ms, 100);

const rcManifest = (name: string, replicas: number): string => `apiVersion: v1
kind: ReplicationController
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - { name: nginx, image: nginx:1.27 }
`;

interface PodJson {
  metadata: { name: string; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[]; deletionTimestamp?: string };
}

describe('replicationcontroller-controller (--group-domain=k8s.io)', () => {
  let server: RunningApiserver;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
  const ns = 'rc-e2e';
  const podsNow = async (): Promise<PodJson[]> =>
    (JSON.parse(ok(await kubectl('get', 'pods', '-n', ns, '-l', 'app=web', '-o', 'json'))) as { items: PodJson[] }).items.filter((p) => p.metadata.deletionTimestamp === undefined);
  const podsWhen = (what: string, check: (ps: PodJson[]) => boolean): Promise<PodJson[]> =>
    until(what, async () => {
      const ps = await podsNow();
      return check(ps) ? ps : undefined;
    });
  const rcRow = async (name: string): Promise<Record<string, string>> => parseTable(ok(await kubectl('get', 'rc', name, '-n', ns))).find((r) => r.NAME === name)!;

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
    ok(await kubectl('create', 'namespace', ns));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('create -f makes the pods; get rc shows them; ready pods count as ready', async () => {
    ok(await kubectl('create', '-n', ns, '-f', server.file('rc.yaml', rcManifest('web', 3))));
    const uid = ok(await kubectl('get', 'rc', 'web', '-n', ns, '-o', 'jsonpath={.metadata.uid}'));
    const pods = await podsWhen('3 pods', (ps) => ps.length === 3);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(p.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'ReplicationController', name: 'web', uid, controller: true })]);
    }
    await until('current 3', async () => ((await rcRow('web')).CURRENT === '3' ? true : undefined));
    for (const p of pods) {
      const status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString().slice(0, 19) + 'Z' }] };
      ok(await kubectl('patch', 'pod', p.metadata.name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })));
    }
    const row = await until('ready 3', async () => {
      const r = await rcRow('web');
      return r.READY === '3' ? r : undefined;
    });
    expect([row.DESIRED, row.CURRENT, row.READY]).toEqual(['3', '3', '3']);
    const status = JSON.parse(ok(await kubectl('get', 'rc', 'web', '-n', ns, '-o', 'jsonpath={.status}')));
    expect(status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
  });

  it('scale down and up; describe rc shows the counts and kube\'s events', async () => {
    ok(await kubectl('scale', 'rc', 'web', '-n', ns, '--replicas=1'));
    await podsWhen('1 pod', (ps) => ps.length === 1);
    ok(await kubectl('scale', 'rc', 'web', '-n', ns, '--replicas=2'));
    await podsWhen('2 pods', (ps) => ps.length === 2);
    const described = await until('described', async () => {
      const d = ok(await kubectl('describe', 'rc', 'web', '-n', ns));
      return /^Replicas: +2 current \/ 2 desired$/m.test(d) && /SuccessfulDelete/.test(d) ? d : undefined;
    });
    expect(described).toMatch(/^Pods Status: +1 Running \/ 1 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
    expect(described).toMatch(/Normal +SuccessfulCreate +\S+ +replication-controller +Created pod: web-[a-z0-9]{5}$/m);
    expect(described).toMatch(/Normal +SuccessfulDelete +\S+ +replication-controller +Deleted pod: web-[a-z0-9]{5}$/m);
  });

  it('delete --cascade=orphan leaves the pods, without owner references; a new controller adopts them', async () => {
    ok(await kubectl('delete', 'rc', 'web', '-n', ns, '--cascade=orphan'));
    const orphans = await podsWhen('orphaned', (ps) => ps.length === 2 && ps.every((p) => (p.metadata.ownerReferences ?? []).length === 0));
    ok(await kubectl('create', '-n', ns, '-f', server.file('rc2.yaml', rcManifest('web2', 2))));
    const uid = ok(await kubectl('get', 'rc', 'web2', '-n', ns, '-o', 'jsonpath={.metadata.uid}'));
    const adopted = await podsWhen('adopted', (ps) => ps.length === 2 && ps.every((p) => p.metadata.ownerReferences?.[0]?.uid === uid));
    expect(adopted.map((p) => p.metadata.name).sort()).toEqual(orphans.map((p) => p.metadata.name).sort());
    await until('current 2', async () => ((await rcRow('web2')).CURRENT === '2' ? true : undefined));
    // Adopted, not replaced: still two pods.
    expect(await podsNow()).toHaveLength(2);
    // The default (background) deletion: the garbage collector removes the pods.
    ok(await kubectl('delete', 'rc', 'web2', '-n', ns));
    await podsWhen('pods gone', (ps) => ps.length === 0);
  });
});
