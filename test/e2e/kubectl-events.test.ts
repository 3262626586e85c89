/**
 * End to end: Events with the stock kubectl (the dispatcher's 1.32) against the BUILT server, in both
 * group domain modes: `kubectl api-resources` lists both Event resources, `kubectl describe` of the served
 * kinds works and, for the kinds whose kubectl describer has an Events section (ConfigMap, ServiceAccount,
 * PodTemplate, Event), shows the events recorded for the object (kubectl lists them with an involvedObject
 * field selector); kubectl's Secret and Namespace describers print no events at all. `kubectl get events`
 * (also with `--field-selector`) and `kubectl events` (also `--for`) work, and the namespace controller's
 * own event about a stuck deletion is listed for the namespace.
 *
 * Not here: `kubectl describe node` also lists the node's pods, and this server serves no pods yet (404).
 *
 * Objects and events are created with `kubectl create -f` (JSON bodies); each event names its object's uid,
 * as recorders do and describe's selector requires.
 */
import {
  buildServer, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver,
} from './kubectl-helpers.js';

beforeAll(() => buildServer(), 120_000);

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: ev
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: ev
data:
  mode: production
---
apiVersion: v1
kind: Secret
metadata:
  name: db-creds
  namespace: ev
stringData:
  password: s3cret
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: builder
  namespace: ev
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: web
  namespace: ev
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
  name: worker-1
`;

/** What each served kind is described as, and where it lives. */
const OBJECTS: readonly { kind: string; resource: string; name: string; namespace: string; describeShowsEvents: boolean }[] = [
  { kind: 'ConfigMap', resource: 'configmap', name: 'app-config', namespace: 'ev', describeShowsEvents: true },
  { kind: 'Secret', resource: 'secret', name: 'db-creds', namespace: 'ev', describeShowsEvents: false },
  { kind: 'ServiceAccount', resource: 'serviceaccount', name: 'builder', namespace: 'ev', describeShowsEvents: true },
  { kind: 'PodTemplate', resource: 'podtemplate', name: 'web', namespace: 'ev', describeShowsEvents: true },
  { kind: 'Namespace', resource: 'namespace', name: 'ev', namespace: '', describeShowsEvents: false },
  { kind: 'Node', resource: 'node', name: 'worker-1', namespace: '', describeShowsEvents: true },
];

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** A core v1 Event about an object, as client-go's recorder writes one (cluster-scoped objects: in default). */
function eventYaml(o: Pick<(typeof OBJECTS)[number], 'kind' | 'name' | 'namespace'>, uid: string, reason: string, message: string, type = 'Normal'): string {
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
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', '-f', server.file('objects.yaml', MANIFEST)));
      for (const o of OBJECTS) {
        const scope = o.namespace === '' ? [] : ['-n', o.namespace];
        const uid = ok(await kubectl('get', o.resource, o.name, ...scope, '-o', 'jsonpath={.metadata.uid}'));
        ok(await kubectl('create', '-f', server.file(`${o.name}-event.yaml`, eventYaml(o, uid, 'Checked', `${o.kind} ${o.name} was checked`))));
      }
      // An event about another config map of the same name elsewhere, and one about another object: describe must skip both.
      ok(await kubectl('create', '-f', server.file('other.yaml', eventYaml({ kind: 'ConfigMap', name: 'other', namespace: 'ev' }, 'u-x', 'Unrelated', 'not about app-config'))));
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('api-resources lists the core and the events group Event resources', async () => {
      const rows = parseTable(ok(await kubectl('api-resources')));
      const events = rows.filter((r) => r.NAME === 'events').map((r) => `${r.SHORTNAMES} ${r.APIVERSION} ${r.NAMESPACED} ${r.KIND}`);
      expect(events.sort()).toEqual([`ev events.${domain}/v1 true Event`, 'ev v1 true Event']);
    });

    it.each(OBJECTS.filter((o) => o.kind !== 'Node').map((o) => [o.kind, o] as const))('describe %s', async (_kind, o) => {
      const scope = o.namespace === '' ? [] : ['-n', o.namespace];
      const res = await kubectl('describe', o.resource, o.name, ...scope);
      const out = ok(res);
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
      const out = ok(await kubectl('get', 'events', '-n', 'ev'));
      expect(headerLine(out)).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
      const rows = parseTable(out);
      expect(rows.map((r) => r.OBJECT).sort()).toEqual(['configmap/app-config', 'configmap/other', 'podtemplate/web', 'secret/db-creds', 'serviceaccount/builder']);
      const one = parseTable(ok(await kubectl('get', 'events', '-n', 'ev', '--field-selector', 'involvedObject.name=app-config')));
      expect(one).toEqual([expect.objectContaining({ TYPE: 'Normal', REASON: 'Checked', OBJECT: 'configmap/app-config', MESSAGE: 'ConfigMap app-config was checked' })]);
      const wide = parseTable(ok(await kubectl('get', 'events', '-n', 'ev', '--field-selector', 'involvedObject.name=app-config', '-o', 'wide')));
      expect(wide[0]).toMatchObject({ SOURCE: 'e2e-recorder', COUNT: '3', NAME: 'app-config.checked' });
      const all = parseTable(ok(await kubectl('get', 'events', '-A', '--field-selector', 'involvedObject.kind=Node')));
      expect(all.map((r) => r.OBJECT)).toEqual(['node/worker-1']);
    });

    it('get events through the events group shows the same events', async () => {
      const rows = parseTable(ok(await kubectl('get', `events.events.${domain}`, '-n', 'ev', '--field-selector', 'regarding.name=app-config')));
      expect(rows).toEqual([expect.objectContaining({ REASON: 'Checked', OBJECT: 'configmap/app-config' })]);
      const yaml = ok(await kubectl('get', `events.v1.events.${domain}`, 'app-config.checked', '-n', 'ev', '-o', 'jsonpath={.note}|{.regarding.kind}|{.deprecatedCount}'));
      expect(yaml).toBe('ConfigMap app-config was checked|ConfigMap|3');
    });

    it('describe event, and events about cluster-scoped objects are found across namespaces', async () => {
      const out = ok(await kubectl('describe', 'event', 'app-config.checked', '-n', 'ev'));
      expect(out).toMatch(/Reason:\s+Checked/);
      expect(out).toMatch(/Message:\s+ConfigMap app-config was checked/);
      for (const o of OBJECTS.filter((x) => x.namespace === '')) {
        const rows = parseTable(ok(await kubectl('events', '-A', '--for', `${o.resource}/${o.name}`)));
        expect(rows).toEqual([expect.objectContaining({ NAMESPACE: 'default', REASON: 'Checked', MESSAGE: `${o.kind} ${o.name} was checked` })]);
      }
    });

    it('kubectl events lists them, also for one object', async () => {
      const out = ok(await kubectl('events', '-n', 'ev'));
      expect(headerLine(out)).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
      expect(out).toContain('ConfigMap app-config was checked');
      const one = ok(await kubectl('events', '-n', 'ev', '--for', 'configmap/app-config'));
      const rows = parseTable(one);
      expect(rows).toEqual([expect.objectContaining({ REASON: 'Checked', OBJECT: 'ConfigMap/app-config' })]);
    });

    it('a stuck namespace deletion: the namespace controller records an event about it', async () => {
      ok(await kubectl('create', '-f', server.file('stuck.yaml', `apiVersion: v1
kind: Namespace
metadata:
  name: stuck
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: held
  namespace: stuck
  finalizers: ["example.com/hold"]
`)));
      ok(await kubectl('delete', 'namespace', 'stuck', '--wait=false'));
      // The controller runs every second; its event arrives within a pass or two (kubectl polls for it).
      let rows: Record<string, string>[] = [];
      for (let i = 0; i < 100 && rows.length === 0; i++) {
        rows = parseTable(ok(await kubectl('get', 'events', '-n', 'default', '--field-selector', 'involvedObject.kind=Namespace,involvedObject.name=stuck', '-o', 'wide')));
      }
      expect(rows).toEqual([
        expect.objectContaining({
          TYPE: 'Normal',
          REASON: 'SomeFinalizerRemain',
          OBJECT: 'namespace/stuck',
          SOURCE: 'namespace-controller',
          MESSAGE: 'Some finalizers are remaining: example.com/hold in 1 resource instances',
        }),
      ]);
      expect(ok(await kubectl('events', '--for', 'namespace/stuck'))).toContain('SomeFinalizerRemain');
    });
  });
}
