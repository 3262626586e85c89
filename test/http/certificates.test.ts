/**
 * CertificateSigningRequests through HTTP (issue 15, the kind and its sub-resources): an in-process server
 * with RBAC (`--group-domain=k8s.io`) and static-token users, and one under `platform.io` for the
 * documents' signer names.
 *
 * Covered: create fills username/uid/groups/extra from the requester (after impersonation) and ignores the
 * body's; `/approval` and `/status` (each writes its part, managedFields per sub-resource); the
 * CertificateApproval and CertificateSigning plugins with RBAC-limited users (`approve` / `sign` on
 * `signers` by name or `<domain>/*`, Kubernetes' Forbidden messages); CertificateSubjectRestriction; the
 * `spec.signerName` field selector on lists and watches; the Table; discovery and OpenAPI of `approval`;
 * delete answers a Status; the signer names of both domains.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { b64, certificatePem, csrPem } from '../../apiserver/registry/kinds/certificates/testing.js';
import { clusterRole, clusterRoleBinding, RBAC, rule, U } from '../harness/rbac-objects.js';
import { eventually, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest, backends, type ApiRequestOptions, type ApiResponse } from './helpers.js';

afterAll(stopAll);

const CERTS = 'certificates.k8s.io';
const CSRS = `/apis/${CERTS}/v1/certificatesigningrequests`;
const SIGNER = 'example.com/my-signer';
const OTHER_SIGNER = 'other.example.org/signer';

const USERS = ['carol', 'ava', 'wally', 'nobody', 'sid', 'nosign'];
const tokenFile = ['admin-token,admin,admin-uid,"system:masters"', ...USERS.map((u) => `${u}-token,${u},${u}-uid,"staff"`)].join('\n');

let server: RunningServer;
let pem = '';
let cert = '';

function send(who: string, method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> {
  return apiRequest({ url: server.url, ca: server.caPem! }, method, path, { ...o, token: `${who}-token` });
}
async function must(res: Promise<ApiResponse>, status: number): Promise<ApiResponse> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text()}`);
  return r;
}

const csr = (name: string, signerName = SIGNER, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${CERTS}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: b64(pem), signerName, usages: ['digital signature', 'client auth'], ...extra },
});
let n = 0;
const fresh = () => `csr-${++n}`;
const create = async (signerName = SIGNER) => (await must(send('carol', 'POST', CSRS, { body: csr(fresh(), signerName) }), 201)).json();
const approved = { type: 'Approved', status: 'True', reason: 'Test', message: 'ok' };
const withConditions = (obj: any, conditions: unknown[]) => ({ ...obj, status: { ...obj.status, conditions } });

const ROLES = [
  clusterRole('csr-requester', [rule(['create', 'get', 'list', 'watch'], [CERTS], ['certificatesigningrequests'])]),
  clusterRole('csr-approval-writer', [rule(['get', 'update', 'patch'], [CERTS], ['certificatesigningrequests/approval'])]),
  clusterRole('csr-status-writer', [rule(['get', 'update', 'patch'], [CERTS], ['certificatesigningrequests/status'])]),
  clusterRole('approve-my-signer', [rule(['approve'], [CERTS], ['signers'], [SIGNER])]),
  clusterRole('approve-example-com', [rule(['approve'], [CERTS], ['signers'], ['example.com/*'])]),
  clusterRole('sign-my-signer', [rule(['sign'], [CERTS], ['signers'], [SIGNER])]),
];
const BINDINGS = [
  clusterRoleBinding('csr-requester', 'csr-requester', [...USERS, 'ivan'].map(U)),
  clusterRoleBinding('csr-approval-writer', 'csr-approval-writer', ['ava', 'wally', 'nobody'].map(U)),
  clusterRoleBinding('csr-status-writer', 'csr-status-writer', ['sid', 'nosign'].map(U)),
  clusterRoleBinding('approve-my-signer', 'approve-my-signer', [U('ava')]),
  clusterRoleBinding('approve-example-com', 'approve-example-com', [U('wally')]),
  clusterRoleBinding('sign-my-signer', 'sign-my-signer', [U('sid')]),
];

beforeAll(async () => {
  [pem, cert] = await Promise.all([csrPem('CN=carol, O=staff'), certificatePem('CN=carol')]);
  const file = join(tempDir(), 'tokens.csv');
  writeFileSync(file, `${tokenFile}\n`);
  server = await startTestServer({ tokenAuthFile: file, authorizationModes: ['RBAC'], groupDomain: 'k8s.io' });
  for (const o of ROLES) await must(send('admin', 'POST', `/apis/${RBAC}/v1/clusterroles`, { body: o }), 201);
  for (const o of BINDINGS) await must(send('admin', 'POST', `/apis/${RBAC}/v1/clusterrolebindings`, { body: o }), 201);
  // The authorizer follows the RBAC watch caches: wait until the last binding is in force.
  await eventually(async () => (await send('sid', 'GET', `${CSRS}/none/status`)).status === 404, 'the RBAC bindings to reach the authorizer');
}, 60_000);

describe('CertificateSigningRequest (k8s.io, RBAC)', () => {
  test('create: the requester fills username, uid and groups; the body\'s are ignored', async () => {
    const body = csr(fresh(), SIGNER, { username: 'mallory', uid: 'u0', groups: ['system:masters'], extra: { a: ['b'] } });
    const obj = (await must(send('carol', 'POST', CSRS, { body }), 201)).json();
    expect(obj.spec).toMatchObject({ username: 'carol', uid: 'carol-uid', groups: ['staff', 'system:authenticated'] });
    expect(obj.spec.extra).toBeUndefined();
    expect(obj.status).toEqual({});
  });

  test('create after impersonation: the impersonated user and extra', async () => {
    const obj = (await must(send('admin', 'POST', CSRS, {
      body: csr(fresh()),
      headers: { 'Impersonate-User': 'ivan', 'Impersonate-Group': 'ops', 'Impersonate-Extra-Scopes': 'view' },
    }), 201)).json();
    expect(obj.spec).toMatchObject({ username: 'ivan', groups: ['ops', 'system:authenticated'], extra: { scopes: ['view'] } });
  });

  test('invalid requests are 422 with Kubernetes\' messages', async () => {
    const res = await send('carol', 'POST', CSRS, { body: csr(fresh(), 'kubernetes.io/legacy-unknown', { usages: ['fly'], expirationSeconds: 60 }) });
    expect(res.status).toBe(422);
    expect(res.json().details.causes.map((c: any) => `${c.field}: ${c.message}`)).toEqual([
      expect.stringMatching(/^spec\.usages\[0\]: Unsupported value: "fly": supported values: "any", /),
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
    const bad = await send('carol', 'POST', CSRS, { body: csr(fresh(), SIGNER, { request: b64('junk') }) });
    expect([bad.status, bad.json().details.causes[0].message]).toEqual([422, 'Invalid value: []byte{0x6a, 0x75, 0x6e, 0x6b}: PEM block type must be CERTIFICATE REQUEST']);
  });

  test('approval: approve on the signer name, or on <domain>/*; others are forbidden with Kubernetes\' message', async () => {
    const a = await create();
    expect((await must(send('ava', 'GET', `${CSRS}/${a.metadata.name}/approval`), 200)).json().metadata.uid).toBe(a.metadata.uid);
    const denied = await send('nobody', 'PUT', `${CSRS}/${a.metadata.name}/approval`, { body: withConditions(a, [approved]) });
    expect([denied.status, denied.json().message]).toEqual([
      403,
      `certificatesigningrequests.${CERTS} "${a.metadata.name}" is forbidden: user not permitted to approve requests with signerName "${SIGNER}"`,
    ]);
    const ok = (await must(send('ava', 'PUT', `${CSRS}/${a.metadata.name}/approval`, { body: withConditions(a, [approved]) }), 200)).json();
    expect(ok.status.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True', reason: 'Test', lastUpdateTime: expect.any(String), lastTransitionTime: expect.any(String) })]);
    expect(ok.metadata.managedFields.map((m: any) => m.subresource ?? '')).toEqual(['', 'approval']);
    // ava may approve only example.com/my-signer; wally any example.com/* signer, by strategic merge patch.
    const b = await create('example.com/another');
    expect((await send('ava', 'PUT', `${CSRS}/${b.metadata.name}/approval`, { body: withConditions(b, [approved]) })).status).toBe(403);
    const patched = await must(send('wally', 'PATCH', `${CSRS}/${b.metadata.name}/approval`, {
      body: { status: { conditions: [{ type: 'Denied', status: 'True', reason: 'No' }] } },
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    }), 200);
    expect(patched.json().status.conditions.map((c: any) => c.type)).toEqual(['Denied']);
    const c = await create(OTHER_SIGNER);
    expect((await send('wally', 'PUT', `${CSRS}/${c.metadata.name}/approval`, { body: withConditions(c, [approved]) })).status).toBe(403);
    // Writing /approval needs the sub-resource's own RBAC verb: carol may not update it at all.
    expect((await send('carol', 'PUT', `${CSRS}/${c.metadata.name}/approval`, { body: withConditions(c, [approved]) })).status).toBe(403);
    // A denied request cannot be approved as well.
    const both = await send('wally', 'PUT', `${CSRS}/${b.metadata.name}/approval`, { body: withConditions(patched.json(), [...patched.json().status.conditions, approved]) });
    expect([both.status, both.json().details.causes[0].message]).toEqual([422, 'Invalid value: "Approved": Approved and Denied conditions are mutually exclusive']);
  });

  test('approval by server-side apply (managedFields under sub-resource approval); a dry run stores nothing', async () => {
    const a = await create();
    const path = `${CSRS}/${a.metadata.name}/approval`;
    const config = JSON.stringify({ apiVersion: `${CERTS}/v1`, kind: 'CertificateSigningRequest', metadata: { name: a.metadata.name }, status: { conditions: [approved] } });
    const headers = { 'Content-Type': 'application/apply-patch+yaml' };
    const dry = (await must(send('ava', 'PATCH', path, { body: config, headers, query: { fieldManager: 'approver', dryRun: 'All' } }), 200)).json();
    expect(dry.status.conditions.map((c: any) => c.type)).toEqual(['Approved']);
    expect((await must(send('carol', 'GET', `${CSRS}/${a.metadata.name}`), 200)).json().status).toEqual({});
    const applied = (await must(send('ava', 'PATCH', path, { body: config, headers, query: { fieldManager: 'approver' } }), 200)).json();
    expect(applied.status.conditions).toEqual([expect.objectContaining({ type: 'Approved', reason: 'Test' })]);
    expect(applied.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'approver', operation: 'Apply', subresource: 'approval' }));
    // The same apply by a user without approve on the signer is refused.
    expect((await send('nobody', 'PATCH', path, { body: config, headers, query: { fieldManager: 'approver', force: 'true' } })).status).toBe(403);
  });

  test('status: setting the certificate needs sign on the signer; conditions alone do not', async () => {
    const a = await create();
    const ok = (await must(send('ava', 'PUT', `${CSRS}/${a.metadata.name}/approval`, { body: withConditions(a, [approved]) }), 200)).json();
    const body = { ...ok, status: { ...ok.status, certificate: b64(cert) } };
    const refused = await send('nosign', 'PUT', `${CSRS}/${a.metadata.name}/status`, { body });
    expect([refused.status, refused.json().message]).toEqual([
      403,
      `certificatesigningrequests.${CERTS} "${a.metadata.name}" is forbidden: user not permitted to sign requests with signerName "${SIGNER}"`,
    ]);
    // A Failed condition without a certificate: no sign check.
    const failedBody = { ...ok, status: { conditions: [...ok.status.conditions, { type: 'Failed', status: 'True', reason: 'Nope' }] } };
    const other = await create();
    await must(send('ava', 'PUT', `${CSRS}/${other.metadata.name}/approval`, { body: withConditions(other, [approved]) }), 200);
    const failed = (await must(send('nosign', 'PUT', `${CSRS}/${other.metadata.name}/status`, { body: { ...failedBody, metadata: { name: other.metadata.name } } }), 200)).json();
    expect(failed.status.conditions.map((c: any) => c.type)).toEqual(['Approved', 'Failed']);
    const issued = (await must(send('sid', 'PUT', `${CSRS}/${a.metadata.name}/status`, { body }), 200)).json();
    expect(Buffer.from(issued.status.certificate, 'base64').toString()).toBe(cert);
    expect(issued.metadata.managedFields.map((m: any) => m.subresource ?? '')).toEqual(['', 'approval', 'status']);
    // Immutable once set.
    const again = await send('sid', 'PUT', `${CSRS}/${a.metadata.name}/status`, { body: { ...issued, status: { ...issued.status, certificate: b64(`${cert}${cert}`) } } });
    expect([again.status, again.json().details.causes[0].message]).toEqual([422, 'Forbidden: updates may not modify existing certificate content']);
    // The table shows it issued.
    const table = (await must(send('carol', 'GET', `${CSRS}/${a.metadata.name}`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }), 200)).json();
    expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    expect(table.rows[0].cells).toEqual([a.metadata.name, expect.any(String), SIGNER, 'carol', '<none>', 'Approved,Issued']);
  });

  test('field selector spec.signerName: list and watch', async () => {
    const watch = send('carol', 'GET', CSRS, { query: { watch: '1', fieldSelector: `spec.signerName=${OTHER_SIGNER}`, timeoutSeconds: '2' } });
    await create(SIGNER);
    const mine = await create(OTHER_SIGNER);
    const list = (await must(send('carol', 'GET', CSRS, { query: { fieldSelector: `spec.signerName=${OTHER_SIGNER}` } }), 200)).json();
    expect(list.items.length).toBeGreaterThan(0);
    expect(list.items.every((i: any) => i.spec.signerName === OTHER_SIGNER)).toBe(true);
    expect(list.items.map((i: any) => i.metadata.name)).toContain(mine.metadata.name);
    const events = (await watch).text().trim().split('\n').map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e: any) => e.object.spec.signerName === OTHER_SIGNER)).toBe(true);
    expect(events.map((e: any) => e.object.metadata.name)).toContain(mine.metadata.name);
    expect((await send('carol', 'GET', CSRS, { query: { fieldSelector: 'spec.usages=x' } })).status).toBe(400);
  });

  test('delete answers a Status', async () => {
    const a = await create();
    const res = await must(send('admin', 'DELETE', `${CSRS}/${a.metadata.name}`), 200);
    expect(res.json()).toMatchObject({ kind: 'Status', status: 'Success' });
  });

  test('discovery lists approval and status; OpenAPI publishes the approval path', async () => {
    const d = (await must(send('admin', 'GET', `/apis/${CERTS}/v1`), 200)).json();
    const byName = new Map(d.resources.map((r: any) => [r.name, r]));
    expect(byName.get('certificatesigningrequests')).toMatchObject({ kind: 'CertificateSigningRequest', namespaced: false, shortNames: ['csr'] });
    expect((byName.get('certificatesigningrequests/approval') as any).verbs).toEqual(['get', 'patch', 'update']);
    expect((byName.get('certificatesigningrequests/status') as any).verbs).toEqual(['get', 'patch', 'update']);
    const v3 = (await must(send('admin', 'GET', `/openapi/v3/apis/${CERTS}/v1`), 200)).json();
    const approval = v3.paths[`/apis/${CERTS}/v1/certificatesigningrequests/{name}/approval`];
    expect(Object.keys(approval).filter((k) => ['get', 'put', 'patch'].includes(k)).sort()).toEqual(['get', 'patch', 'put']);
    expect(approval.put.operationId).toBe('replaceCertificatesV1CertificateSigningRequestApproval');
    // Other verbs of the sub-resource are 405; other sub-resources 404.
    const a = await create();
    expect((await send('admin', 'DELETE', `${CSRS}/${a.metadata.name}/approval`)).status).toBe(405);
    expect((await send('admin', 'GET', `${CSRS}/${a.metadata.name}/sign`)).status).toBe(404);
  });

  test('subject restriction: the API server client signer with system:masters is refused', async () => {
    pem = await csrPem('CN=root, O=system:masters');
    try {
      const res = await send('carol', 'POST', CSRS, { body: csr('masters', 'kubernetes.io/kube-apiserver-client') });
      expect([res.status, res.json().message]).toEqual([
        403,
        `certificatesigningrequests.${CERTS} "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed`,
      ]);
      await must(send('carol', 'POST', CSRS, { body: csr(fresh(), 'kubernetes.io/kube-apiserver-client-kubelet') }), 201);
    } finally {
      pem = await csrPem('CN=carol, O=staff');
    }
  });
});

describe('CertificateSigningRequest (platform.io): the documents\' signer names', () => {
  test('well-known and legacy names follow the domain', async () => {
    const memory = backends().find((b) => b.name === 'memory') ?? backends()[0]!;
    const api = await memory.start({ groupDomain: 'platform.io' });
    const req = (method: string, path: string, o: ApiRequestOptions = {}) => api.request(method, path, o);
    try {
    const base = '/apis/certificates.platform.io/v1/certificatesigningrequests';
    const body = (name: string, signerName: string) => ({ ...csr(name, signerName), apiVersion: 'certificates.platform.io/v1' });
    for (const s of ['platform.io/apiserver-client', 'platform.io/apiserver-client-nodeagent', 'platform.io/nodeagent-serving']) {
      expect((await req('POST', base, { body: body(fresh(), s) })).status).toBe(201);
    }
    const legacy = await req('POST', base, { body: body(fresh(), 'platform.io/legacy-unknown') });
    expect([legacy.status, legacy.json().details.causes[0].message]).toEqual([422, 'Invalid value: "platform.io/legacy-unknown": the legacy signerName is not allowed via this API version']);
    // Kubernetes' legacy name is an ordinary custom signer here.
    expect((await req('POST', base, { body: body(fresh(), 'kubernetes.io/legacy-unknown') })).status).toBe(201);
    } finally {
      await memory.stop();
    }
  });
});
