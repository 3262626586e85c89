/**
 * End to end: Events with three stock kubectl releases against the BUILT server, in both group domain modes
 * (one server per mode for the whole file; the releases run one after another against it, each with its own
 * namespace, node and event names):
 *
 * - `kubectl` on PATH, the dispatcher, which runs kubectl 1.32 for this server;
 * - `kubectl.1.27` and `kubectl.1.33`, from the dispatcher's directory.
 *
 * The three behave alike here (no version-specific adaptation was needed); on the wire 1.27 reads events
 * as JSON, while 1.32 and 1.33 ask for protobuf (`Accept: application/vnd.kubernetes.protobuf,...`).
 *
 * With each: `kubectl api-resources` lists both Event resources, `kubectl describe` of the served kinds
 * works and, for the kinds whose kubectl describer has an Events section (ConfigMap, ServiceAccount,
 * PodTemplate, Event), shows the events recorded for the object (kubectl lists them with an involvedObject
 * field selector); kubectl's Secret and Namespace describers print no events at all. `kubectl get events`
 * (also with `--field-selector`) and `kubectl events` (also `--for`) work, and the namespace controller's
 * own event about a stuck deletion is listed for the namespace.
 *
 * Not here: `kubectl describe node` also lists the node's pods (kubectl-pods.test.ts).
 *
 * Objects and events are created with `kubectl create -f` (JSON bodies); each event names its object's uid,
 * as recorders do and describe's selector requires.
 */
import {
  requireBuild, headerLine, kubectlMinor, parseTable, startApiserver, type KubectlResult, type RunningApiserver,
} from './kubectl-helpers.js';

beforeAll(() => requireBuild());

interface Client {
  /** Short, DNS-safe, part of every name the client creates (names stay unique per server). */
  readonly tag: string;
  readonly label: string;
  /** The binary; undefined is `kubectl` from PATH (the dispatcher). Resolved lazily: a missing one fails its tests. */
  readonly binary: () => string | undefined;
  /** The minor release `kubectl version` must report as the client's. */
  readonly minor: number;
}

const clients: readonly Client[] = [
  { tag: 'v132', label: 'kubectl 1.32 (the dispatcher on PATH)', binary: () => undefined, minor: 32 },
  { tag: 'v127', label: 'kubectl 1.27', binary: () => kubectlMinor(27), minor: 27 },
  { tag: 'v133', label: 'kubectl 1.33', binary: () => kubectlMinor(33), minor: 33 },
];

interface Described {
  readonly kind: string;
  readonly resource: string;
  readonly name: string;
  /** '' for cluster-scoped kinds (their events live in `default`). */
  readonly namespace: string;
  readonly describeShowsEvents: boolean;
}

/** The objects one client creates: its own namespace and node, and the namespaced kinds inside it. */
function objectsOf(tag: string): { readonly ns: string; readonly node: string; readonly objects: readonly Described[]; readonly manifest: string } {
  const ns = `ev-${tag}`;
  const node = `worker-${tag}`;
  const objects: readonly Described[] = [
    { kind: 'ConfigMap', resource: 'configmap', name: 'app-config', namespace: ns, describeShowsEvents: true },
    { kind: 'Secret', resource: 'secret', name: 'db-creds', namespace: ns, describeShowsEvents: false },
    { kind: 'ServiceAccount', resource: 'serviceaccount', name: 'builder', namespace: ns, describeShowsEvents: true },
    { kind: 'PodTemplate', resource: 'podtemplate', name: 'web', namespace: ns, describeShowsEvents: true },
    { kind: 'Namespace', resource: 'namespace', name: ns, namespace: '', describeShowsEvents: false },
    { kind: 'Node', resource: 'node', name: node, namespace: '', describeShowsEvents: true },
  ];
  const manifest = `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: ${ns}
data:
  mode: production
---
apiVersion: v1
kind: Secret
metadata:
  name: db-creds
  namespace: ${ns}
stringData:
  password: s3cret
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: builder
  namespace: ${ns}
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: web
  namespace: ${ns}
template:
  metadata:
    labels:
      app: web
  spec:
    containers:
    - name: nginx
      image: nginx:1.27
---
apiVersion: v1
kind: Node
metadata:
  name: ${node}
`;
  return { ns, node, objects, manifest };
}

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** A core v1 Event about an object, as client-go's recorder writes one (cluster-scoped objects: in default). */
function eventYaml(o: Pick<Described, 'kind' | 'name' | 'namespace'>, uid: string, reason: string, message: string, type = 'Normal'): string {
  return `apiVersion: v1
kind: Event
metadata:
  name: ${o.name}.${reason.toLowerCase()}
  namespace: ${o.namespace || 'default'}
involvedObject:
  apiVersion: v1
  kind: ${o.kind}
  name: ${o.name}
  namespace: "${o.namespace}"
  uid: ${uid}
reason: ${reason}
message: ${message}
source:
  component: e2e-recorder
firstTimestamp: "${new Date(Date.now() - 120_000).toISOString().slice(0, 19)}Z"
lastTimestamp: "${new Date().toISOString().slice(0, 19)}Z"
count: 3
type: ${type}
`;
}

for (const domain of ['platform.io', 'k8s.io'] as const) {
  describe(`kubectl and Events (--group-domain=${domain})`, () => {
    let server: RunningApiserver;

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
    });

    for (const client of clients) {
      describe(client.label, () => {
        const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args, { binary: client.binary() });
        const { ns, node, objects, manifest } = objectsOf(client.tag);

        beforeAll(async () => {
          ok(await kubectl('create', '-f', server.file(`objects-${client.tag}.yaml`, manifest)));
          for (const o of objects) {
            const scope = o.namespace === '' ? [] : ['-n', o.namespace];
            const uid = ok(await kubectl('get', o.resource, o.name, ...scope, '-o', 'jsonpath={.metadata.uid}'));
            ok(await kubectl('create', '-f', server.file(`${o.name}-${client.tag}-event.yaml`, eventYaml(o, uid, 'Checked', `${o.kind} ${o.name} was checked`))));
          }
          // An event about another config map in the same namespace: describe must skip it.
          ok(await kubectl('create', '-f', server.file(`other-${client.tag}.yaml`, eventYaml({ kind: 'ConfigMap', name: 'other', namespace: ns }, 'u-x', 'Unrelated', 'not about app-config'))));
        }, 60_000);

        it(`is kubectl 1.${client.minor}`, async () => {
          // Without --client, so the dispatcher reads the server's /version and runs the release it picks.
          const version = JSON.parse(ok(await kubectl('version', '-o', 'json'))) as { clientVersion: { major: string; minor: string } };
          expect(`${version.clientVersion.major}.${version.clientVersion.minor.replace(/\+$/, '')}`).toBe(`1.${client.minor}`);
        });

        it('api-resources lists the core and the events group Event resources', async () => {
          const rows = parseTable(ok(await kubectl('api-resources')));
          const events = rows.filter((r) => r.NAME === 'events').map((r) => `${r.SHORTNAMES} ${r.APIVERSION} ${r.NAMESPACED} ${r.KIND}`);
          expect(events.sort()).toEqual([`ev events.${domain}/v1 true Event`, 'ev v1 true Event']);
        });

        // Node is left out: kubectl's node describer also lists the node's pods, not served yet (404).
        it.each(objects.filter((o) => o.kind !== 'Node').map((o) => [o.kind, o] as const))('describe %s', async (_kind, o) => {
          const scope = o.namespace === '' ? [] : ['-n', o.namespace];
          const out = ok(await kubectl('describe', o.resource, o.name, ...scope));
          expect(out).toMatch(new RegExp(`Name:\\s+${o.name}`));
          if (!o.describeShowsEvents) {
            expect(out).not.toContain('Events:');
            return;
          }
          const events = out.slice(out.lastIndexOf('Events:'));
          expect(events).toMatch(/Type\s+Reason\s+Age\s+From\s+Message/);
          expect(events).toMatch(new RegExp(`Normal\\s+Checked\\s+\\S+ \\(x3 over \\S+\\)\\s+e2e-recorder\\s+${o.kind} ${o.name} was checked`));
          expect(events).not.toContain('Unrelated');
        });

        it('get events shows kubectl\'s columns; --field-selector narrows to one object', async () => {
          const out = ok(await kubectl('get', 'events', '-n', ns));
          expect(headerLine(out)).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
          const rows = parseTable(out);
          expect(rows.map((r) => r.OBJECT).sort()).toEqual(['configmap/app-config', 'configmap/other', 'podtemplate/web', 'secret/db-creds', 'serviceaccount/builder']);
          const one = parseTable(ok(await kubectl('get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=app-config')));
          expect(one).toEqual([expect.objectContaining({ TYPE: 'Normal', REASON: 'Checked', OBJECT: 'configmap/app-config', MESSAGE: 'ConfigMap app-config was checked' })]);
          const wide = parseTable(ok(await kubectl('get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=app-config', '-o', 'wide')));
          expect(wide[0]).toMatchObject({ SOURCE: 'e2e-recorder', COUNT: '3', NAME: 'app-config.checked' });
          const nodes = parseTable(ok(await kubectl('get', 'events', '-A', '--field-selector', `involvedObject.kind=Node,involvedObject.name=${node}`)));
          expect(nodes.map((r) => `${r.NAMESPACE} ${r.OBJECT}`)).toEqual([`default node/${node}`]);
        });

        it('get events through the events group shows the same events', async () => {
          const rows = parseTable(ok(await kubectl('get', `events.events.${domain}`, '-n', ns, '--field-selector', 'regarding.name=app-config')));
          expect(rows).toEqual([expect.objectContaining({ REASON: 'Checked', OBJECT: 'configmap/app-config' })]);
          const yaml = ok(await kubectl('get', `events.v1.events.${domain}`, 'app-config.checked', '-n', ns, '-o', 'jsonpath={.note}|{.regarding.kind}|{.deprecatedCount}'));
          expect(yaml).toBe('ConfigMap app-config was checked|ConfigMap|3');
        });

        it('describe event, and events about cluster-scoped objects are found across namespaces', async () => {
          const out = ok(await kubectl('describe', 'event', 'app-config.checked', '-n', ns));
          expect(out).toMatch(/Reason:\s+Checked/);
          expect(out).toMatch(/Message:\s+ConfigMap app-config was checked/);
          for (const o of objects.filter((x) => x.namespace === '')) {
            const rows = parseTable(ok(await kubectl('events', '-A', '--for', `${o.resource}/${o.name}`)));
            expect(rows).toEqual([expect.objectContaining({ NAMESPACE: 'default', REASON: 'Checked', MESSAGE: `${o.kind} ${o.name} was checked` })]);
          }
        });

        it('kubectl events lists them, also for one object', async () => {
          const out = ok(await kubectl('events', '-n', ns));
          expect(headerLine(out)).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
          expect(out).toContain('ConfigMap app-config was checked');
          const one = ok(await kubectl('events', '-n', ns, '--for', 'configmap/app-config'));
          const rows = parseTable(one);
          expect(rows).toEqual([expect.objectContaining({ REASON: 'Checked', OBJECT: 'ConfigMap/app-config' })]);
        });

        it('a stuck namespace deletion: the namespace controller records an event about it', async () => {
          const stuck = `stuck-${client.tag}`;
          ok(await kubectl('create', '-f', server.file(`stuck-${client.tag}.yaml`, `apiVersion: v1
kind: Namespace
metadata:
  name: ${stuck}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: ${stuck}
  finalizers: ["example.com/hold"]
`)));
          ok(await kubectl('delete', 'namespace', stuck, '--wait=false'));
          // The controller runs every second; its event arrives within a pass or two (kubectl polls for it).
          let rows: Record<string, string>[] = [];
          for (let i = 0; i < 100 && rows.length === 0; i++) {
            rows = parseTable(ok(await kubectl('get', 'events', '-n', 'default', '--field-selector', `involvedObject.kind=Namespace,involvedObject.name=${stuck}`, '-o', 'wide')));
          }
          expect(rows).toEqual([
            expect.objectContaining({
              TYPE: 'Normal',
              REASON: 'SomeFinalizerRemain',
              OBJECT: `namespace/${stuck}`,
              SOURCE: 'namespace-controller',
              MESSAGE: 'Some finalizers are remaining: example.com/hold in 1 resource instances',
            }),
          ]);
          expect(ok(await kubectl('events', '--for', `namespace/${stuck}`))).toContain('SomeFinalizerRemain');
        });
      });
    }
  });
}
