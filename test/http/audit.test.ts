/**
 * The audit log of a real server (issue 16, item 3): `audit.<domain>/v1` Events as JSON lines for create,
 * get, an error, a watch (ResponseStarted), an impersonated request, a Panic, per-namespace levels and
 * omitted stages, omitManagedFields, Secret redaction at RequestResponse (the values never reach the file),
 * the deprecation annotation of a deprecated CRD version, the authorization annotations, the metrics, the
 * legacy format, and rotation of the file by `--audit-log-maxsize`. The filter's place is kube's
 * (authentication -> audit -> impersonation -> authorization): RequestReceived names the caller before
 * impersonation, a refused impersonation and a failed authentication (401) are logged, and a delete's
 * DeleteOptions body is its request object.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdmissionPlugin } from '../../apiserver/admission/plugin.js';
import { auditLogDefaults, loadPolicyFile, type AuditConfig } from '../../apiserver/config/audit-flags.js';
import { eventually } from '../server/helpers.js';
import { backends, createNamespace, stopBackends, uniqueName, type TestApi } from './helpers.js';

// Auditing does not depend on the store: the first selected backend (memory unless HTTP_BACKENDS says otherwise).
const [memory] = backends();
const dirs: string[] = [];
afterAll(async () => {
  await stopBackends([memory!]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const NS_RR = 'audit-rr';
const NS_OMIT = 'audit-omit';
const NS_REQ = 'audit-req';
const NS_PANIC = 'audit-panic';

const POLICY = `
apiVersion: audit.platform.io/v1
kind: Policy
rules:
# The policy sees the authenticated caller, never the impersonated user: this rule must not hide
# requests that impersonate jane.
- level: None
  users: ["jane"]
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*", "/metrics"]
- level: RequestResponse
  namespaces: [${NS_RR}, ${NS_PANIC}]
- level: RequestResponse
  namespaces: [${NS_OMIT}]
  omitManagedFields: true
- level: Request
  namespaces: [${NS_REQ}]
  omitStages: [RequestReceived]
- level: RequestResponse
  resources: [{group: authentication.platform.io, resources: [tokenreviews]}]
- level: Metadata
`;

function auditConfig(dir: string, extra: Partial<AuditConfig> = {}): AuditConfig {
  const policyPath = join(dir, 'policy.yaml');
  writeFileSync(policyPath, POLICY);
  return { ...auditLogDefaults, policy: loadPolicyFile(policyPath, 'platform.io'), logPath: join(dir, 'log', 'audit.log'), ...extra };
}

/** A plain Error (not a Status) from admission in the panic namespace: what recover answers 500. */
const panicking: AdmissionPlugin = {
  name: 'Panicking',
  validate(a) {
    if (a.namespace === NS_PANIC && a.name.startsWith('boom')) throw new Error('boom in admission');
  },
};

type Event = Record<string, any>;

function readEvents(path: string): Event[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

/** Waits until the log holds `stages` for the request `auditID` and returns its events in order. */
async function eventsOf(path: string, auditID: string, stages: readonly string[]): Promise<Event[]> {
  let events: Event[] = [];
  await eventually(async () => {
    events = readEvents(path).filter((e) => e.auditID === auditID);
    return stages.every((s) => events.some((e) => e.stage === s));
  }, `audit events ${stages.join(',')} of ${auditID}`, 10_000);
  expect(events.map((e) => e.stage)).toEqual(stages);
  return events;
}

const microTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe(`audit log (${memory!.name} backend)`, () => {
  let api: TestApi;
  let dir: string;
  let logPath: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-http-'));
    dirs.push(dir);
    const audit = auditConfig(dir);
    logPath = audit.logPath;
    api = await memory!.start({ audit }, { admissionPlugins: () => [panicking] });
    for (const ns of [NS_RR, NS_OMIT, NS_REQ, NS_PANIC]) await createNamespace(api, ns);
  });

  it('logs a create as RequestReceived and ResponseComplete Events with kube\'s schema', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', labels: { a: 'b' } }, data: { k: 'v' } };
    const res = await api.request('POST', `/api/v1/namespaces/${NS_RR}/configmaps`, { body, headers: { 'User-Agent': 'audit-test/1.0', 'X-Forwarded-For': '10.1.2.3' } });
    expect(res.status).toBe(201);
    const id = String(res.headers['audit-id']);
    const [received, complete] = await eventsOf(logPath, id, ['RequestReceived', 'ResponseComplete']);
    for (const e of [received!, complete!]) {
      expect(e).toMatchObject({
        kind: 'Event',
        apiVersion: 'audit.platform.io/v1',
        level: 'RequestResponse',
        auditID: id,
        requestURI: `/api/v1/namespaces/${NS_RR}/configmaps`,
        verb: 'create',
        user: { username: 'admin', groups: expect.arrayContaining(['system:masters', 'system:authenticated']) },
        sourceIPs: ['10.1.2.3', '127.0.0.1'],
        userAgent: 'audit-test/1.0',
      });
      expect(e.requestReceivedTimestamp).toMatch(microTime);
      expect(e.stageTimestamp).toMatch(microTime);
      expect(e.impersonatedUser).toBeUndefined();
    }
    // As kube: RequestReceived is stamped with the time the request was received.
    expect(received!.stageTimestamp).toBe(received!.requestReceivedTimestamp);
    expect(Object.keys(complete!)).toEqual(['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI', 'verb', 'user', 'sourceIPs', 'userAgent',
      'objectRef', 'responseStatus', 'requestObject', 'responseObject', 'requestReceivedTimestamp', 'stageTimestamp', 'annotations']);
    // The name comes from the decoded body, after RequestReceived (as kube's LogRequestObject fills it).
    expect(received!.objectRef).toEqual({ resource: 'configmaps', namespace: NS_RR, apiVersion: 'v1' });
    expect(complete!.objectRef).toEqual({ resource: 'configmaps', namespace: NS_RR, name: 'cm1', apiVersion: 'v1' });
    expect(received!.responseStatus).toBeUndefined();
    expect(received!.requestObject).toBeUndefined();
    expect(complete!.responseStatus).toEqual({ metadata: {}, code: 201 });
    // The request as decoded (before defaults), the response as stored.
    expect(complete!.requestObject).toEqual(body);
    expect(complete!.responseObject).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'cm1', uid: res.json().metadata.uid } });
    expect(complete!.responseObject.metadata.managedFields).toHaveLength(1);
    // system:masters is allowed with an empty reason, which kube records too.
    expect(complete!.annotations).toEqual({ 'authorization.platform.io/decision': 'allow', 'authorization.platform.io/reason': '' });
    expect(complete!.stageTimestamp >= complete!.requestReceivedTimestamp).toBe(true);
  });

  it('logs a get and a list, without managedFields when the rule omits them', async () => {
    const created = await api.request('POST', `/api/v1/namespaces/${NS_OMIT}/configmaps`, { body: { metadata: { name: 'cm2' }, data: { x: 'y' } } });
    expect(created.status).toBe(201);
    const res = await api.request('GET', `/api/v1/namespaces/${NS_OMIT}/configmaps/cm2`);
    const [, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(complete).toMatchObject({ verb: 'get', objectRef: { resource: 'configmaps', namespace: NS_OMIT, name: 'cm2', apiVersion: 'v1' }, responseStatus: { code: 200 } });
    expect(complete!.requestObject).toBeUndefined();
    expect(complete!.responseObject.data).toEqual({ x: 'y' });
    expect(complete!.responseObject.metadata.managedFields).toBeUndefined();
    // The shared cached object was not changed by the audit copy.
    expect(res.json().metadata.managedFields).toHaveLength(1);
    // A list: each item without managedFields.
    const list = await api.request('GET', `/api/v1/namespaces/${NS_OMIT}/configmaps`);
    const [, listed] = await eventsOf(logPath, String(list.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(listed!.verb).toBe('list');
    expect(listed!.responseObject.items.map((i: any) => i.metadata.managedFields)).toEqual([undefined]);
  });

  it('puts a failure Status in responseStatus (and as responseObject at RequestResponse)', async () => {
    const res = await api.request('GET', `/api/v1/namespaces/${NS_RR}/configmaps/missing`);
    expect(res.status).toBe(404);
    const [, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(complete!.responseStatus).toEqual({
      metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'configmaps' }, code: 404,
    });
    expect(complete!.responseObject).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('logs the request object only, without RequestReceived, at level Request with omitStages', async () => {
    const res = await api.request('POST', `/api/v1/namespaces/${NS_REQ}/configmaps`, { body: { metadata: { name: 'cm3' }, data: { a: '1' } } });
    const [complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['ResponseComplete']);
    expect(complete!.level).toBe('Request');
    expect(complete!.requestObject).toMatchObject({ metadata: { name: 'cm3' }, data: { a: '1' } });
    expect(complete!.responseObject).toBeUndefined();
  });

  it('logs a patch document as the request object', async () => {
    const res = await api.request('PATCH', `/api/v1/namespaces/${NS_RR}/configmaps/cm1`, { body: { data: { k: 'patched' } } });
    expect(res.status).toBe(200);
    const [, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(complete).toMatchObject({ verb: 'patch', requestObject: { data: { k: 'patched' } }, responseObject: { data: { k: 'patched' } } });
  });

  it('logs a watch with ResponseStarted when its headers go out, then ResponseComplete', async () => {
    const res = await api.request('GET', `/api/v1/namespaces/${NS_RR}/configmaps`, { query: { watch: 'true', timeoutSeconds: '1' } });
    expect(res.status).toBe(200);
    const [, started, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(started).toMatchObject({ verb: 'watch', responseStatus: { metadata: {}, code: 200 }, objectRef: { resource: 'configmaps', namespace: NS_RR } });
    expect(complete!.responseStatus).toEqual({ metadata: {}, code: 200 });
    expect(complete!.responseObject).toBeUndefined();
    expect(started!.stageTimestamp <= complete!.stageTimestamp).toBe(true);
  });

  it('logs a watch refused before it streams with ResponseStarted (its error) before ResponseComplete', async () => {
    const res = await api.request('GET', `/api/v1/namespaces/${NS_RR}/configmaps`, { query: { watch: 'true', resourceVersion: 'not-a-number' } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const [, started, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(started!.responseStatus.code).toBe(res.status);
    expect(complete!.responseStatus).toMatchObject({ status: 'Failure', code: res.status, message: res.json().message });
  });

  it('logs the caller as user and the impersonated user as impersonatedUser, from the stage after impersonation', async () => {
    const res = await api.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'team' } });
    expect(res.status).toBe(403);
    // Logged although the policy says None for jane: the policy is evaluated for the caller (admin).
    const [received, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    // RequestReceived is emitted before impersonation, as kube's audit filter emits it.
    expect(received!.user.username).toBe('admin');
    expect(received!.impersonatedUser).toBeUndefined();
    expect(received!.annotations).toBeUndefined();
    expect(complete!.level).toBe('Metadata');
    expect(complete!.user.username).toBe('admin');
    expect(complete!.impersonatedUser).toEqual({ username: 'jane', groups: ['team', 'system:authenticated'] });
    expect(complete!.responseStatus).toMatchObject({ status: 'Failure', reason: 'Forbidden', code: 403 });
    // Metadata: no objects, even the Status.
    expect(complete!.responseObject).toBeUndefined();
    expect(complete!.annotations['authorization.platform.io/decision']).toBe('forbid');
  });

  it('logs an impersonated request that is allowed, with impersonatedUser after RequestReceived', async () => {
    const res = await api.request('GET', `/api/v1/namespaces/${NS_RR}/configmaps`, { headers: { 'Impersonate-User': 'root2', 'Impersonate-Group': 'system:masters' } });
    expect(res.status).toBe(200);
    const [received, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(received!.user.username).toBe('admin');
    expect(received!.impersonatedUser).toBeUndefined();
    expect(complete!.user.username).toBe('admin');
    expect(complete!.impersonatedUser).toEqual({ username: 'root2', groups: ['system:masters', 'system:authenticated'] });
    expect(complete!.annotations['authorization.platform.io/decision']).toBe('allow');
  });

  it('logs a refused impersonation (403) with the caller and without impersonatedUser', async () => {
    expect((await api.request('POST', `/api/v1/namespaces/${NS_RR}/serviceaccounts`, { body: { metadata: { name: 'imp' } } })).status).toBe(201);
    const issued = await api.request('POST', `/api/v1/namespaces/${NS_RR}/serviceaccounts/imp/token`, { body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: {} } });
    expect(issued.status).toBe(201);
    const token = String(issued.json().status.token);
    const res = await api.request('GET', `/api/v1/namespaces/${NS_RR}/configmaps`, { token, headers: { 'Impersonate-User': 'jane' } });
    expect(res.status).toBe(403);
    expect(res.json().message).toContain('cannot impersonate');
    const [received, complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    for (const e of [received!, complete!]) {
      expect(e.user.username).toBe(`system:serviceaccount:${NS_RR}:imp`);
      expect(e.impersonatedUser).toBeUndefined();
    }
    expect(complete!.responseStatus).toMatchObject({ status: 'Failure', reason: 'Forbidden', code: 403, message: res.json().message });
    expect(complete!.responseObject).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    // The authorization filter never ran: no decision annotations.
    expect(complete!.annotations).toBeUndefined();
  });

  it('logs a failed authentication (401) as one ResponseStarted event with kube\'s message', async () => {
    const path = `/api/v1/namespaces/${NS_RR}/configmaps`;
    for (const c of [
      { token: 'not-a-token', message: 'Authentication failed, attempted: bearer' },
      { token: 'nope', query: { access_token: 'x' }, message: 'Authentication failed, attempted: bearer, access_token' },
    ]) {
      const res = await api.request('GET', path, { token: c.token, ...(c.query === undefined ? {} : { query: c.query }) });
      expect(res.status).toBe(401);
      await expectFailedAuthentication(logPath, res, c.message);
    }
    // Without credentials (anonymous allowed, the default) the request is system:anonymous's, audited as usual.
    const anonymous = await api.request('GET', path, { token: null });
    expect(anonymous.status).toBe(403);
    const [, anon] = await eventsOf(logPath, String(anonymous.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(anon!.user).toEqual({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    // Rules naming users do not match a request without one; non-resource paths are audited too.
    const version = await api.request('GET', '/apis', { token: 'bad' });
    expect(version.status).toBe(401);
    const [ev] = await eventsOf(logPath, String(version.headers['audit-id']), ['ResponseStarted']);
    expect(ev).toMatchObject({ level: 'Metadata', requestURI: '/apis', verb: 'get', responseStatus: { code: 401 } });
    expect(ev!.objectRef).toBeUndefined();
  });

  it('logs a delete\'s DeleteOptions body as the request object at level Request, as kube does', async () => {
    for (const name of ['d1', 'd2', 'd3']) {
      expect((await api.request('POST', `/api/v1/namespaces/${NS_REQ}/configmaps`, { body: { metadata: { name } } })).status).toBe(201);
    }
    const base = `/api/v1/namespaces/${NS_REQ}/configmaps`;
    // kubectl's body: no apiVersion, so meta.<domain>/v1; unknown members are dropped.
    const d1 = await api.request('DELETE', `${base}/d1`, { body: { propagationPolicy: 'Background', unknownField: 1 } });
    expect(d1.status).toBe(200);
    const [e1] = await eventsOf(logPath, String(d1.headers['audit-id']), ['ResponseComplete']);
    expect(e1!.verb).toBe('delete');
    expect(e1!.requestObject).toEqual({ kind: 'DeleteOptions', apiVersion: 'meta.platform.io/v1', propagationPolicy: 'Background' });
    expect(Object.keys(e1!.requestObject)).toEqual(['kind', 'apiVersion', 'propagationPolicy']);
    // A typed client's body keeps its apiVersion; members in Go's order.
    const d2 = await api.request('DELETE', `${base}/d2`, {
      body: { dryRun: ['All'], apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: '1', uid: 'u' }, gracePeriodSeconds: 0 },
    });
    expect(d2.status).toBe(409);
    const [e2] = await eventsOf(logPath, String(d2.headers['audit-id']), ['ResponseComplete']);
    expect(e2!.requestObject).toEqual({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '1' }, dryRun: ['All'] });
    expect(Object.keys(e2!.requestObject)).toEqual(['kind', 'apiVersion', 'gracePeriodSeconds', 'preconditions', 'dryRun']);
    expect(Object.keys(e2!.requestObject.preconditions)).toEqual(['uid', 'resourceVersion']);
    // Decoded but invalid (422): logged; a body that does not decode (400): not logged.
    const invalid = await api.request('DELETE', `${base}/d3`, { body: { orphanDependents: true, propagationPolicy: 'Orphan' } });
    expect(invalid.status).toBe(422);
    const [e3] = await eventsOf(logPath, String(invalid.headers['audit-id']), ['ResponseComplete']);
    expect(e3!.requestObject).toEqual({ kind: 'DeleteOptions', apiVersion: 'meta.platform.io/v1', orphanDependents: true, propagationPolicy: 'Orphan' });
    const undecodable = await api.request('DELETE', `${base}/d3`, { body: { gracePeriodSeconds: 'soon' } });
    expect(undecodable.status).toBe(400);
    const [e4] = await eventsOf(logPath, String(undecodable.headers['audit-id']), ['ResponseComplete']);
    expect(e4!.requestObject).toBeUndefined();
    // Options in the query are not logged (kube logs only a body); a deletecollection's body is.
    const byQuery = await api.request('DELETE', `${base}/d3`, { query: { propagationPolicy: 'Foreground' } });
    expect(byQuery.status).toBe(200);
    const [e5] = await eventsOf(logPath, String(byQuery.headers['audit-id']), ['ResponseComplete']);
    expect(e5!.requestObject).toBeUndefined();
    const collection = await api.request('DELETE', base, { body: { apiVersion: 'meta.platform.io/v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan' } });
    expect(collection.status).toBe(200);
    const [e6] = await eventsOf(logPath, String(collection.headers['audit-id']), ['ResponseComplete']);
    expect(e6!).toMatchObject({ verb: 'deletecollection', requestObject: { kind: 'DeleteOptions', apiVersion: 'meta.platform.io/v1', propagationPolicy: 'Orphan' } });
  });

  it('logs an unexpected error as the Panic stage (no ResponseComplete)', async () => {
    const res = await api.request('POST', `/api/v1/namespaces/${NS_PANIC}/configmaps`, { body: { metadata: { name: 'boom1' } } });
    expect(res.status).toBe(500);
    const [, panic] = await eventsOf(logPath, String(res.headers['audit-id']), ['RequestReceived', 'Panic']);
    expect(panic!.responseStatus).toEqual({ metadata: {}, status: 'Failure', reason: 'InternalError', message: 'APIServer panic\'d: Error: boom in admission', code: 500 });
  });

  it('never writes Secret values at RequestResponse: data, stringData, last-applied, JSON patch values', async () => {
    const secretValue = `s3cr3t-${uniqueName('v')}`;
    const b64 = Buffer.from(secretValue).toString('base64');
    const body = {
      apiVersion: 'v1', kind: 'Secret',
      metadata: { name: 'db', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ stringData: { password: secretValue } }), note: 'kept' } },
      data: { token: b64 },
      stringData: { password: secretValue },
    };
    const created = await api.request('POST', `/api/v1/namespaces/${NS_RR}/secrets`, { body });
    expect(created.status).toBe(201);
    const [, complete] = await eventsOf(logPath, String(created.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(complete!.requestObject.data).toEqual({ token: '<redacted>' });
    expect(complete!.requestObject.stringData).toEqual({ password: '<redacted>' });
    expect(complete!.requestObject.metadata.annotations).toEqual({ 'kubectl.kubernetes.io/last-applied-configuration': '<redacted>', note: 'kept' });
    expect(Object.keys(complete!.responseObject.data).sort()).toEqual(['password', 'token']);
    expect(Object.values(complete!.responseObject.data)).toEqual(['<redacted>', '<redacted>']);

    const patched = await api.request('PATCH', `/api/v1/namespaces/${NS_RR}/secrets/db`, {
      body: [{ op: 'add', path: '/data/extra', value: b64 }], headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(patched.status).toBe(200);
    const [, patchEvent] = await eventsOf(logPath, String(patched.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(patchEvent!.requestObject).toEqual([{ op: 'add', path: '/data/extra', value: '<redacted>' }]);
    const listed = await api.request('GET', `/api/v1/namespaces/${NS_RR}/secrets`);
    const table = await api.request('GET', `/api/v1/namespaces/${NS_RR}/secrets/db`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, query: { includeObject: 'Object' } });
    expect(table.status).toBe(200);
    await eventsOf(logPath, String(listed.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    await eventsOf(logPath, String(table.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    const text = readFileSync(logPath, 'utf8');
    expect(text).not.toContain(secretValue);
    expect(text).not.toContain(b64);
    expect(text).not.toContain(Buffer.from(secretValue).toString('base64').slice(0, 12));
  });

  it('never writes issued or reviewed tokens: TokenRequest status.token, TokenReview spec.token', async () => {
    expect((await api.request('POST', `/api/v1/namespaces/${NS_RR}/serviceaccounts`, { body: { metadata: { name: 'bot' } } })).status).toBe(201);
    const issued = await api.request('POST', `/api/v1/namespaces/${NS_RR}/serviceaccounts/bot/token`, { body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenRequest', spec: {} } });
    expect(issued.status).toBe(201);
    const token = String(issued.json().status.token);
    expect(token.length).toBeGreaterThan(20);
    const [, tr] = await eventsOf(logPath, String(issued.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(tr!.objectRef).toMatchObject({ resource: 'serviceaccounts', subresource: 'token', name: 'bot', namespace: NS_RR });
    expect(tr!.responseObject.status.token).toBe('<redacted>');
    const review = await api.request('POST', '/apis/authentication.platform.io/v1/tokenreviews', { body: { apiVersion: 'authentication.platform.io/v1', kind: 'TokenReview', spec: { token } } });
    expect(review.status).toBe(201);
    expect(review.json().status.authenticated).toBe(true);
    const [, rv] = await eventsOf(logPath, String(review.headers['audit-id']), ['RequestReceived', 'ResponseComplete']);
    expect(rv!.requestObject.spec.token).toBe('<redacted>');
    expect(rv!.responseObject.status.user.username).toBe(`system:serviceaccount:${NS_RR}:bot`);
    expect(readFileSync(logPath, 'utf8')).not.toContain(token.slice(-40));
  });

  it('annotates requests to a deprecated CRD version with platform.io/deprecated', async () => {
    const group = `${uniqueName('g')}.example.com`;
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
    const crd = await api.request('POST', '/apis/apiextensions.platform.io/v1/customresourcedefinitions', {
      body: {
        apiVersion: 'apiextensions.platform.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
        spec: {
          group, names: { kind: 'Gadget', plural: 'gadgets' }, scope: 'Namespaced',
          versions: [{ name: 'v1beta1', served: true, storage: false, deprecated: true, schema }, { name: 'v1', served: true, storage: true, schema }],
        },
      },
    });
    expect(crd.status).toBe(201);
    const path = `/apis/${group}/v1beta1/namespaces/${NS_REQ}/gadgets`;
    await eventually(async () => (await api.request('GET', path)).status === 200, 'deprecated version served', 10_000);
    const res = await api.request('POST', path, { body: { apiVersion: `${group}/v1beta1`, kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 1 } } });
    expect(res.status).toBe(201);
    expect(res.warnings().join()).toContain('deprecated');
    const [complete] = await eventsOf(logPath, String(res.headers['audit-id']), ['ResponseComplete']);
    expect(complete!.objectRef).toMatchObject({ resource: 'gadgets', apiGroup: group, apiVersion: 'v1beta1', name: 'g1' });
    expect(complete!.annotations).toMatchObject({ 'platform.io/deprecated': 'true' });
    const current = await api.request('GET', `/apis/${group}/v1/namespaces/${NS_REQ}/gadgets/g1`);
    const [cur] = await eventsOf(logPath, String(current.headers['audit-id']), ['ResponseComplete']);
    expect(cur!.annotations['platform.io/deprecated']).toBeUndefined();
  });

  it('counts events and levels in the audit metrics; health and metrics paths are level None', async () => {
    const metrics = (await api.request('GET', '/metrics')).text();
    const events = Number(/^apiserver_audit_event_total (\d+)/m.exec(metrics)?.[1]);
    expect(events).toBeGreaterThan(10);
    expect(metrics).toMatch(/^apiserver_audit_level_total\{level="RequestResponse"\} [1-9]/m);
    expect(metrics).toMatch(/^apiserver_audit_level_total\{level="None"\} [1-9]/m);
    expect(readEvents(logPath).some((e) => String(e.requestURI).startsWith('/metrics'))).toBe(false);
  });
});

/** The single ResponseStarted event kube's failed-authentication audit writes for a 401. */
async function expectFailedAuthentication(logPath: string, res: { headers: Record<string, unknown> }, message: string): Promise<void> {
  const [started] = await eventsOf(logPath, String(res.headers['audit-id']), ['ResponseStarted']);
  expect(started).toMatchObject({ level: 'RequestResponse', verb: 'list', objectRef: { resource: 'configmaps', namespace: NS_RR, apiVersion: 'v1' } });
  expect(started!.user).toEqual({});
  expect(started!.responseStatus).toEqual({ metadata: {}, message, code: 401 });
  expect(started!.responseObject).toBeUndefined();
  expect(started!.annotations).toBeUndefined();
}

describe('audit of failed authentication with --anonymous-auth=false', () => {
  it('logs a request without credentials, or with basic auth, as a failed authentication', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-anon-'));
    dirs.push(dir);
    const audit = auditConfig(dir);
    const api = await memory!.start({ audit, anonymousAuth: false });
    const path = `/api/v1/namespaces/${NS_RR}/configmaps`;
    const none = await api.request('GET', path, { token: null });
    expect(none.status).toBe(401);
    await expectFailedAuthentication(audit.logPath, none, 'Authentication failed, no credentials provided');
    const basic = await api.request('GET', path, { token: null, headers: { Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` } });
    expect(basic.status).toBe(401);
    await expectFailedAuthentication(audit.logPath, basic, 'Authentication failed, attempted: basic');
  });
});

describe('audit log rotation and the legacy format', () => {
  it('rotates at --audit-log-maxsize into lumberjack-named backups and keeps --audit-log-maxbackup of them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-rotate-http-'));
    dirs.push(dir);
    const audit = auditConfig(dir, { maxSizeMB: 1, maxBackups: 2 });
    const api = await memory!.start({ audit });
    await createNamespace(api, NS_RR);
    // Each create logs its 300 KiB ConfigMap twice (request and response): ~600 KiB per event.
    const big = 'x'.repeat(300 * 1024);
    let last = '';
    for (let i = 0; i < 6; i++) {
      const res = await api.request('POST', `/api/v1/namespaces/${NS_RR}/configmaps`, { body: { metadata: { name: `big-${i}` }, data: { big } } });
      expect(res.status).toBe(201);
      last = String(res.headers['audit-id']);
    }
    const logDir = join(dir, 'log');
    // The last request's events may be in the current file or a backup.
    await eventually(async () => readdirSync(logDir).some((n) => readEvents(join(logDir, n)).some((e) => e.auditID === last && e.stage === 'ResponseComplete')),
      'the last event written', 10_000);
    await eventually(async () => readdirSync(logDir).length === 3, 'two backups and the current file', 10_000);
    const names = readdirSync(logDir).sort();
    expect(names.filter((n) => n !== 'audit.log').every((n) => /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/.test(n))).toBe(true);
    for (const n of names) {
      const text = readFileSync(join(logDir, n), 'utf8');
      expect(text.length).toBeLessThanOrEqual(1024 * 1024);
      // Whole events only: every line parses.
      for (const l of text.split('\n').filter((x) => x !== '')) expect(JSON.parse(l).kind).toBe('Event');
    }
  });

  it('writes kube\'s legacy one-line format with --audit-log-format=legacy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-legacy-'));
    dirs.push(dir);
    const audit = auditConfig(dir, { format: 'legacy' });
    const api = await memory!.start({ audit });
    const res = await api.request('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'User-Agent': 'legacy-test' } });
    const id = String(res.headers['audit-id']);
    let lines: string[] = [];
    await eventually(async () => {
      lines = readFileSync(audit.logPath, 'utf8').split('\n').filter((l) => l.includes(id));
      return lines.length === 2;
    }, 'two legacy lines', 10_000);
    expect(lines[0]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z AUDIT: id="${id}" stage="RequestReceived" ip="127.0.0.1" method="list" user="admin" groups="\\\\"system:masters\\\\",\\\\"system:authenticated\\\\"" as="<self>" asgroups="<lookup>" user-agent="legacy-test" namespace="default" uri="/api/v1/namespaces/default/configmaps" response="<deferred>"$`));
    expect(lines[1]).toContain('stage="ResponseComplete"');
    expect(lines[1]).toMatch(/response="200"$/);
  });
});
