/**
 * End to end: stock kubectl against the BUILT server (`bin/platform-apiserver`, built once here), through the
 * generated `<data-dir>/admin.kubeconfig`, through issue 3's acceptance list. The same cases run for the
 * default group domain (platform.io) and for `--group-domain=k8s.io`, each on the embedded store and on a real
 * etcd (one etcd for the file; every server gets its own --etcd-prefix).
 *
 * `kubectl` is the dispatcher on PATH: it asks GET /version and runs kubectl 1.32 for this server. kubectl
 * 1.32 sends PROTOBUF bodies for `create secret|configmap|namespace`, which this server cannot decode yet
 * (415 until the media-type issue lands), so those three commands run with `kubectl.1.31` (JSON bodies),
 * taken from the dispatcher's own directory.
 */
import { parse as parseYaml } from 'yaml';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import {
  requireBuild, headerLine, kubectlMinor, parseTable, startApiserver, type KubectlResult, type RunningApiserver,
} from './kubectl-helpers.js';

let etcd: EtcdCluster | undefined;
let etcdStarting: Promise<EtcdCluster> | undefined;
const getEtcd = (): Promise<EtcdCluster> => (etcdStarting ??= startEtcd().then((c) => (etcd = c)));

beforeAll(() => requireBuild());
afterAll(async () => {
  await etcd?.stop();
});

interface Variant {
  readonly domain: 'platform.io' | 'k8s.io';
  readonly backend: 'memory' | 'etcd';
}
const variants: readonly Variant[] = [
  { domain: 'platform.io', backend: 'memory' },
  { domain: 'platform.io', backend: 'etcd' },
  { domain: 'k8s.io', backend: 'memory' },
  { domain: 'k8s.io', backend: 'etcd' },
];

/** The names that depend on the group domain. */
function domainNames(domain: Variant['domain']): { systemNs: string; publicNs: string; nameLabel: string } {
  return domain === 'k8s.io'
    ? { systemNs: 'kube-system', publicNs: 'kube-public', nameLabel: 'kubernetes.io/metadata.name' }
    : { systemNs: 'platform-system', publicNs: 'platform-public', nameLabel: 'platform.io/metadata.name' };
}

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: e2e
  labels:
    team: blue
---
apiVersion: v1
kind: Secret
metadata:
  name: db-creds
  namespace: e2e
  labels:
    app: db
type: Opaque
stringData:
  username: admin
  password: s3cret
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: e2e
  labels:
    app: web
data:
  mode: production
  retries: "3"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: builder
  namespace: e2e
---
apiVersion: v1
kind: PodTemplate
metadata:
  name: web
  namespace: e2e
  labels:
    app: web
template:
  metadata:
    labels:
      app: web
  spec:
    containers:
    - name: nginx
      image: nginx:1.27
      ports:
      - containerPort: 80
    - name: sidecar
      image: busybox:1.36
      command: ["sh", "-c", "sleep infinity"]
`;

const NODE = `apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels:
    node-role.kubernetes.io/worker: ""
spec:
  podCIDR: 10.244.1.0/24
  taints:
  - key: dedicated
    value: gpu
    effect: NoSchedule
`;

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** kubectl's human duration for a young object (seconds; minutes past 2 min on a slow machine). */
const AGE = /^(\d+s|\d+m(\d+s)?)$/;

for (const variant of variants) {
  const describeVariant = variant.backend === 'etcd' ? describeEtcd : describe;
  const names = domainNames(variant.domain);

  describeVariant(`kubectl against bin/platform-apiserver (--group-domain=${variant.domain}, ${variant.backend})`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    let manifest: string;

    beforeAll(async () => {
      const args = [`--group-domain=${variant.domain}`];
      if (variant.backend === 'etcd') {
        const cluster = await getEtcd();
        args.push(`--etcd-servers=${cluster.endpoints.join(',')}`, `--etcd-prefix=/e2e-${variant.domain.replace('.', '-')}`);
      }
      server = await startApiserver(args);
      manifest = server.file('manifest.yaml', MANIFEST);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('api-resources lists the kinds with their short names, scope and kind', async () => {
      const res = await kubectl('api-resources');
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      // kubectl pads each column but the last to its longest value plus three spaces.
      const group = (prefix: string) => `${prefix}.${variant.domain}/v1`;
      const rbacGroup = group(variant.domain === 'k8s.io' ? 'rbac.authorization' : 'rbac');
      const rows: (readonly [string, string, string, string, string])[] = [
        ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'],
        ['bindings', '', 'v1', 'true', 'Binding'],
        ['configmaps', 'cm', 'v1', 'true', 'ConfigMap'],
        ['events', 'ev', 'v1', 'true', 'Event'],
        ['namespaces', 'ns', 'v1', 'false', 'Namespace'],
        ['nodes', 'no', 'v1', 'false', 'Node'],
        ['persistentvolumeclaims', 'pvc', 'v1', 'true', 'PersistentVolumeClaim'],
        ['pods', 'po', 'v1', 'true', 'Pod'],
        ['podtemplates', '', 'v1', 'true', 'PodTemplate'],
        ['replicationcontrollers', 'rc', 'v1', 'true', 'ReplicationController'],
        ['secrets', '', 'v1', 'true', 'Secret'],
        ['serviceaccounts', 'sa', 'v1', 'true', 'ServiceAccount'],
        ['services', 'svc', 'v1', 'true', 'Service'],
        ['validatingadmissionpolicies', '', group('admissionregistration'), 'false', 'ValidatingAdmissionPolicy'],
        ['validatingadmissionpolicybindings', '', group('admissionregistration'), 'false', 'ValidatingAdmissionPolicyBinding'],
        ['customresourcedefinitions', 'crd,crds', group('apiextensions'), 'false', 'CustomResourceDefinition'],
        ['apiservices', '', group('apiregistration'), 'false', 'APIService'],
        ['controllerrevisions', '', 'apps/v1', 'true', 'ControllerRevision'],
        ['statefulsets', 'sts', 'apps/v1', 'true', 'StatefulSet'],
        ['selfsubjectreviews', '', group('authentication'), 'false', 'SelfSubjectReview'],
        ['tokenreviews', '', group('authentication'), 'false', 'TokenReview'],
        ['localsubjectaccessreviews', '', group('authorization'), 'true', 'LocalSubjectAccessReview'],
        ['selfsubjectaccessreviews', '', group('authorization'), 'false', 'SelfSubjectAccessReview'],
        ['selfsubjectrulesreviews', '', group('authorization'), 'false', 'SelfSubjectRulesReview'],
        ['subjectaccessreviews', '', group('authorization'), 'false', 'SubjectAccessReview'],
        ['horizontalpodautoscalers', 'hpa', 'autoscaling/v1', 'true', 'HorizontalPodAutoscaler'],
        ['jobs', '', 'batch/v1', 'true', 'Job'],
        ['certificatesigningrequests', 'csr', group('certificates'), 'false', 'CertificateSigningRequest'],
        ['leases', '', group('coordination'), 'true', 'Lease'],
        ['endpointslices', '', group('discovery'), 'true', 'EndpointSlice'],
        ['events', 'ev', group('events'), 'true', 'Event'],
        ['clusterrolebindings', '', rbacGroup, 'false', 'ClusterRoleBinding'],
        ['clusterroles', '', rbacGroup, 'false', 'ClusterRole'],
        ['rolebindings', '', rbacGroup, 'true', 'RoleBinding'],
        ['roles', '', rbacGroup, 'true', 'Role'],
        ['storageclasses', 'sc', group('storage'), 'false', 'StorageClass'],
        ['volumeattachments', '', group('storage'), 'false', 'VolumeAttachment'],
      ];
      const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)) + 3);
      expect(res.stdout).toBe([...rows.map((r) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join('')), ''].join('\n'));
      // `-o name` spells resources of named groups `<resource>.<group>`.
      const clusterScoped = rows.slice(1).filter((r) => r[3] === 'false').map((r) => (r[2] === 'v1' ? r[0] : `${r[0]}.${r[2].slice(0, -'/v1'.length)}`));
      expect(ok(await kubectl('api-resources', '--namespaced=false', '-o', 'name'))).toBe(clusterScoped.map((n) => `${n}\n`).join(''));
    });

    it('get lease -n <system namespace> shows the leader of the in-server controllers', async () => {
      // The first election round runs as the server starts; a fresh server may not have written it yet.
      const deadline = Date.now() + 20_000;
      let rows: Record<string, string>[] = [];
      for (;;) {
        const res = await kubectl('get', 'lease', '-n', names.systemNs);
        expect(res.status).toBe(0);
        rows = res.stdout === '' ? [] : parseTable(res.stdout);
        if (rows.length > 0 && rows[0]!.HOLDER !== undefined && rows[0]!.HOLDER !== '') {
          expect(headerLine(res.stdout)).toMatch(/^NAME {3,}HOLDER {3,}AGE$/);
          break;
        }
        if (Date.now() > deadline) throw new Error(`no leader lease: ${res.stdout}${res.stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(rows.map((r) => r.NAME)).toEqual(['platform-apiserver-controllers']);
      expect(rows[0]!.HOLDER).toMatch(/_[0-9a-f-]{36}$/);
      expect(rows[0]!.AGE).toMatch(AGE);
    });

    it('get ns shows the bootstrap namespaces of the domain, Active', async () => {
      const res = await kubectl('get', 'ns');
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      expect(headerLine(res.stdout)).toMatch(/^NAME {3,}STATUS   AGE$/);
      const rows = parseTable(res.stdout);
      expect(rows.map((r) => [r.NAME, r.STATUS])).toEqual(
        [['default', 'Active'], [names.publicNs, 'Active'], [names.systemNs, 'Active']].sort((a, b) => a[0]!.localeCompare(b[0]!)),
      );
      for (const r of rows) expect(r.AGE).toMatch(AGE);
      // The short name resolves through discovery.
      expect(ok(await kubectl('get', 'ns', names.systemNs, '-o', 'name'))).toBe(`namespace/${names.systemNs}\n`);
    });

    it('create -f of a multi-document YAML creates every object, with default (Strict) validation', async () => {
      const res = await kubectl('create', '-f', manifest);
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      expect(res.stdout).toBe([
        'namespace/e2e created',
        'secret/db-creds created',
        'configmap/app-config created',
        'serviceaccount/builder created',
        'podtemplate/web created',
        '',
      ].join('\n'));
      const node = await kubectl('create', '-f', server.file('node.yaml', NODE));
      expect(node.stderr).toBe('');
      expect(node.stdout).toBe('node/worker-1 created\n');
      // The serviceaccount controller gives the new namespace its `default` account.
      expect(ok(await kubectl('wait', '--for=create', 'serviceaccount/default', '-n', 'e2e', '--timeout=30s'))).toBe('serviceaccount/default condition met\n');
    });

    it('create -f again reports AlreadyExists for each object and exits 1', async () => {
      const res = await kubectl('create', '-f', manifest);
      expect(res.status).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe([
        `Error from server (AlreadyExists): error when creating "${manifest}": namespaces "e2e" already exists`,
        `Error from server (AlreadyExists): error when creating "${manifest}": secrets "db-creds" already exists`,
        `Error from server (AlreadyExists): error when creating "${manifest}": configmaps "app-config" already exists`,
        `Error from server (AlreadyExists): error when creating "${manifest}": serviceaccounts "builder" already exists`,
        `Error from server (AlreadyExists): error when creating "${manifest}": podtemplates "web" already exists`,
        '',
      ].join('\n'));
    });

    it('create -f with an unknown field fails Strict validation; --validate=false drops the field', async () => {
      const file = server.file('unknown.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo\n  namespace: default\ndatax:\n  a: b\n');
      const res = await kubectl('create', '-f', file);
      expect(res.status).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(`Error from server (BadRequest): error when creating "${file}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datax"\n`);
      expect(ok(await kubectl('create', '-f', file, '--validate=false'))).toBe('configmap/typo created\n');
      const created = JSON.parse(ok(await kubectl('get', 'cm', 'typo', '-n', 'default', '-o', 'json')));
      expect(created).not.toHaveProperty('datax');
      expect(created).not.toHaveProperty('data');
      expect(ok(await kubectl('delete', 'cm', 'typo', '-n', 'default'))).toBe('configmap "typo" deleted\n');
    });

    it('get prints each kind\'s table columns', async () => {
      const secrets = await kubectl('get', 'secrets', '-n', 'e2e');
      expect(secrets.stderr).toBe('');
      expect(headerLine(secrets.stdout)).toBe('NAME       TYPE     DATA   AGE');
      expect(parseTable(secrets.stdout)).toEqual([{ NAME: 'db-creds', TYPE: 'Opaque', DATA: '2', AGE: expect.stringMatching(AGE) }]);

      const cms = ok(await kubectl('get', 'cm', '-n', 'e2e'));
      expect(headerLine(cms)).toBe('NAME         DATA   AGE');
      expect(parseTable(cms)).toEqual([{ NAME: 'app-config', DATA: '2', AGE: expect.stringMatching(AGE) }]);

      const sas = ok(await kubectl('get', 'sa', '-n', 'e2e'));
      expect(headerLine(sas)).toBe('NAME      SECRETS   AGE');
      expect(parseTable(sas)).toEqual([
        { NAME: 'builder', SECRETS: '0', AGE: expect.stringMatching(AGE) },
        { NAME: 'default', SECRETS: '0', AGE: expect.stringMatching(AGE) },
      ]);

      const templates = ok(await kubectl('get', 'podtemplates', '-n', 'e2e'));
      expect(templates).toBe([
        'NAME   CONTAINERS      IMAGES                    POD LABELS',
        'web    nginx,sidecar   nginx:1.27,busybox:1.36   app=web',
        '',
      ].join('\n'));

      const nodes = ok(await kubectl('get', 'no'));
      expect(headerLine(nodes)).toBe('NAME       STATUS    ROLES    AGE   VERSION');
      expect(parseTable(nodes)).toEqual([{ NAME: 'worker-1', STATUS: 'Unknown', ROLES: 'worker', AGE: expect.stringMatching(AGE), VERSION: '' }]);

      const ns = parseTable(ok(await kubectl('get', 'ns', 'e2e')));
      expect(ns).toEqual([{ NAME: 'e2e', STATUS: 'Active', AGE: expect.stringMatching(AGE) }]);
    });

    it('get -o wide adds the priority columns', async () => {
      const wide = ok(await kubectl('get', 'nodes', '-o', 'wide'));
      expect(headerLine(wide)).toMatch(/^NAME {7}STATUS {4}ROLES {4}AGE {3}VERSION {3}INTERNAL-IP {3}EXTERNAL-IP {3}OS-IMAGE {4}KERNEL-VERSION {3}CONTAINER-RUNTIME$/);
      expect(parseTable(wide)).toEqual([{
        NAME: 'worker-1', STATUS: 'Unknown', ROLES: 'worker', AGE: expect.stringMatching(AGE), VERSION: '',
        'INTERNAL-IP': '<none>', 'EXTERNAL-IP': '<none>', 'OS-IMAGE': '<unknown>', 'KERNEL-VERSION': '<unknown>', 'CONTAINER-RUNTIME': '<unknown>',
      }]);
    });

    it('get -o yaml shows the secret with stringData merged into base64 data, never stringData', async () => {
      const res = await kubectl('get', 'secret', 'db-creds', '-n', 'e2e', '-o', 'yaml');
      expect(res.stderr).toBe('');
      expect(res.stdout).toMatch(/^apiVersion: v1\ndata:\n {2}password: czNjcmV0\n {2}username: YWRtaW4=\nkind: Secret\nmetadata:\n/);
      const secret = parseYaml(res.stdout);
      expect(secret).toEqual({
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        data: { password: Buffer.from('s3cret').toString('base64'), username: Buffer.from('admin').toString('base64') },
        metadata: {
          name: 'db-creds',
          namespace: 'e2e',
          labels: { app: 'db' },
          uid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
          resourceVersion: expect.stringMatching(/^\d+$/),
          creationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
      });
    });

    it('get -o json of a list is a List; of one object, the object with its defaults', async () => {
      const list = JSON.parse(ok(await kubectl('get', 'sa,podtemplates', '-n', 'e2e', '-o', 'json')));
      expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' } });
      expect(list.items.map((i: { kind: string; metadata: { name: string } }) => `${i.kind}/${i.metadata.name}`)).toEqual(['ServiceAccount/builder', 'ServiceAccount/default', 'PodTemplate/web']);

      const template = JSON.parse(ok(await kubectl('get', 'podtemplate', 'web', '-n', 'e2e', '-o', 'json')));
      expect(template.kind).toBe('PodTemplate');
      const spec = template.template.spec;
      expect(spec.containers.map((c: { name: string }) => c.name)).toEqual(['nginx', 'sidecar']);
      expect(spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler' });
      expect(spec.containers[0]).toMatchObject({ image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', ports: [{ containerPort: 80, protocol: 'TCP' }] });
    });

    it('get -o name prints kind/name per object', async () => {
      expect(ok(await kubectl('get', 'cm,secrets,sa,podtemplates', '-n', 'e2e', '-o', 'name'))).toBe(
        'configmap/app-config\nsecret/db-creds\nserviceaccount/builder\nserviceaccount/default\npodtemplate/web\n',
      );
    });

    it('get -A adds the NAMESPACE column', async () => {
      const res = ok(await kubectl('get', 'secrets', '-A'));
      expect(headerLine(res)).toBe('NAMESPACE   NAME       TYPE     DATA   AGE');
      expect(parseTable(res)).toEqual([{ NAMESPACE: 'e2e', NAME: 'db-creds', TYPE: 'Opaque', DATA: '2', AGE: expect.stringMatching(AGE) }]);
    });

    it('get -l filters with label selectors; a bad selector is a 400', async () => {
      expect(ok(await kubectl('get', 'cm,secrets,podtemplates', '-A', '-l', 'app=web', '-o', 'name'))).toBe('configmap/app-config\npodtemplate/web\n');
      expect(ok(await kubectl('get', 'cm,secrets,podtemplates', '-A', '-l', 'app in (db)', '-o', 'name'))).toBe('secret/db-creds\n');
      expect(ok(await kubectl('get', 'cm,secrets,podtemplates', '-A', '-l', 'app,app!=web', '-o', 'name'))).toBe('secret/db-creds\n');
      const none = await kubectl('get', 'secrets', '-n', 'e2e', '-l', 'app=nope');
      expect(none.status).toBe(0);
      expect(none.stdout).toBe('');
      expect(none.stderr).toBe('No resources found in e2e namespace.\n');
      const bad = await kubectl('get', 'secrets', '-n', 'e2e', '-l', 'app web');
      expect(bad.status).toBe(1);
      expect(bad.stderr).toBe('Error from server (BadRequest): Unable to find "/v1, Resource=secrets" that match label selector "app web", field selector "": '
        + "unable to parse requirement: found 'web', expected: in, notin, =, ==, !=, gt, lt\n");
    });

    it('get --field-selector filters on the kind\'s own fields', async () => {
      expect(ok(await kubectl('get', 'secrets', '-A', '--field-selector', 'type=Opaque', '-o', 'name'))).toBe('secret/db-creds\n');
      expect(ok(await kubectl('get', 'ns', '--field-selector', 'metadata.name=e2e', '-o', 'name'))).toBe('namespace/e2e\n');
      const bad = await kubectl('get', 'secrets', '-n', 'e2e', '--field-selector', 'data.x=1');
      expect(bad.status).toBe(1);
      expect(bad.stderr).toBe('Error from server (BadRequest): Unable to find "/v1, Resource=secrets" that match label selector "", field selector "data.x=1": field label not supported: data.x\n');
    });

    it('get --show-labels adds the LABELS column (from the rows\' objects)', async () => {
      const res = ok(await kubectl('get', 'ns', 'e2e', '--show-labels'));
      expect(headerLine(res)).toMatch(/^NAME {3}STATUS {3}AGE {3}LABELS$/);
      expect(parseTable(res)).toEqual([{ NAME: 'e2e', STATUS: 'Active', AGE: expect.stringMatching(AGE), LABELS: `${names.nameLabel}=e2e,team=blue` }]);
      const all = parseTable(ok(await kubectl('get', 'cm', '-A', '-l', 'app', '--show-labels')));
      expect(all).toEqual([{ NAMESPACE: 'e2e', NAME: 'app-config', DATA: '2', AGE: expect.stringMatching(AGE), LABELS: 'app=web' }]);
    });

    it('describe shows secrets (sizes only), namespaces, config maps and service accounts', async () => {
      const secret = await kubectl('describe', 'secret', 'db-creds', '-n', 'e2e');
      expect(secret.stderr).toBe('');
      // kubectl walks the data map in Go's random order.
      const lines = secret.stdout.split('\n');
      expect(lines.slice(0, 9)).toEqual([
        'Name:         db-creds',
        'Namespace:    e2e',
        'Labels:       app=db',
        'Annotations:  <none>',
        '',
        'Type:  Opaque',
        '',
        'Data',
        '====',
      ]);
      expect(lines.slice(9).sort()).toEqual(['', 'password:  6 bytes', 'username:  5 bytes']);

      const ns = await kubectl('describe', 'ns', 'e2e');
      expect(ns.stderr).toBe('');
      expect(ns.stdout).toMatch(new RegExp(`^Name: {9}e2e\nLabels: {7}${names.nameLabel.replace(/\./g, '\\.')}=e2e\n {14}team=blue\nAnnotations: {2}<none>\nStatus: {7}Active\n`));

      // kubectl's ConfigMap describer lists Events, a kind of a later issue: without --show-events=false the
      // lookup's 404 fails the command.
      const cm = await kubectl('describe', 'cm', 'app-config', '-n', 'e2e', '--show-events=false');
      expect(cm.stderr).toBe('');
      // kubectl walks the data map in Go's random order.
      expect(cm.stdout).toMatch(/^Name: {9}app-config\nNamespace: {4}e2e\nLabels: {7}app=web\nAnnotations: {2}<none>\n\nData\n====\n/);
      expect(cm.stdout).toContain('\nmode:\n----\nproduction\n');
      expect(cm.stdout).toContain('\nretries:\n----\n3\n');
      expect(cm.stdout).toMatch(/\n\nBinaryData\n====\n\n$/);

      const sa = await kubectl('describe', 'sa', 'builder', '-n', 'e2e');
      expect(sa.stderr).toBe('');
      expect(sa.stdout).toMatch(/^Name: {16}builder\nNamespace: {11}e2e\nLabels: {14}<none>\nAnnotations: {9}<none>\nImage pull secrets: {2}<none>\nMountable secrets: {3}<none>\nTokens: {14}<none>\n/);
    });

    it('label adds, refuses to overwrite without --overwrite, overwrites and removes', async () => {
      expect(ok(await kubectl('label', 'secret', 'db-creds', '-n', 'e2e', 'tier=backend'))).toBe('secret/db-creds labeled\n');
      const clash = await kubectl('label', 'secret', 'db-creds', '-n', 'e2e', 'tier=frontend');
      expect(clash.status).toBe(1);
      expect(clash.stderr).toBe("error: 'tier' already has a value (backend), and --overwrite is false\n");
      expect(ok(await kubectl('label', 'secret', 'db-creds', '-n', 'e2e', 'tier=frontend', '--overwrite'))).toBe('secret/db-creds labeled\n');
      expect(ok(await kubectl('get', 'secret', 'db-creds', '-n', 'e2e', '-o', 'jsonpath={.metadata.labels}'))).toBe('{"app":"db","tier":"frontend"}');
      expect(ok(await kubectl('label', 'secret', 'db-creds', '-n', 'e2e', 'tier-'))).toBe('secret/db-creds unlabeled\n');
      expect(ok(await kubectl('get', 'secret', 'db-creds', '-n', 'e2e', '-o', 'jsonpath={.metadata.labels}'))).toBe('{"app":"db"}');
    });

    it('annotate adds and removes annotations', async () => {
      expect(ok(await kubectl('annotate', 'cm', 'app-config', '-n', 'e2e', 'owner=alice'))).toBe('configmap/app-config annotated\n');
      expect(ok(await kubectl('get', 'cm', 'app-config', '-n', 'e2e', '-o', 'jsonpath={.metadata.annotations}'))).toBe('{"owner":"alice"}');
      expect(ok(await kubectl('annotate', 'cm', 'app-config', '-n', 'e2e', 'owner-'))).toBe('configmap/app-config annotated\n');
      expect(ok(await kubectl('get', 'cm', 'app-config', '-n', 'e2e', '-o', 'jsonpath={.metadata.annotations}'))).toBe('');
    });

    it('patch --type=merge and --type=json change the object; a no-op patch says so', async () => {
      expect(ok(await kubectl('patch', 'cm', 'app-config', '-n', 'e2e', '--type=merge', '-p', '{"data":{"mode":"staging"}}'))).toBe('configmap/app-config patched\n');
      expect(ok(await kubectl('patch', 'cm', 'app-config', '-n', 'e2e', '--type=json', '-p',
        '[{"op":"add","path":"/data/extra","value":"x"},{"op":"remove","path":"/data/retries"}]'))).toBe('configmap/app-config patched\n');
      expect(ok(await kubectl('get', 'cm', 'app-config', '-n', 'e2e', '-o', 'jsonpath={.data}'))).toBe('{"extra":"x","mode":"staging"}');
      expect(ok(await kubectl('patch', 'cm', 'app-config', '-n', 'e2e', '--type=merge', '-p', '{"data":{"mode":"staging"}}'))).toBe('configmap/app-config patched (no change)\n');
      // Secret data through a merge patch: base64 on the wire.
      expect(ok(await kubectl('patch', 'secret', 'db-creds', '-n', 'e2e', '--type=merge', '-p', `{"data":{"token":"${Buffer.from('t0k').toString('base64')}"}}`))).toBe('secret/db-creds patched\n');
      expect(parseTable(ok(await kubectl('get', 'secret', 'db-creds', '-n', 'e2e')))[0]).toMatchObject({ DATA: '3' });
    });

    it('patch errors: a failed JSON patch test is Invalid; a patch that breaks validation is Invalid with the field', async () => {
      const test = await kubectl('patch', 'cm', 'app-config', '-n', 'e2e', '--type=json', '-p', '[{"op":"test","path":"/data/mode","value":"nope"}]');
      expect(test.status).toBe(1);
      expect(test.stdout).toBe('');
      // kube's generic 422 for a JSON patch that does not apply: no causes, so kubectl prints the message.
      expect(test.stderr).toBe('The request is invalid: the server rejected our request due to an error in our request\n');
      const invalid = await kubectl('patch', 'cm', 'app-config', '-n', 'e2e', '--type=merge', '-p', '{"data":{"bad key":"v"}}');
      expect(invalid.status).toBe(1);
      expect(invalid.stderr).toMatch(/^The ConfigMap "app-config" is invalid: data\[bad key\]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '\.'/);
      const missing = await kubectl('patch', 'cm', 'nope', '-n', 'e2e', '--type=merge', '-p', '{"data":{"a":"b"}}');
      expect(missing.status).toBe(1);
      expect(missing.stderr).toBe('Error from server (NotFound): configmaps "nope" not found\n');
    });

    it('replace with a stale resourceVersion fails with the optimistic-lock message; a fresh one succeeds', async () => {
      const current = ok(await kubectl('get', 'cm', 'app-config', '-n', 'e2e', '-o', 'yaml'));
      const stale = server.file('stale.yaml', current.replace('mode: staging', 'mode: replaced'));
      // Someone else writes in between: the resourceVersion in the file is now stale.
      expect(ok(await kubectl('label', 'cm', 'app-config', '-n', 'e2e', 'bump=1'))).toBe('configmap/app-config labeled\n');
      const res = await kubectl('replace', '-f', stale);
      expect(res.status).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe(`Error from server (Conflict): error when replacing "${stale}": Operation cannot be fulfilled on configmaps "app-config": the object has been modified; please apply your changes to the latest version and try again\n`);
      expect(ok(await kubectl('get', 'cm', 'app-config', '-n', 'e2e', '-o', 'jsonpath={.data.mode}'))).toBe('staging');

      const fresh = ok(await kubectl('get', 'cm', 'app-config', '-n', 'e2e', '-o', 'yaml')).replace('mode: staging', 'mode: replaced');
      const replaced = await server.kubectl(['replace', '-f', '-'], { stdin: fresh });
      expect(replaced.stderr).toBe('');
      expect(replaced.stdout).toBe('configmap/app-config replaced\n');
      expect(ok(await kubectl('get', 'cm', 'app-config', '-n', 'e2e', '-o', 'jsonpath={.data.mode}'))).toBe('replaced');
    });

    it('delete --dry-run=server reports the deletion and keeps the object; delete removes it', async () => {
      expect(ok(await kubectl('delete', 'sa', 'builder', '-n', 'e2e', '--dry-run=server'))).toBe('serviceaccount "builder" deleted (server dry run)\n');
      expect(ok(await kubectl('get', 'sa', 'builder', '-n', 'e2e', '-o', 'name'))).toBe('serviceaccount/builder\n');
      expect(ok(await kubectl('delete', 'podtemplate', 'web', '-n', 'e2e', '--dry-run=server'))).toBe('podtemplate "web" deleted (server dry run)\n');
      expect(ok(await kubectl('delete', 'cm', 'app-config', '-n', 'e2e', '--dry-run=server'))).toBe('configmap "app-config" deleted (server dry run)\n');
      expect(ok(await kubectl('get', 'podtemplate,cm', '-n', 'e2e', '-o', 'name'))).toBe('podtemplate/web\nconfigmap/app-config\n');

      expect(ok(await kubectl('delete', 'sa', 'builder', '-n', 'e2e'))).toBe('serviceaccount "builder" deleted\n');
      const gone = await kubectl('get', 'sa', 'builder', '-n', 'e2e');
      expect(gone.status).toBe(1);
      expect(gone.stderr).toBe('Error from server (NotFound): serviceaccounts "builder" not found\n');
      const again = await kubectl('delete', 'sa', 'builder', '-n', 'e2e');
      expect(again.status).toBe(1);
      expect(again.stderr).toBe('Error from server (NotFound): serviceaccounts "builder" not found\n');
      expect(ok(await kubectl('delete', 'node', 'worker-1'))).toBe('node "worker-1" deleted\n');
      expect((await kubectl('get', 'nodes')).stderr).toBe('No resources found\n');
    });

    it('explain secret.type reads the field from /openapi/v3', async () => {
      const res = await kubectl('explain', 'secret.type');
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      expect(res.stdout).toMatch(/^KIND: {7}Secret\nVERSION: {4}v1\n\nFIELD: type <string>\n\n\nDESCRIPTION:\n {4}\S/);
      const nested = ok(await kubectl('explain', 'podtemplate.template.spec.containers.image'));
      expect(nested).toMatch(/^KIND: {7}PodTemplate\nVERSION: {4}v1\n\nFIELD: image <string>\n/);
      const unknown = await kubectl('explain', 'secret.nope');
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toBe('error: field "nope" does not exist\n');
    });

    it('create namespace | secret generic | configmap (kubectl 1.31: JSON bodies)', async () => {
      const k131 = (...args: string[]): Promise<KubectlResult> => server.kubectl(args, { binary: kubectlMinor(31) });
      expect(ok(await k131('create', 'namespace', 'imperative'))).toBe('namespace/imperative created\n');
      expect(ok(await k131('create', 'secret', 'generic', 'creds', '-n', 'imperative', '--from-literal=user=bob', '--from-literal=pass=hunter2'))).toBe('secret/creds created\n');
      expect(ok(await k131('create', 'configmap', 'settings', '-n', 'imperative', '--from-literal=color=blue'))).toBe('configmap/settings created\n');
      expect(ok(await k131('create', 'secret', 'docker-registry', 'pull', '-n', 'imperative', '--docker-server=registry.example', '--docker-username=u', '--docker-password=p'))).toBe('secret/pull created\n');

      const secrets = ok(await kubectl('get', 'secrets', '-n', 'imperative'));
      expect(parseTable(secrets)).toEqual([
        { NAME: 'creds', TYPE: 'Opaque', DATA: '2', AGE: expect.stringMatching(AGE) },
        { NAME: 'pull', TYPE: 'kubernetes.io/dockerconfigjson', DATA: '1', AGE: expect.stringMatching(AGE) },
      ]);
      expect(ok(await kubectl('get', 'secret', 'creds', '-n', 'imperative', '-o', 'jsonpath={.data.pass}'))).toBe(Buffer.from('hunter2').toString('base64'));
      expect(ok(await kubectl('get', 'cm', 'settings', '-n', 'imperative', '-o', 'jsonpath={.data.color}'))).toBe('blue');
      const dup = await k131('create', 'namespace', 'imperative');
      expect(dup.status).toBe(1);
      expect(dup.stderr).toBe('Error from server (AlreadyExists): namespaces "imperative" already exists\n');
      const missingNs = await k131('create', 'configmap', 'x', '-n', 'no-such-ns', '--from-literal=a=b');
      expect(missingNs.status).toBe(1);
      expect(missingNs.stderr).toBe('error: failed to create configmap: namespaces "no-such-ns" not found\n');
    });

    it('patch --subresource=status fills the Node columns (the node agent member names per domain)', async () => {
      const agent = variant.domain === 'k8s.io' ? 'kubelet' : 'nodeagent';
      const nodeInfo = {
        [`${agent}Version`]: 'v1.32.1', osImage: 'Debian 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0',
        bootID: 'b-1', architecture: 'amd64', operatingSystem: 'linux', [agent === 'kubelet' ? 'kubeProxyVersion' : 'proxyVersion']: '',
        ...(agent === 'kubelet' ? { machineID: 'm-1', systemUUID: 'u-1' } : {}),
      };
      const status = {
        status: {
          nodeInfo,
          daemonEndpoints: { [`${agent}Endpoint`]: { Port: 10250 } },
          capacity: { cpu: '2' },
          addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
          conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok',
            lastHeartbeatTime: '2025-01-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z' }],
        },
      };
      expect(ok(await kubectl('create', '-f', server.file('node.yaml', NODE)))).toBe('node/worker-1 created\n');
      expect(ok(await kubectl('patch', 'node', 'worker-1', '--subresource=status', '--type=merge', '-p', JSON.stringify(status)))).toBe('node/worker-1 patched\n');
      expect(parseTable(ok(await kubectl('get', 'nodes', '-o', 'wide')))).toEqual([{
        NAME: 'worker-1', STATUS: 'Ready', ROLES: 'worker', AGE: expect.stringMatching(AGE), VERSION: 'v1.32.1',
        'INTERNAL-IP': '10.0.0.5', 'EXTERNAL-IP': '<none>', 'OS-IMAGE': 'Debian 12', 'KERNEL-VERSION': '6.1.0', 'CONTAINER-RUNTIME': 'containerd://1.7.0',
      }]);
      // The main resource ignores status; the status sub-resource ignores spec.
      expect(ok(await kubectl('get', 'node', 'worker-1', '-o', `jsonpath={.status.daemonEndpoints.${agent}Endpoint.Port} {.status.nodeInfo.${agent}Version} {.status.allocatable.cpu}`))).toBe('10250 v1.32.1 2');
      expect(ok(await kubectl('patch', 'node', 'worker-1', '--type=merge', '-p', `{"spec":{"unschedulable":true},"status":{"nodeInfo":{"${agent}Version":"v0"}}}`))).toBe('node/worker-1 patched\n');
      expect(parseTable(ok(await kubectl('get', 'node', 'worker-1')))[0]).toMatchObject({ STATUS: 'Ready,SchedulingDisabled', VERSION: 'v1.32.1' });
      // The other mode's spelling is an unknown field (kubectl asks for strict field validation).
      const other = agent === 'kubelet' ? 'nodeagent' : 'kubelet';
      const wrong = await kubectl('patch', 'node', 'worker-1', '--subresource=status', '--type=merge', '-p', `{"status":{"nodeInfo":{"${other}Version":"v2"}}}`);
      expect(wrong.stderr).toContain(`unknown field "status.nodeInfo.${other}Version"`);
      expect(ok(await kubectl('delete', 'node', 'worker-1'))).toBe('node "worker-1" deleted\n');
    });

    it('get pages with --chunk-size (continue tokens), sorts with --sort-by and adds -L label columns', async () => {
      const paged = await kubectl('get', 'ns', '--chunk-size=1', '-o', 'name', '-v=6');
      expect(paged.status).toBe(0);
      expect(paged.stdout).toBe(['default', 'e2e', 'imperative', names.publicNs, names.systemNs].sort().map((n) => `namespace/${n}`).join('\n') + '\n');
      const gets = paged.stderr.split('\n').filter((l) => / GET https:\/\/\S+\/api\/v1\/namespaces\?/.test(l));
      expect(gets).toHaveLength(5);
      expect(gets[0]).toMatch(/namespaces\?limit=1 200 OK/);
      for (const l of gets.slice(1)) expect(l).toMatch(/namespaces\?continue=[A-Za-z0-9_-]+&limit=1 200 OK/);

      expect(ok(await kubectl('get', 'ns', '--sort-by=.metadata.name', '-o', 'name')).split('\n')[0]).toBe('namespace/default');
      const labelled = ok(await kubectl('get', 'cm', 'settings', '-n', 'imperative', '-L', 'color,team'));
      expect(headerLine(labelled)).toMatch(/^NAME {7}DATA {3}AGE {3}COLOR {3}TEAM$/);
      expect(parseTable(labelled)).toEqual([{ NAME: 'settings', DATA: '1', AGE: expect.stringMatching(AGE), COLOR: '', TEAM: '' }]);
    });

    it('create --dry-run=server returns the object without persisting it; a missing namespace is 404', async () => {
      const dry = await server.kubectl(['create', 'configmap', 'dry', '-n', 'default', '--from-literal=a=b', '--dry-run=server', '-o', 'json'], { binary: kubectlMinor(31) });
      expect(dry.stderr).toBe('');
      const obj = JSON.parse(dry.stdout);
      expect(obj).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' }, metadata: { name: 'dry', namespace: 'default' } });
      expect(obj.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(obj.metadata).not.toHaveProperty('resourceVersion');
      const missing = await kubectl('get', 'cm', 'dry', '-n', 'default');
      expect(missing.stderr).toBe('Error from server (NotFound): configmaps "dry" not found\n');

      const file = server.file('elsewhere.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: no-such-ns\n');
      const res = await kubectl('create', '-f', file);
      expect(res.status).toBe(1);
      expect(res.stderr).toBe(`Error from server (NotFound): error when creating "${file}": namespaces "no-such-ns" not found\n`);
    });

    it('delete -l and --all delete each matching object', async () => {
      const k131 = (...args: string[]): Promise<KubectlResult> => server.kubectl(args, { binary: kubectlMinor(31) });
      for (const n of ['one', 'two', 'three']) ok(await k131('create', 'configmap', `bulk-${n}`, '-n', 'imperative', `--from-literal=n=${n}`));
      ok(await kubectl('label', 'cm', 'bulk-one', 'bulk-two', '-n', 'imperative', 'bulk=yes'));
      expect(ok(await kubectl('delete', 'cm', '-n', 'imperative', '-l', 'bulk=yes'))).toBe('configmap "bulk-one" deleted\nconfigmap "bulk-two" deleted\n');
      expect(ok(await kubectl('get', 'cm', '-n', 'imperative', '-o', 'name'))).toBe('configmap/bulk-three\nconfigmap/settings\n');
      expect(ok(await kubectl('delete', 'cm', '-n', 'imperative', '--all'))).toBe('configmap "bulk-three" deleted\nconfigmap "settings" deleted\n');
      expect((await kubectl('get', 'cm', '-n', 'imperative')).stderr).toBe('No resources found in imperative namespace.\n');
    });

    it('deleting a namespace removes its objects, then the namespace', async () => {
      // kubectl waits for the deletion through a watch, a later issue: --wait=false and poll with get.
      expect(ok(await kubectl('delete', 'ns', 'e2e', '--wait=false'))).toBe('namespace "e2e" deleted\n');
      const deadline = Date.now() + 30_000;
      let last: KubectlResult;
      for (;;) {
        last = await kubectl('get', 'ns', 'e2e');
        if (last.status !== 0 || Date.now() > deadline) break;
        expect(parseTable(last.stdout)[0]).toMatchObject({ NAME: 'e2e', STATUS: 'Terminating' });
      }
      expect(last.status).toBe(1);
      expect(last.stderr).toBe('Error from server (NotFound): namespaces "e2e" not found\n');
      const secrets = await kubectl('get', 'secrets,cm,podtemplates', '-n', 'e2e');
      expect(secrets.status).toBe(0);
      expect(secrets.stdout).toBe('');
      expect(secrets.stderr).toBe('No resources found in e2e namespace.\n');
      // Other namespaces keep theirs.
      expect(ok(await kubectl('get', 'secrets', '-A', '-o', 'name'))).toBe('secret/creds\nsecret/pull\n');
    });
  });
}
