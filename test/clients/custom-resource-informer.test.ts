/**
 * Issue 12 acceptance, real client: `@kubernetes/client-node` 1.4 informers on a custom resource converge
 * through create, update, delete and the deletion of the definition, on each backend, in k8s.io mode (so
 * client-node's ApiextensionsV1Api and CustomObjectsApi speak to `apiextensions.k8s.io` and the CRD's group
 * as they would to kube-apiserver). Child processes, because the package is ESM only:
 * - client-node-crd.mjs creates the definition with ApiextensionsV1Api, watches it until Established and
 *   reads it back through the typed model; later it deletes it the same way;
 * - custom-object-informer.mjs runs `makeInformer` over `listNamespacedCustomObject` (one namespace) or
 *   `listClusterCustomObject` (all of them), restarted after errors except a 404.
 *
 * The scenario (one test per backend, each step checked on both informers before the next):
 * 1. a namespaced definition with the status sub-resource is created and Established;
 * 2. an instance made before the informers start arrives through their first list;
 * 3. instances are created in two namespaces, one has its spec changed (generation 2) and its status
 *    changed through /status, a main-endpoint write that only touches status changes nothing (same
 *    resourceVersion, no event), and one is deleted: after each write every informer has seen exactly the
 *    expected add/update/delete callbacks in order, each with the resourceVersion the write answered, and
 *    its cache equals a fresh list (names, resourceVersions, generation, spec, status);
 * 4. the definition is deleted: the cleanup finalizer deletes every instance (each informer gets a delete
 *    callback for each object it held, and ends empty), the definition goes away, the informers' watches
 *    end, and client-node's re-watch from its last resourceVersion gets 404, reported through the error
 *    callback (client-node does not retry by itself: it has no backoff for errors other than 410);
 * 5. the definition is re-created: new informers converge through the create of a fresh instance, and the
 *    old informers, started again, converge too.
 * The informers' own requests are checked in the server's request log: their last watch was answered 404.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from '../http/helpers.js';
import { eventually, memoryLogger } from '../server/helpers.js';
import { ClientProcess, diffStates, kubeconfigFor, tempDir, type ObjectState } from './client-harness.js';

const informerScript = join(__dirname, 'custom-object-informer.mjs');
const crdScript = join(__dirname, 'client-node-crd.mjs');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const all = backends();
afterAll(() => stopBackends(all));

/** A namespaced Gizmo definition with one version and the status sub-resource. */
function gizmoCrd(group: string) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${group}` },
    spec: {
      group,
      names: { kind: 'Gizmo', plural: 'gizmos', singular: 'gizmo', listKind: 'GizmoList' },
      scope: 'Namespaced',
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: { type: 'object', properties: { ready: { type: 'boolean' }, observedSize: { type: 'integer' } } },
            },
          },
        },
      }],
    },
  };
}

/** A line of client-node-crd.mjs (its fields depend on `t`; see the script). */
interface CrdLine {
  readonly t: string;
  readonly [field: string]: any;
}

/** One run of client-node-crd.mjs; its JSON lines (it exits when done; a failure rejects with them). */
function crdClient(args: readonly string[]): Promise<CrdLine[]> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [crdScript, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      const lines = stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as CrdLine);
      if (err) reject(new Error(`client-node-crd.mjs ${args[0]} failed: ${err.message}; stdout: ${stdout}; stderr: ${stderr}`));
      else resolve(lines);
    });
  });
}

/** The same canonical form as custom-object-informer.mjs: JSON with object keys sorted. */
const canonical = (v: unknown): string => JSON.stringify(v ?? null, (_k, x) => (x !== null && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, (x as Record<string, unknown>)[k]]))
  : x));
const dataOf = (o: any): Record<string, string> => ({ generation: String(o.metadata.generation ?? ''), spec: canonical(o.spec), status: canonical(o.status) });

/** An informer process and what it must have seen so far (`<type> <ns>/<name> <rv>`; no rv for deletes). */
interface Informer {
  readonly label: string;
  readonly client: ClientProcess;
  /** The list path of its scope. */
  readonly path: string;
  /** Its namespace, or undefined for a cluster-wide informer. */
  readonly namespace: string | undefined;
  readonly expected: string[];
}

const isChange = (t: string): boolean => t === 'ADDED' || t === 'MODIFIED' || t === 'DELETED';
const changes = (c: ClientProcess): string[] => c.lines.filter((l) => isChange(l.t)).map((l) => `${l.t} ${l.name} ${l.t === 'DELETED' ? '' : l.rv}`);

async function serverState(api: TestApi, path: string): Promise<Map<string, ObjectState>> {
  const res = await api.request('GET', path);
  if (res.status !== 200) throw new Error(`list ${path}: ${res.status} ${res.text()}`);
  const out = new Map<string, ObjectState>();
  for (const item of res.json().items) out.set(`${item.metadata.namespace}/${item.metadata.name}`, { rv: item.metadata.resourceVersion, data: dataOf(item) });
  return out;
}

/** Waits until the informer's cache equals a fresh list of its scope; returns the cache. */
async function converged(api: TestApi, inf: Informer, timeoutMs = 20_000): Promise<Map<string, ObjectState>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const server = await serverState(api, inf.path);
    const mine = (await inf.client.dump()).objects;
    const diff = diffStates(server, mine);
    if (diff.length === 0) return mine;
    if (Date.now() > deadline) throw new Error(`${inf.label} did not converge: ${diff.join('; ')}`);
    const seen = inf.client.lines.length;
    await inf.client.until(() => inf.client.lines.length > seen, `${inf.label} progress`, Math.max(100, deadline - Date.now())).catch(() => undefined);
  }
}

/** Every informer has seen exactly its expected changes, in order, and its cache equals the server's list. */
async function settle(api: TestApi, informers: readonly Informer[]): Promise<void> {
  for (const inf of informers) {
    await inf.client.until(() => changes(inf.client).length >= inf.expected.length, `${inf.label}: ${inf.expected.length} changes`);
    expect(changes(inf.client)).toEqual(inf.expected);
    await converged(api, inf);
  }
}

describeBackends(all, (b) => {
  it('client-node informers converge through create, spec and status updates, delete, the definition\'s deletion and its re-creation', async () => {
    const log = memoryLogger('info');
    const api = await b.start({ groupDomain: 'k8s.io' }, { logger: log.logger });
    const dir = tempDir('cr-informer-');
    const kubeconfig = kubeconfigFor(api.server.kubeconfigPath!, api.url, dir.path);
    const group = `${uniqueName('inf')}.example.com`;
    const crdName = `gizmos.${group}`;
    const nsA = await createNamespace(api);
    const nsB = await createNamespace(api);
    const base = (ns: string): string => `/apis/${group}/v1/namespaces/${ns}/gizmos`;
    const clusterPath = `/apis/${group}/v1/gizmos`;
    const crdFile = join(dir.path, 'crd.json');
    writeFileSync(crdFile, JSON.stringify(gizmoCrd(group)));
    const informers: Informer[] = [];
    const startInformer = (label: string, namespace: string | undefined): Informer => {
      const client = new ClientProcess(process.execPath, [informerScript, kubeconfig, group, 'v1', 'gizmos', namespace ?? '-']);
      const inf: Informer = { label, client, path: namespace === undefined ? clusterPath : base(namespace), namespace, expected: [] };
      informers.push(inf);
      return inf;
    };
    /** Records a write's expected change on the informers whose scope holds `ns`. */
    const expectChange = (scope: readonly Informer[], type: string, ns: string, name: string, rv?: string): void => {
      for (const inf of scope) if (inf.namespace === undefined || inf.namespace === ns) inf.expected.push(`${type} ${ns}/${name} ${rv ?? ''}`);
    };
    const gizmo = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name }, spec });
    const create = async (ns: string, name: string, spec: Record<string, unknown>): Promise<any> => {
      const res = await api.request('POST', base(ns), { body: gizmo(name, spec) });
      expect(res.status).toBe(201);
      return res.json();
    };

    try {
      // 1. The definition, through client-node's ApiextensionsV1Api, Established.
      const made = await crdClient(['create', kubeconfig, crdFile]);
      expect(made.map((l) => l.t)).toEqual(['created', 'established', 'read']);
      const read = made[2]!;
      expect(read.conditions).toEqual(expect.arrayContaining([
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', time: 'Date' },
        { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', time: 'Date' },
      ]));
      expect(read.acceptedNames).toEqual({ kind: 'Gizmo', listKind: 'GizmoList', plural: 'gizmos', singular: 'gizmo' });
      expect(read.storedVersions).toEqual(['v1']);
      // Established is written by the controller; serving follows when this replica's cache sees it.
      await eventually(async () => (await api.request('GET', base(nsA))).status === 200, 'the resource served');

      // 2. An instance made before the informers start comes through their first list.
      const pre = await create(nsA, 'pre', { size: 1, color: 'red' });
      const nsInf = startInformer('namespaced informer', nsA);
      const clusterInf = startInformer('cluster informer', undefined);
      const first = [nsInf, clusterInf];
      expectChange(first, 'ADDED', nsA, 'pre', pre.metadata.resourceVersion);
      for (const inf of first) await inf.client.until(() => inf.client.of('list').length === 1, `${inf.label}'s first list`);
      expect(nsInf.client.of('list')[0]!.n).toBe(1);
      await settle(api, first);

      // 3. Creates in two namespaces (the namespaced informer sees only its own), through its watch.
      const g1 = await create(nsA, 'g1', { size: 2, color: 'blue' });
      expectChange(first, 'ADDED', nsA, 'g1', g1.metadata.resourceVersion);
      const g2 = await create(nsA, 'g2', { size: 3 });
      expectChange(first, 'ADDED', nsA, 'g2', g2.metadata.resourceVersion);
      const other = await create(nsB, 'other', { size: 4 });
      expectChange(first, 'ADDED', nsB, 'other', other.metadata.resourceVersion);
      await settle(api, first);

      // A spec change: generation 2.
      const spec = await api.request('PATCH', `${base(nsA)}/g1`, { body: { spec: { size: 5 } } });
      expect(spec.status).toBe(200);
      expect(spec.json().metadata.generation).toBe(2);
      expectChange(first, 'MODIFIED', nsA, 'g1', spec.json().metadata.resourceVersion);
      await settle(api, first);

      // A status change through /status: same generation, a new resourceVersion.
      const status = await api.request('PATCH', `${base(nsA)}/g1/status`, { body: { status: { ready: true, observedSize: 5 } } });
      expect(status.status).toBe(200);
      expect(status.json()).toMatchObject({ metadata: { generation: 2 }, spec: { size: 5, color: 'blue' }, status: { ready: true, observedSize: 5 } });
      expectChange(first, 'MODIFIED', nsA, 'g1', status.json().metadata.resourceVersion);
      await settle(api, first);
      const cached = (await nsInf.client.dump()).objects.get(`${nsA}/g1`)!;
      expect(JSON.parse(cached.data.status!)).toEqual({ observedSize: 5, ready: true });

      // A main-endpoint write that only touches status changes nothing: same resourceVersion, no event
      // (the next write's event must directly follow the last one).
      const noop = await api.request('PATCH', `${base(nsA)}/g1`, { body: { status: { ready: false } } });
      expect(noop.status).toBe(200);
      expect(noop.json().metadata.resourceVersion).toBe(status.json().metadata.resourceVersion);
      expect(noop.json().status).toEqual({ ready: true, observedSize: 5 });

      // A delete.
      const del = await api.request('DELETE', `${base(nsA)}/g2`);
      expect(del.status).toBe(200);
      expectChange(first, 'DELETED', nsA, 'g2');
      await settle(api, first);
      const heldBefore = new Map(await Promise.all(first.map(async (inf) => [inf, [...(await inf.client.dump()).objects.keys()].sort()] as const)));
      expect(heldBefore.get(nsInf)).toEqual([`${nsA}/g1`, `${nsA}/pre`]);
      expect(heldBefore.get(clusterInf)).toEqual([`${nsA}/g1`, `${nsA}/pre`, `${nsB}/other`]);
      for (const inf of first) expect(inf.client.of('error')).toEqual([]);

      // 4. The definition is deleted: its instances first (each informer gets a delete callback for each
      // object it held and ends empty), then the definition; the informers' watches end, and the re-watch
      // is answered 404, which client-node reports through the error callback.
      const linesBefore = new Map(first.map((inf) => [inf, inf.client.lines.length]));
      const deleted = await crdClient(['delete', kubeconfig, crdName]);
      expect(deleted).toEqual([{ t: 'deleted', kind: 'CustomResourceDefinition' }]);
      for (const inf of first) {
        const held = heldBefore.get(inf)!;
        const deletes = (): string[] => inf.client.lines.slice(linesBefore.get(inf)).filter((l) => isChange(l.t)).map((l) => `${l.t} ${l.name}`);
        await inf.client.until(() => deletes().length >= held.length, `${inf.label}: the instances' deletes`);
        expect(deletes().sort()).toEqual(held.map((k) => `DELETED ${k}`));
      }
      await eventually(async () => (await api.request('GET', `${CRDS}/${crdName}`)).status === 404, 'the definition removed', 60_000);
      for (const inf of first) {
        await inf.client.until(() => inf.client.of('error').length > 0, `${inf.label}: the error after the definition's deletion`);
        const after = inf.client.lines.slice(linesBefore.get(inf)).filter((l) => l.t !== 'dump').map((l) => (isChange(l.t) ? l.t : `${l.t} ${l.code ?? ''}`.trim()));
        // Every delete came through the watch before it ended; then client-node's done handler (no error)
        // connected again from its last resourceVersion, without listing, and that watch was refused: 404,
        // reported once through the error callback and not retried.
        expect(after).toEqual([...heldBefore.get(inf)!.map(() => 'DELETED'), 'watch', 'error 404']);
        expect((await inf.client.dump()).objects.size).toBe(0);
      }
      expect((await api.request('GET', base(nsA))).status).toBe(404);
      const requests = log.lines().map((l) => JSON.parse(l)).filter((r) => r.msg === 'request' && r.method === 'GET' && /(^|&)watch=true(&|$)/.test(r.query ?? ''));
      for (const inf of first) {
        const watches = requests.filter((r) => r.path === inf.path);
        expect(watches.at(-1)?.status).toBe(404);
      }

      // 5. Re-created: new informers converge (their list is empty, then an instance arrives by watch);
      // the old ones, started again, converge too.
      const remade = await crdClient(['create', kubeconfig, crdFile]);
      expect(remade.map((l) => l.t)).toEqual(['created', 'established', 'read']);
      expect(remade[0]!.uid).not.toBe(made[0]!.uid);
      await eventually(async () => (await api.request('GET', base(nsA))).status === 200, 'the re-created resource served');
      const fresh = [startInformer('new namespaced informer', nsA), startInformer('new cluster informer', undefined)];
      for (const inf of fresh) await inf.client.until(() => inf.client.of('list').length === 1, `${inf.label}'s first list`);
      for (const inf of fresh) expect(inf.client.of('list')[0]!.n).toBe(0);
      const again = await create(nsA, 'again', { size: 6 });
      expectChange(fresh, 'ADDED', nsA, 'again', again.metadata.resourceVersion);
      await settle(api, fresh);
      for (const inf of fresh) expect(inf.client.of('error')).toEqual([]);
      for (const inf of first) inf.client.send('start');
      for (const inf of first) {
        const cache = await converged(api, inf);
        expect([...cache.keys()]).toEqual([`${nsA}/again`]);
        expect(inf.client.lastEvents().get(`${nsA}/again`)).toMatchObject({ t: 'ADDED', rv: again.metadata.resourceVersion });
        expect(inf.client.of('error')).toHaveLength(1);
      }
      // Started again, an old informer watches from the resourceVersion it had before the deletion. The
      // server may replay from there (the store's history) or refuse it with 410 (then client-node lists
      // again, as kube-apiserver's fresh watch cache would make it); both converge, checked above.
      const restart = first.map((inf) => inf.client.lines.slice(inf.client.lines.findIndex((l) => l.t === 'error') + 1)
        .filter((l) => l.t === 'list' || l.t === 'watch' || l.t === 'error').map((l) => l.t).join(','));
      // eslint-disable-next-line no-console
      console.log(`[client-node custom resource informer, ${b.name}] old informers after start: ${restart.join(' | ')}`);
    } finally {
      await Promise.all(informers.map((inf) => inf.client.stop()));
      dir.remove();
    }
  }, 180_000);
});
