/**
 * End to end: stock kubectl against the BUILT server (`bin/platform-apiserver`, embedded store, the garbage
 * collector running under the leader lease): `kubectl delete --cascade=foreground` returns once the owner is
 * gone, its dependents (and theirs) already gone; `--cascade=orphan` leaves the dependents without the
 * reference; the default (background) deletes the owner and the collector then deletes the dependents, as
 * on Kubernetes. Also a dependent created with an owner that never existed is collected, and `--dry-run`
 * deletes nothing.
 */
import { requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from '../kubectl-helpers.js';
import { until as poll } from '../../harness/until.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const until = <T>(what: string, check: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> => poll(what, check, ms, 100);

describe('kubectl delete --cascade', () => {
  let server: RunningApiserver;
  const ns = 'gc-e2e';
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
  const exists = async (kind: string, name: string): Promise<boolean> => {
    const res = await kubectl('get', kind, name, '-n', ns, '-o', 'name');
    if (res.status === 0) return true;
    if (/NotFound/.test(res.stderr)) return false;
    throw new Error(`kubectl get ${kind} ${name}: ${res.stderr}`);
  };
  const ownersOf = async (kind: string, name: string): Promise<string> =>
    ok(await kubectl('get', kind, name, '-n', ns, '-o', 'jsonpath={.metadata.ownerReferences[*].name}')).trim();

  /** owner ConfigMap <- dep ConfigMap <- leaf Secret, both references blocking. */
  async function family(prefix: string): Promise<void> {
    ok(await kubectl('create', 'configmap', `${prefix}-owner`, '-n', ns, '--from-literal=a=b'));
    const ownerUid = ok(await kubectl('get', 'configmap', `${prefix}-owner`, '-n', ns, '-o', 'jsonpath={.metadata.uid}')).trim();
    const dep = `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${prefix}-dep
  namespace: ${ns}
  ownerReferences:
  - apiVersion: v1
    kind: ConfigMap
    name: ${prefix}-owner
    uid: ${ownerUid}
    blockOwnerDeletion: true
data:
  a: b
`;
    ok(await kubectl('apply', '-f', server.file(`${prefix}-dep.yaml`, dep)));
    const depUid = ok(await kubectl('get', 'configmap', `${prefix}-dep`, '-n', ns, '-o', 'jsonpath={.metadata.uid}')).trim();
    const leaf = `apiVersion: v1
kind: Secret
metadata:
  name: ${prefix}-leaf
  namespace: ${ns}
  ownerReferences:
  - apiVersion: v1
    kind: ConfigMap
    name: ${prefix}-dep
    uid: ${depUid}
    blockOwnerDeletion: true
stringData:
  a: b
`;
    ok(await kubectl('apply', '-f', server.file(`${prefix}-leaf.yaml`, leaf)));
  }

  beforeAll(async () => {
    server = await startApiserver([]);
    ok(await kubectl('create', 'namespace', ns));
  }, 60_000);
  afterAll(async () => server?.stop());

  test('--cascade=foreground: kubectl returns once the owner is gone, after its dependents', async () => {
    await family('fg');
    const out = ok(await kubectl('delete', 'configmap', 'fg-owner', '-n', ns, '--cascade=foreground'));
    expect(out).toContain('configmap "fg-owner" deleted');
    // kubectl waited for the owner to go; the collector removed it last.
    expect(await exists('configmap', 'fg-owner')).toBe(false);
    expect(await exists('configmap', 'fg-dep')).toBe(false);
    expect(await exists('secret', 'fg-leaf')).toBe(false);
  });

  test('--cascade=orphan: the owner goes, the dependents stay without the reference', async () => {
    await family('or');
    ok(await kubectl('delete', 'configmap', 'or-owner', '-n', ns, '--cascade=orphan'));
    expect(await exists('configmap', 'or-owner')).toBe(false);
    expect(await exists('configmap', 'or-dep')).toBe(true);
    expect(await ownersOf('configmap', 'or-dep')).toBe('');
    // The grandchild's owner is alive: untouched.
    expect(await ownersOf('secret', 'or-leaf')).toBe('or-dep');
  });

  test('default (background): the owner goes at once, then the collector deletes the dependents', async () => {
    await family('bg');
    ok(await kubectl('delete', 'configmap', 'bg-owner', '-n', ns));
    expect(await exists('configmap', 'bg-owner')).toBe(false);
    await until('dependents collected', async () => !(await exists('configmap', 'bg-dep')) && !(await exists('secret', 'bg-leaf')));
  });

  test('--dry-run=server deletes nothing, whatever the cascade', async () => {
    await family('dry');
    for (const cascade of ['foreground', 'orphan', 'background']) {
      ok(await kubectl('delete', 'configmap', 'dry-owner', '-n', ns, `--cascade=${cascade}`, '--dry-run=server'));
    }
    expect(ok(await kubectl('get', 'configmap', 'dry-owner', '-n', ns, '-o', 'jsonpath={.metadata.finalizers}{.metadata.deletionTimestamp}')).trim()).toBe('');
    expect(await ownersOf('configmap', 'dry-dep')).toBe('dry-owner');
  });

  test('a dependent of an owner that never existed is collected', async () => {
    const stray = `apiVersion: v1
kind: ConfigMap
metadata:
  name: stray
  namespace: ${ns}
  ownerReferences:
  - apiVersion: v1
    kind: ConfigMap
    name: nobody
    uid: 00000000-0000-0000-0000-000000000000
`;
    ok(await kubectl('apply', '-f', server.file('stray.yaml', stray)));
    await until('stray collected', async () => !(await exists('configmap', 'stray')));
  });
});
