/**
 * csrapproving and csrsigning end to end on real servers, the node agent played by Node's crypto
 * (a P-256 key and a PKCS#10 request made with WebCrypto):
 *
 * - a node (static token user `system:node:n1` in `system:nodes`, allowed `selfnodeclient`) asks for a
 *   client certificate of the node-agent client signer: the request is Approved (AutoApproved, the self
 *   message) and gets a certificate, awaited on a watch of the request; the certificate's validity is the
 *   asked expirationSeconds (kube's 5-minute backdating of notBefore), it chains to the generated signing
 *   CA, and a request made with it authenticates as `system:node:n1` in `system:nodes` (SelfSubjectReview);
 * - a bootstrapper allowed `nodeclient` gets another node's request approved with the node-client message;
 *   a requester allowed neither stays pending, and a request of another signer is never auto-approved;
 * - an admin-approved node-agent request that breaks the signer's rules is Failed
 *   (SignerValidationFailure, kube's message) and gets no certificate;
 * - two replicas on one etcd, sharing the signing files: exactly one replica issues each certificate (the
 *   leader), seen in the replicas' logs; the leader stopping right after six requests were created loses
 *   none of them (the other replica takes the lease and issues the rest, each once).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { makeCsr } from '../../apiserver/controllers/certificates/testing-csr.js';
import type { ServerConfig } from '../../apiserver/config/server-config.js';
import { startServer, type RunningServer } from '../../apiserver/server/start-server.js';
import { generateCa } from '../../apiserver/tls/generate-certs.js';
import { signingCaPaths } from '../../apiserver/tls/signing-material.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { memoryLogger, stopAll, tempDir, testConfig, startTestServer } from '../server/helpers.js';
import { apiRequest, type ApiResponse } from './helpers.js';
import { openWatch } from './watch-client.js';

const GROUP = 'certificates.platform.io';
const CSRS = `/apis/${GROUP}/v1/certificatesigningrequests`;
const RBAC = 'rbac.platform.io';
const NODE_CLIENT_SIGNER = 'platform.io/apiserver-client-nodeagent';
const CLIENT_SIGNER = 'platform.io/apiserver-client';

const TOKENS = { admin: 'admin-token-0123456789', n1: 'node-n1-token-0123456789', boot: 'bootstrap-token-0123456789', eve: 'eve-token-0123456789' };

type Json = Record<string, any>;

function tokenFile(dir: string): string {
  const file = join(dir, 'tokens.csv');
  writeFileSync(file, [
    `${TOKENS.admin},admin,uid-admin,"system:masters"`,
    `${TOKENS.n1},system:node:n1,uid-n1,"system:nodes"`,
    `${TOKENS.boot},bootstrapper,uid-boot,"system:bootstrappers"`,
    `${TOKENS.eve},eve,uid-eve,"devs"`,
  ].join('\n'));
  return file;
}

interface Api {
  readonly url: string;
  readonly ca: string;
  as(token: string): (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
}

function apiOf(server: RunningServer): Api {
  const ca = server.caPem!;
  return {
    url: server.url,
    ca,
    as: (token) => (method, path, body) => apiRequest({ url: server.url, ca, token }, method, path, body === undefined ? {} : { body: body as object }),
  };
}

function expectCode(res: ApiResponse, code: number, what: string): void {
  if (res.status !== code) throw new Error(`${what}: expected ${code}, got ${res.status} ${res.text()}`);
}

const binding = (name: string, role: string, groups: string[]): Json => ({
  apiVersion: `${RBAC}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
  subjects: groups.map((g) => ({ apiGroup: RBAC, kind: 'Group', name: g })),
});

/** kubeadm's bindings: nodes renew their own, bootstrappers ask for any node; both may create requests. */
async function bindNodeRoles(api: Api): Promise<void> {
  const admin = api.as(TOKENS.admin);
  for (const b of [
    binding('csr-create', 'system:node-bootstrapper', ['system:nodes', 'system:bootstrappers', 'devs']),
    binding('csr-selfnodeclient', `system:${GROUP}:certificatesigningrequests:selfnodeclient`, ['system:nodes']),
    binding('csr-nodeclient', `system:${GROUP}:certificatesigningrequests:nodeclient`, ['system:bootstrappers']),
  ]) expectCode(await admin('POST', `/apis/${RBAC}/v1/clusterrolebindings`, b), 201, `binding ${b.metadata.name}`);
}

const csrObject = (name: string, csrPem: string, signerName: string, usages: string[], expirationSeconds?: number): Json => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: Buffer.from(csrPem).toString('base64'), signerName, usages, ...(expirationSeconds === undefined ? {} : { expirationSeconds }) },
});

const conditionsOf = (o: Json): Json[] => o.status?.conditions ?? [];

/** Watches the request (as admin) until `pred` holds for it; returns that state. Bounded by the watch client's timeout. */
async function watchCsr(api: Api, name: string, start: () => Promise<void>, pred: (o: Json) => boolean, timeoutMs = 15_000): Promise<Json> {
  const w = await openWatch({ url: api.url, ca: api.ca, token: TOKENS.admin }, CSRS, { fieldSelector: `metadata.name=${name}` });
  try {
    expect(w.status).toBe(200);
    await start();
    const ev = await w.until((e) => (e.type === 'ADDED' || e.type === 'MODIFIED') && pred(e.object), timeoutMs);
    return ev.object;
  } finally {
    w.close();
  }
}

/** POST with a client certificate (no bearer token). */
function withClientCert(api: Api, certPem: string, keyPem: string, path: string, body: unknown): Promise<{ status: number; json: Json }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = httpsRequest(new URL(path, api.url), {
      method: 'POST', ca: api.ca, cert: certPem, key: keyPem, agent: false,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const whoamiBody = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };

describe('csrapproving and csrsigning (embedded store)', () => {
  let api: Api;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = tempDir('csr-controllers-');
    const server = await startTestServer({ dataDir, tokenAuthFile: tokenFile(dataDir) });
    api = apiOf(server);
    await bindNodeRoles(api);
  });
  afterAll(() => stopAll());

  it('a node gets its own client certificate approved and issued, and authenticates with it', async () => {
    const node = await makeCsr('CN=system:node:n1, O=system:nodes');
    const name = 'node-csr-n1';
    const issued = await watchCsr(api, name, async () => {
      expectCode(await api.as(TOKENS.n1)('POST', CSRS, csrObject(name, node.csrPem, NODE_CLIENT_SIGNER, ['digital signature', 'client auth'], 3600)), 201, 'creating the CSR');
    }, (o) => typeof o.status?.certificate === 'string');

    expect(issued.spec.username).toBe('system:node:n1');
    expect(conditionsOf(issued)).toEqual([expect.objectContaining({
      type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    })]);
    const certPem = Buffer.from(issued.status.certificate, 'base64').toString('utf8');
    const cert = new X509Certificate(certPem);
    expect(cert.subject).toBe('CN=system:node:n1\nO=system:nodes');
    // expirationSeconds 3600 (short-lived: notAfter not backdated), notBefore backdated 5 minutes.
    const lifetimeMs = new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime();
    expect(lifetimeMs).toBe(3600_000 + 5 * 60_000);
    expect(Math.abs(new Date(cert.validTo).getTime() - (Date.now() + 3600_000))).toBeLessThan(60_000);
    const signingCa = new X509Certificate(readFileSync(signingCaPaths(dataDir).cert, 'utf8'));
    expect(cert.verify(signingCa.publicKey)).toBe(true);

    const who = await withClientCert(api, certPem, node.keyPem, '/apis/authentication.platform.io/v1/selfsubjectreviews', whoamiBody);
    expect(who.status).toBe(201);
    expect(who.json.status.userInfo.username).toBe('system:node:n1');
    expect(who.json.status.userInfo.groups).toEqual(expect.arrayContaining(['system:nodes', 'system:authenticated']));
  });

  it('a bootstrapper allowed nodeclient gets a node request approved; other requesters and signers stay pending', async () => {
    const admin = api.as(TOKENS.admin);
    // Eve may create requests but is allowed neither nodeclient nor selfnodeclient; alice asks for another signer.
    const eve = await makeCsr('CN=system:node:n3, O=system:nodes');
    expectCode(await api.as(TOKENS.eve)('POST', CSRS, csrObject('a-eve-node-csr', eve.csrPem, NODE_CLIENT_SIGNER, ['digital signature', 'client auth'])), 201, 'eve CSR');
    const user = await makeCsr('CN=alice, O=devs');
    expectCode(await api.as(TOKENS.n1)('POST', CSRS, csrObject('a-n1-user-csr', user.csrPem, CLIENT_SIGNER, ['client auth'])), 201, 'client-signer CSR');

    // n1 may only renew its own: a request for another node's name stays pending.
    const other = await makeCsr('CN=system:node:n9, O=system:nodes');
    expectCode(await api.as(TOKENS.n1)('POST', CSRS, csrObject('a-n1-for-n9-csr', other.csrPem, NODE_CLIENT_SIGNER, ['digital signature', 'client auth'])), 201, 'n1 for n9');
    // nodeclient covers the node-agent client signer only: a node subject for the API server client signer stays pending.
    const wrongSigner = await makeCsr('CN=system:node:n5, O=system:nodes');
    expectCode(await api.as(TOKENS.boot)('POST', CSRS, csrObject('a-boot-client-signer-csr', wrongSigner.csrPem, CLIENT_SIGNER, ['digital signature', 'client auth'])), 201, 'boot client signer');

    const boot = await makeCsr('CN=system:node:n2, O=system:nodes');
    const approved = await watchCsr(api, 'z-boot-node-csr', async () => {
      expectCode(await api.as(TOKENS.boot)('POST', CSRS, csrObject('z-boot-node-csr', boot.csrPem, NODE_CLIENT_SIGNER, ['digital signature', 'key encipherment', 'client auth'])), 201, 'bootstrap CSR');
    }, (o) => typeof o.status?.certificate === 'string');
    expect(conditionsOf(approved)[0]).toMatchObject({ type: 'Approved', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' });
    // A pass handles the requests in name order: the one that approved z-boot-node-csr looked at these before it.
    for (const name of ['a-eve-node-csr', 'a-n1-user-csr', 'a-n1-for-n9-csr', 'a-boot-client-signer-csr']) {
      const got = await admin('GET', `${CSRS}/${name}`);
      expectCode(got, 200, name);
      expect(conditionsOf(got.json())).toEqual([]);
      expect(got.json().status?.certificate).toBeUndefined();
    }
  });

  it('an approved request breaking the signer rules is Failed with kube reason and message', async () => {
    const admin = api.as(TOKENS.admin);
    const bad = await makeCsr('CN=system:node:n4, O=system:nodes');
    const name = 'bad-usage-csr';
    expectCode(await admin('POST', CSRS, csrObject(name, bad.csrPem, NODE_CLIENT_SIGNER, ['digital signature', 'client auth', 'server auth'])), 201, 'bad CSR');
    const failed = await watchCsr(api, name, async () => {
      const current = (await admin('GET', `${CSRS}/${name}`)).json();
      current.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'AdminApproved', message: 'by hand' }] };
      expectCode(await admin('PUT', `${CSRS}/${name}/approval`, current), 200, 'approving');
    }, (o) => conditionsOf(o).some((c) => c.type === 'Failed'));
    expect(conditionsOf(failed).find((c) => c.type === 'Failed')).toMatchObject({
      status: 'True', reason: 'SignerValidationFailure', message: 'usages did not match [client auth digital signature key encipherment]',
    });
    expect(failed.status.certificate).toBeUndefined();
  });
});

describe('csrapproving and csrsigning under --group-domain=k8s.io', () => {
  afterAll(() => stopAll());

  it('a kubelet client request of kubernetes.io/kube-apiserver-client-kubelet is approved and issued', async () => {
    const dir = tempDir('csr-k8s-');
    const server = await startTestServer({ dataDir: dir, tokenAuthFile: tokenFile(dir), groupDomain: 'k8s.io' });
    const api = apiOf(server);
    const rbac = 'rbac.authorization.k8s.io';
    const admin = api.as(TOKENS.admin);
    for (const [name, role] of [['csr-create', 'system:node-bootstrapper'], ['csr-self', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient']] as const) {
      expectCode(await admin('POST', `/apis/${rbac}/v1/clusterrolebindings`, {
        apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: role }, subjects: [{ apiGroup: rbac, kind: 'Group', name: 'system:nodes' }],
      }), 201, name);
    }
    const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    const node = await makeCsr('CN=system:node:n1, O=system:nodes');
    const w = await openWatch({ url: api.url, ca: api.ca, token: TOKENS.admin }, csrs, { fieldSelector: 'metadata.name=kubelet-csr' });
    try {
      const body = csrObject('kubelet-csr', node.csrPem, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'key encipherment', 'client auth'], 1200);
      body.apiVersion = 'certificates.k8s.io/v1';
      expectCode(await api.as(TOKENS.n1)('POST', csrs, body), 201, 'kubelet CSR');
      const issued = (await w.until((e) => typeof e.object?.status?.certificate === 'string', 15_000)).object;
      expect(conditionsOf(issued)[0]).toMatchObject({ type: 'Approved', reason: 'AutoApproved' });
      const certPem = Buffer.from(issued.status.certificate, 'base64').toString('utf8');
      const cert = new X509Certificate(certPem);
      expect(new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()).toBe(1200_000 + 5 * 60_000);
      const who = await withClientCert(api, certPem, node.keyPem, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      expect(who.json.status.userInfo.username).toBe('system:node:n1');
    } finally {
      w.close();
    }
  });
});

const issuedBy = (lines: () => string[], name: string) => lines().filter((l) => l.includes('csrsigning: issued a certificate') && l.includes(`"${name}"`)).length;

describeEtcd('csrsigning on two replicas of one etcd', () => {
  let etcd: EtcdCluster;
  const replicas: { server: RunningServer; lines: () => string[] }[] = [];
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.server.close().catch(() => undefined)));
    await etcd?.stop();
    await stopAll();
  });

  it('exactly one replica issues each certificate', async () => {
    etcd = await startEtcd();
    const shared = tempDir('csr-replicas-');
    const ca = await generateCa('shared-signer');
    writeFileSync(join(shared, 'signer.crt'), ca.certPem);
    writeFileSync(join(shared, 'signer.key'), ca.keyPem, { mode: 0o600 });
    const base: Partial<ServerConfig> = {
      storage: { backend: 'etcd', endpoints: [...etcd.endpoints] },
      storagePrefix: `/registry-csr-${process.pid}`,
      tokenAuthFile: tokenFile(shared),
      clusterSigning: { durationMs: 8760 * 3_600_000, all: { certFile: join(shared, 'signer.crt'), keyFile: join(shared, 'signer.key') } },
    };
    for (let i = 0; i < 2; i += 1) {
      const log = memoryLogger('info');
      const server = await startServer(testConfig({ ...base, dataDir: tempDir(`csr-replica-${i}-`) }), { logger: log.logger });
      replicas.push({ server, lines: log.lines });
    }
    const [a, b] = replicas.map((r) => apiOf(r.server)) as [Api, Api];
    await bindNodeRoles(a);

    const names: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const name = `replica-csr-${i}`;
      names.push(name);
      const node = await makeCsr('CN=system:node:n1, O=system:nodes');
      // Alternate the replica the node talks to; the leader issues whichever.
      const via = i % 2 === 0 ? a : b;
      const issued = await watchCsr(via, name, async () => {
        expectCode(await via.as(TOKENS.n1)('POST', CSRS, csrObject(name, node.csrPem, NODE_CLIENT_SIGNER, ['digital signature', 'client auth'])), 201, name);
      }, (o) => typeof o.status?.certificate === 'string');
      expect(new X509Certificate(Buffer.from(issued.status.certificate, 'base64').toString('utf8')).verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
      // Either replica authenticates the certificate (the shared signing CA is both replicas' default client CA).
      const certPem = Buffer.from(issued.status.certificate, 'base64').toString('utf8');
      for (const r of [a, b]) {
        const who = await withClientCert(r, certPem, node.keyPem, '/apis/authentication.platform.io/v1/selfsubjectreviews', whoamiBody);
        expect(who.json.status?.userInfo?.username).toBe('system:node:n1');
      }
    }
    for (const name of names) {
      expect(replicas.map((r) => issuedBy(r.lines, name)).sort()).toEqual([0, 1]);
    }
  });

  it('the leader stopping mid-stream loses no request: the other replica takes over and issues the rest', async () => {
    const leaderIndex = replicas.findIndex((r) => r.lines().some((l) => l.includes('leading: starting the in-server controllers')));
    expect(leaderIndex).toBeGreaterThanOrEqual(0);
    const survivor = replicas[1 - leaderIndex]!;
    const api = apiOf(survivor.server);
    const names = Array.from({ length: 6 }, (_, i) => `failover-csr-${i}`);
    const w = await openWatch({ url: api.url, ca: api.ca, token: TOKENS.admin }, CSRS, { labelSelector: 'failover=yes' });
    expect(w.status).toBe(200);
    try {
      let closing: Promise<void> | undefined;
      for (const [i, name] of names.entries()) {
        // Stop the leader after half of the requests, while they are being approved and issued.
        if (i === names.length / 2) closing = replicas[leaderIndex]!.server.close();
        const node = await makeCsr('CN=system:node:n1, O=system:nodes');
        const body = csrObject(name, node.csrPem, NODE_CLIENT_SIGNER, ['digital signature', 'client auth']);
        body.metadata.labels = { failover: 'yes' };
        expectCode(await api.as(TOKENS.n1)('POST', CSRS, body), 201, name);
      }
      await closing;
      const certified = new Set<string>();
      await w.until((e) => {
        if (typeof e.object?.status?.certificate === 'string') certified.add(e.object.metadata.name);
        return certified.size === names.length;
      }, 30_000);
    } finally {
      w.close();
    }
    for (const name of names) {
      expect(replicas.map((r) => issuedBy(r.lines, name)).reduce((a, b) => a + b, 0)).toBe(1);
    }
    // At least the requests created after the leader stopped were issued by the survivor.
    expect(names.filter((n) => issuedBy(survivor.lines, n) === 1).length).toBeGreaterThanOrEqual(names.length / 2);
  });
});
