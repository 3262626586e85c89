/**
 * Pods over HTTP on both backends: discovery (po, all, status, binding), create with Kubernetes' defaults and
 * initial status, 422 causes, the ServiceAccount admission (the account must exist; mountable secrets when
 * the account enforces them), pods/binding, the status sub-resource, the update rules, graceful deletion of
 * bound pods, and the field selectors in lists, tables and watches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { decodeProtobuf } from '../../apiserver/codec/protobuf/protobuf-codec.js';
import { pods as podKind } from '../../apiserver/registry/kinds/core/pod.js';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';
import { openWatch } from './watch-client.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const PB = 'application/vnd.kubernetes.protobuf';
const proto = protobuf.parse(readFileSync(join(__dirname, '..', '..', 'apiserver', 'codec', 'protobuf', 'testing', 'kubernetes.proto'), 'utf8')).root;
const T = (name: string) => proto.lookupType(`k8s.${name}`);
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A core/v1 Binding as kube-scheduler posts it: `k8s\0` + Unknown{typeMeta, raw Binding{metadata=1, target=2}}. */
function bindingProtobuf(name: string, node: string): Buffer {
  const meta = T('ObjectMeta').encode(T('ObjectMeta').fromObject({ name })).finish();
  const target = T('ObjectReference').encode(T('ObjectReference').fromObject({ kind: 'Node', name: node })).finish();
  const raw = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(meta).uint32((2 << 3) | 2).bytes(target).finish();
  const unknown = T('Unknown').encode({ typeMeta: { apiVersion: 'v1', kind: 'Binding' }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([MAGIC, unknown]);
}

const podBody = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...meta },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], ...spec },
});

/** Waits (bounded) until the serviceaccount controller made the namespace's `default` account. */
async function defaultAccount(api: TestApi, ns: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await api.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`no default service account in ${ns}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  let pods: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
    pods = `/api/v1/namespaces/${ns}/pods`;
    await defaultAccount(api, ns);
  });

  const create = async (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => {
    const res = await api.request('POST', pods, { body: podBody(name, spec, meta) });
    expect(res.status).toBe(201);
    return res.json();
  };
  const bind = (name: string, node: string, extra: Record<string, unknown> = {}) =>
    api.request('POST', `${pods}/${name}/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name, ...extra }, target: { kind: 'Node', name: node } } });

  it('discovery lists pods (po, all) with status and binding', async () => {
    const res = (await api.request('GET', '/api/v1')).json();
    const byName = new Map(res.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get('pods')).toEqual(expect.objectContaining({ kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'] }));
    expect(byName.get('pods/status')).toEqual(expect.objectContaining({ kind: 'Pod' }));
    expect(byName.get('pods/binding')).toEqual(expect.objectContaining({ kind: 'Binding', verbs: ['create'] }));
    expect(byName.get('bindings')).toEqual(expect.objectContaining({ kind: 'Binding', namespaced: true, verbs: ['create'] }));
  });

  it('creates a pod with the defaults, the default account and a Pending status; bad input is 422', async () => {
    const p = await create('defaults', {}, {});
    expect(p.spec).toEqual(expect.objectContaining({
      restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30,
      enableServiceLinks: true, serviceAccountName: 'default', serviceAccount: 'default', securityContext: {},
    }));
    expect(p.spec.containers[0]).toEqual(expect.objectContaining({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }));
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });

    const typed = await api.request('POST', pods, { body: { ...podBody('typed'), spec: 'a pod' } });
    expect(typed.status).toBe(400);
    const typedPatch = await api.request('PATCH', `${pods}/defaults`, { body: { spec: { containers: 'none' } } });
    expect(typedPatch.status).toBeGreaterThanOrEqual(400);
    expect(typedPatch.status).toBeLessThan(500);
    const bad = await api.request('POST', pods, { body: podBody('bad', { restartPolicy: 'Sometimes', ephemeralContainers: [{ name: 'd', image: 'busybox' }] }) });
    expect(bad.status).toBe(422);
    expect(bad.json().details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"', field: 'spec.restartPolicy' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: cannot be set on create', field: 'spec.ephemeralContainers' },
    ]);
  });

  it('refuses a pod whose service account does not exist (403), as the ServiceAccount admission', async () => {
    const res = await api.request('POST', pods, { body: podBody('orphan', { serviceAccountName: 'builder' }) });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(expect.objectContaining({
      reason: 'Forbidden',
      message: `pods "orphan" is forbidden: error looking up service account ${ns}/builder: serviceaccount "builder" not found`,
    }));
  });

  it('limits pods to the secrets an enforcing service account lists; copies its pull secrets', async () => {
    const sa = {
      apiVersion: 'v1', kind: 'ServiceAccount',
      metadata: { name: 'restricted', annotations: { 'platform.io/enforce-mountable-secrets': 'true' } },
      secrets: [{ name: 'allowed' }], imagePullSecrets: [{ name: 'regcred' }],
    };
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: sa })).status).toBe(201);
    const volume = (secretName: string) => ({ serviceAccountName: 'restricted', volumes: [{ name: 's', secret: { secretName } }] });
    const denied = await api.request('POST', pods, { body: podBody('uses-other', volume('other')) });
    expect(denied.status).toBe(403);
    expect(denied.json().message).toBe(
      'pods "uses-other" is forbidden: volume with secret.secretName="other" is not allowed because service account restricted does not reference that secret',
    );
    const env = await api.request('POST', pods, {
      body: podBody('env-other', { serviceAccountName: 'restricted', containers: [{ name: 'web', image: 'nginx', envFrom: [{ secretRef: { name: 'other' } }] }] }),
    });
    expect(env.status).toBe(403);
    expect(env.json().message).toContain('container web with envFrom referencing secret.secretName="other" is not allowed');
    const ok = await create('uses-allowed', volume('allowed'));
    expect(ok.spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    const pull = await api.request('POST', pods, { body: podBody('pull-other', { serviceAccountName: 'restricted', imagePullSecrets: [{ name: 'other' }] }) });
    expect(pull.status).toBe(403);
    expect(pull.json().message).toContain('imagePullSecrets[0].name="other" is not allowed because service account restricted does not reference that imagePullSecret');
  });

  it('binds a pod to a node once (pods/binding), then status writes keep the spec', async () => {
    const p = await create('bound');
    const mismatch = await api.request('POST', `${pods}/bound/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'other' }, target: { name: 'n1' } } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json().message).toBe('name in URL does not match name in Binding object');
    const noTarget = await api.request('POST', `${pods}/bound/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { kind: 'Pod' } } });
    expect(noTarget.status).toBe(422);
    expect(noTarget.json().details.causes.map((c: { field: string }) => c.field)).toEqual(['target.kind', 'target.name']);
    expect((await bind('missing', 'n1')).status).toBe(404);
    // Preconditions in the Binding's metadata: a uid or resourceVersion other than the pod's is 409, nothing bound.
    const wrongUid = await bind('bound', 'n1', { uid: 'not-the-uid' });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json().message).toBe(`Operation cannot be fulfilled on pods "bound": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${p.metadata.uid}`);
    const staleRv = await bind('bound', 'n1', { resourceVersion: '1' });
    expect(staleRv.status).toBe(409);
    expect(staleRv.json().message).toBe(`Operation cannot be fulfilled on pods "bound": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${p.metadata.resourceVersion}`);
    expect((await api.request('GET', `${pods}/bound`)).json().spec.nodeName).toBeUndefined();

    const bound = await bind('bound', 'n1', { annotations: { 'example.com/scheduled-by': 'test' } });
    expect(bound.status).toBe(201);
    expect(bound.json()).toEqual(expect.objectContaining({ kind: 'Status', status: 'Success' }));
    const got = (await api.request('GET', `${pods}/bound`)).json();
    expect(got.spec.nodeName).toBe('n1');
    expect(got.metadata.annotations).toEqual({ 'example.com/scheduled-by': 'test' });
    expect(got.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
    expect(Number(got.metadata.resourceVersion)).toBeGreaterThan(Number(p.metadata.resourceVersion));

    const again = await bind('bound', 'n2');
    expect(again.status).toBe(409);
    expect(again.json().message).toBe('Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "n1"');

    const status = {
      ...got,
      spec: { ...got.spec, nodeName: 'n9' },
      status: {
        ...got.status, phase: 'Running', podIP: '10.244.0.7', hostIP: '192.168.0.2', hostIPs: [{ ip: '192.168.0.2' }], startTime: '2024-01-01T00:00:00Z',
        containerStatuses: [{
          name: 'web', ready: true, started: true, restartCount: 1, image: 'nginx:1.27', imageID: 'sha256:0', containerID: 'containerd://1',
          state: { running: { startedAt: '2024-01-01T00:00:02Z' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: '2024-01-01T00:00:00Z', finishedAt: '2024-01-01T00:00:01Z' } },
          volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true, recursiveReadOnly: 'Disabled' }],
          user: { linux: { uid: 1000, gid: 1000, supplementalGroups: [4, 5] } },
        }],
      },
    };
    const written = await api.request('PUT', `${pods}/bound/status`, { body: status });
    expect(written.status).toBe(200);
    expect(written.json().spec.nodeName).toBe('n1');
    expect(written.json().status).toEqual(expect.objectContaining({ phase: 'Running', podIP: '10.244.0.7', podIPs: [{ ip: '10.244.0.7' }], qosClass: 'BestEffort' }));
    const badStatus = await api.request('PUT', `${pods}/bound/status`, { body: { ...written.json(), status: { ...written.json().status, hostIPs: [{ ip: '192.168.0.3' }] } } });
    expect(badStatus.status).toBe(422);
    expect(badStatus.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "192.168.0.3": must be equal to `hostIP`', field: 'status.hostIPs[0].ip' },
    ]);

    // Protobuf (kubectl describe reads pods so): the status written decodes to the same object.
    const pb = await api.request('GET', `${pods}/bound`, { headers: { Accept: 'application/vnd.platform.protobuf' } });
    expect(pb.status).toBe(200);
    const decoded = decodeProtobuf(pb.raw, podKind.schema);
    expect([decoded.apiVersion, decoded.kind]).toEqual(['v1', 'Pod']);
    expect(decoded.value.status).toEqual(written.json().status);
    expect(decoded.value.spec).toEqual(written.json().spec);

    const table = (await api.request('GET', `${pods}/bound`, { headers: { Accept: TABLE } })).json();
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(table.rows[0].cells.slice(0, 4)).toEqual(['bound', '1/1', 'Running', expect.stringMatching(/^1 \(\w+ ago\)$/)]);
    expect(table.rows[0].cells.slice(5)).toEqual(['10.244.0.7', 'n1', '<none>', '<none>']);
  });

  it('binds in protobuf, as kube-scheduler does, and answers a protobuf Status', async () => {
    await create('pb-bound');
    const res = await api.request('POST', `${pods}/pb-bound/binding`, { body: bindingProtobuf('pb-bound', 'n3'), headers: { 'Content-Type': PB, Accept: PB } });
    expect(res.status).toBe(201);
    expect(res.raw.subarray(0, 4).equals(MAGIC)).toBe(true);
    const u = T('Unknown').decode(res.raw.subarray(4)) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array };
    expect([u.typeMeta.apiVersion, u.typeMeta.kind]).toEqual(['v1', 'Status']);
    expect(T('Status').toObject(T('Status').decode(u.raw))).toEqual(expect.objectContaining({ status: 'Success', code: 201 }));
    expect((await api.request('GET', `${pods}/pb-bound`)).json().spec.nodeName).toBe('n3');
  });

  it('binds through the legacy bindings resource too (the pod named by the Binding)', async () => {
    await create('legacy');
    const path = `/api/v1/namespaces/${ns}/bindings`;
    const body = (name?: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: name === undefined ? {} : { name }, target: { kind: 'Node', name: 'n4' } });
    const res = await api.request('POST', path, { body: body('legacy') });
    expect(res.status).toBe(201);
    expect(res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await api.request('GET', `${pods}/legacy`)).json().spec.nodeName).toBe('n4');
    expect((await api.request('POST', path, { body: body('legacy') })).status).toBe(409);
    const unnamed = await api.request('POST', path, { body: body() });
    expect(unnamed.status).toBe(422);
    expect(unnamed.json().details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
    const missing = await api.request('POST', path, { body: body('nobody') });
    expect(missing.status).toBe(404);
    expect(missing.json().message).toBe('pods "nobody" not found');
    expect((await api.request('GET', path)).status).toBe(405);
  });

  it('allows only the updatable spec fields, with kube\'s message', async () => {
    const p = await create('immutable', { activeDeadlineSeconds: 100 });
    const changed = await api.request('PUT', `${pods}/immutable`, { body: { ...p, spec: { ...p.spec, restartPolicy: 'Never' } } });
    expect(changed.status).toBe(422);
    const cause = changed.json().details.causes[0];
    expect(cause.field).toBe('spec');
    expect(cause.message).toMatch(/^Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`,/);
    expect(cause.message).toContain('spec.restartPolicy: changed');
    const image = await api.request('PUT', `${pods}/immutable`, {
      body: { ...p, spec: { ...p.spec, activeDeadlineSeconds: 50, containers: [{ ...p.spec.containers[0], image: 'nginx:1.28' }] } },
    });
    expect(image.status).toBe(200);
    expect(image.json().spec.containers[0].image).toBe('nginx:1.28');
  });

  it('deletes a bound pod gracefully: kept with deletionTimestamp until deleted with gracePeriodSeconds=0', async () => {
    await create('graceful', { terminationGracePeriodSeconds: 45 });
    expect((await bind('graceful', 'n1')).status).toBe(201);
    const before = Date.now();
    const first = await api.request('DELETE', `${pods}/graceful`);
    expect(first.status).toBe(200);
    const marked = first.json();
    expect(marked.kind).toBe('Pod');
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(45);
    const ends = Date.parse(marked.metadata.deletionTimestamp);
    expect(ends).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 44_000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 46_000);

    // Still there; a label update keeps it; a second delete changes nothing; a shorter period moves the end.
    const got = (await api.request('GET', `${pods}/graceful`)).json();
    expect(got.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
    const labelled = await api.request('PATCH', `${pods}/graceful`, { body: { metadata: { labels: { a: 'b' } } } });
    expect(labelled.status).toBe(200);
    const second = await api.request('DELETE', `${pods}/graceful`);
    expect(second.json().metadata.resourceVersion).toBe(labelled.json().metadata.resourceVersion);
    const shorter = await api.request('DELETE', `${pods}/graceful`, { query: { gracePeriodSeconds: '5' } });
    expect(shorter.json().metadata.deletionGracePeriodSeconds).toBe(5);
    expect(Date.parse(shorter.json().metadata.deletionTimestamp)).toBe(ends - 40_000);
    const table = (await api.request('GET', `${pods}/graceful`, { headers: { Accept: TABLE } })).json();
    expect(table.rows[0].cells[2]).toBe('Terminating');

    const forced = await api.request('DELETE', `${pods}/graceful`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 } });
    expect(forced.status).toBe(200);
    expect((await api.request('GET', `${pods}/graceful`)).status).toBe(404);

    // A period beyond any date ends at the latest RFC 3339 time (never a 5xx); protobuf still encodes the pod.
    await create('huge');
    expect((await bind('huge', 'n1')).status).toBe(201);
    const huge = await api.request('DELETE', `${pods}/huge`, { query: { gracePeriodSeconds: '9223372036854775807' } });
    expect(huge.status).toBe(200);
    expect(huge.json().metadata.deletionTimestamp).toBe('9999-12-31T23:59:59Z');
    expect((await api.request('GET', `${pods}/huge`, { headers: { Accept: 'application/vnd.platform.protobuf' } })).status).toBe(200);
    expect((await api.request('DELETE', `${pods}/huge`, { query: { gracePeriodSeconds: '0' } })).status).toBe(200);

    // Unbound pods go at once.
    await create('unbound');
    const gone = await api.request('DELETE', `${pods}/unbound`);
    expect(gone.status).toBe(200);
    expect(gone.json().metadata.deletionTimestamp).toBeUndefined();
    expect((await api.request('GET', `${pods}/unbound`)).status).toBe(404);

    // A bound pod that has finished (Succeeded or Failed) goes at once too.
    await create('finished', { terminationGracePeriodSeconds: 45 });
    expect((await bind('finished', 'n1')).status).toBe(201);
    expect((await api.request('PATCH', `${pods}/finished/status`, { body: { status: { phase: 'Succeeded' } } })).status).toBe(200);
    const done = await api.request('DELETE', `${pods}/finished`);
    expect(done.status).toBe(200);
    expect(done.json().metadata.deletionTimestamp).toBeUndefined();
    expect((await api.request('GET', `${pods}/finished`)).status).toBe(404);

    // A negative grace period counts as 1 second.
    await create('negative');
    expect((await bind('negative', 'n1')).status).toBe(201);
    const negative = await api.request('DELETE', `${pods}/negative`, { query: { gracePeriodSeconds: '-5' } });
    expect(negative.status).toBe(200);
    expect(negative.json().metadata.deletionGracePeriodSeconds).toBe(1);
  });

  it('a grace period cut to 0 on a pod that finalizers keep is stored, and the pod goes with its last finalizer', async () => {
    await create('kept', { terminationGracePeriodSeconds: 45 }, { finalizers: ['example.com/hold'] });
    expect((await bind('kept', 'n1')).status).toBe(201);
    const marked = (await api.request('DELETE', `${pods}/kept`)).json();
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(45);
    const cut = await api.request('DELETE', `${pods}/kept`, { query: { gracePeriodSeconds: '0' } });
    expect(cut.status).toBe(200);
    expect(cut.json().metadata.deletionGracePeriodSeconds).toBe(0);
    expect(Date.parse(cut.json().metadata.deletionTimestamp)).toBeLessThan(Date.parse(marked.metadata.deletionTimestamp));
    // Still kept by its finalizer; a further delete changes nothing.
    const again = await api.request('DELETE', `${pods}/kept`, { query: { gracePeriodSeconds: '0' } });
    expect(again.json().metadata.resourceVersion).toBe(cut.json().metadata.resourceVersion);
    const released = await api.request('PATCH', `${pods}/kept`, { body: { metadata: { finalizers: null } } });
    expect(released.status).toBe(200);
    expect((await api.request('GET', `${pods}/kept`)).status).toBe(404);
  });

  it('a token bound to a pod authenticates while the pod lives (TokenRequest boundObjectRef Pod)', async () => {
    const p = await create('token-holder');
    const tokenPath = `/api/v1/namespaces/${ns}/serviceaccounts/default/token`;
    const request = (ref: Record<string, unknown>) => api.request('POST', tokenPath, {
      body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', ...ref } } },
    });
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner' } } })).status).toBe(201);
    await create('runs-as-runner', { serviceAccountName: 'runner' });
    const other = await request({ name: 'runs-as-runner' });
    expect(other.status).toBe(400);
    expect(other.json().message).toBe('cannot bind token for serviceaccount "default" to pod running with serviceaccount "runner"');
    const res = await request({ name: 'token-holder', uid: p.metadata.uid });
    expect(res.status).toBe(201);
    const token = res.json().status.token as string;
    const whoami = () => api.request('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
      token, body: { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
    });
    const me = await whoami();
    expect(me.status).toBe(201);
    expect(me.json().status.userInfo.username).toBe(`system:serviceaccount:${ns}:default`);
    expect(me.json().status.userInfo.extra['authentication.kubernetes.io/pod-name']).toEqual(['token-holder']);
    expect((await api.request('DELETE', `${pods}/token-holder`)).status).toBe(200);
    // The authenticator reads the pods' watch cache, which sees the delete a moment later.
    const deadline = Date.now() + 10_000;
    let status = (await whoami()).status;
    while (status !== 401 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await whoami()).status;
    }
    expect(status).toBe(401);
  });

  it('selects pods by node, phase and the other kube fields, in lists and watches', async () => {
    const sel = uniqueName('sel');
    const fieldNs = await createNamespace(api, sel);
    await defaultAccount(api, fieldNs);
    const path = `/api/v1/namespaces/${fieldNs}/pods`;
    const mk = async (name: string, spec: Record<string, unknown> = {}) => expect((await api.request('POST', path, { body: podBody(name, spec) })).status).toBe(201);
    await mk('a');
    await mk('b', { restartPolicy: 'Never', hostNetwork: true });
    const list0 = await api.request('GET', path);
    const rv = list0.json().metadata.resourceVersion;
    const watch = await openWatch(api, path, { resourceVersion: rv, fieldSelector: 'spec.nodeName=node-x' });
    expect(watch.status).toBe(200);
    const bindRes = await api.request('POST', `${path}/a/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'a' }, target: { kind: 'Node', name: 'node-x' } } });
    expect(bindRes.status).toBe(201);
    const added = await watch.next();
    expect([added.type, added.object.metadata.name, added.object.spec.nodeName]).toEqual(['ADDED', 'a', 'node-x']);
    watch.close();

    const names = async (fieldSelector: string) => {
      const res = await api.request('GET', path, { query: { fieldSelector } });
      expect(res.status).toBe(200);
      return res.json().items.map((p: { metadata: { name: string } }) => p.metadata.name).sort();
    };
    expect(await names('spec.nodeName=node-x,status.phase!=Succeeded,status.phase!=Failed')).toEqual(['a']);
    expect(await names('spec.nodeName=')).toEqual(['b']);
    expect(await names('spec.restartPolicy=Never')).toEqual(['b']);
    expect(await names('spec.hostNetwork=true')).toEqual(['b']);
    expect(await names('spec.schedulerName=default-scheduler,spec.serviceAccountName=default')).toEqual(['a', 'b']);
    expect(await names('status.phase=Pending,status.podIP=,status.nominatedNodeName=')).toEqual(['a', 'b']);
    // All namespaces, as kubectl describe node asks.
    const across = await api.request('GET', '/api/v1/pods', { query: { fieldSelector: 'spec.nodeName=node-x' } });
    expect(across.json().items.map((p: { metadata: { name: string } }) => p.metadata.name)).toEqual(['a']);
    const unknown = await api.request('GET', path, { query: { fieldSelector: 'spec.containers=x' } });
    expect(unknown.status).toBe(400);
  });
});
