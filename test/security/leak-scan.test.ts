/**
 * Issue 18, "no token, key, Secret value or password appears in logs, audit, metrics or traces": servers
 * as talkative as they get (logging at trace, every request traced to an in-test OTLP receiver, an audit
 * log under three policies: Metadata for everything; RequestResponse for everything but Secrets, which stay
 * at Metadata; RequestResponse for everything, Secrets included, where the server's redaction is all that
 * stands between a Secret and the file) run a workload over every path that carries a secret:
 *
 * - Secrets with canary values (plain, base64, binary, stringData) through create, update, merge / JSON /
 *   strategic patches, server-side apply, get, list and watch; a refused write; a `kubernetes.io/tls`
 *   Secret holding a real private key; a kubeconfig with a token and a client key, in a Secret;
 * - a service account's TokenRequest and the JWT used as a bearer token (and a tampered one); a TokenReview
 *   of valid and invalid tokens; a bootstrap token Secret and the bootstrap token used (and a wrong one);
 * - static bearer tokens (valid, invalid, of a user without rights), a Basic credential, a credential in
 *   Proxy-Authorization, Cookie and X-Api-Key headers, impersonation (allowed and refused);
 * - a CertificateSigningRequest (its private key never leaves the test) and a credential in the query
 *   string of a get and of a watch.
 *
 * Then the server's log lines, this process's stdout/stderr, the audit log, /metrics and every span the
 * receiver got are searched for each canary and each key the harness knows (the token file, the server's
 * private keys under pki/): no hit. The scanner is proven able to find them: the Secret read back, the
 * watch stream and the TokenRequest answer (deliveries, not leaks) do contain the canaries; a ConfigMap's
 * value is found in the audit log exactly under the RequestResponse policies; the spans and logs name the
 * requests they describe.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { auditLogDefaults, loadPolicyFile } from '../../apiserver/config/audit-flags.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { eventually, memoryLogger, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { startOtlpReceiver, type OtlpReceiver } from '../tracing/otlp-receiver.js';
import { describeHits, scan, type Text } from './leak-scanner.js';
import { closeAgents, send, type Call, type Response } from './route-table.js';

const hex = (n: number): string => randomBytes(n).toString('hex');
const alnum = (n: number): string => [...randomBytes(n)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

const POLICIES: Record<string, (domain: string) => string> = {
  'Metadata': (d) => `apiVersion: audit.${d}/v1\nkind: Policy\nrules:\n- level: Metadata\n`,
  'RequestResponse, Secrets at Metadata': (d) => `apiVersion: audit.${d}/v1\nkind: Policy\nrules:
- level: Metadata
  resources: [{group: "", resources: [secrets]}]
- level: RequestResponse
`,
  'RequestResponse for everything': (d) => `apiVersion: audit.${d}/v1\nkind: Policy\nrules:\n- level: RequestResponse\n`,
};

const DOMAIN = 'platform.io';
const AUTHN = `authentication.${DOMAIN}`;
const SYSTEM_NS = 'platform-system';

afterAll(async () => {
  closeAgents();
  await stopAll();
});

/** Reads a watch until `until` is in what arrived (or 10 s), then drops the connection; the text. */
function readWatch(url: string, ca: string, token: string, path: string, until: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = request(new URL(path, url), { ca, agent: false, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      const timer = setTimeout(() => { req.destroy(); resolve(text); }, 10_000);
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (text.includes(until)) { clearTimeout(timer); req.destroy(); resolve(text); }
      });
      res.on('end', () => { clearTimeout(timer); resolve(text); });
    });
    req.on('error', (err) => (text === '' ? reject(err) : resolve(text)));
    req.end();
  });
}

/** An EC key and a CSR for it (openssl); the key's PEM body lines are secrets. */
function keyAndCsr(dir: string): { key: string; csr: string } {
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', join(dir, 'csr.key'), '-subj', '/CN=leak-test/O=leaks', '-out', join(dir, 'csr.pem')], { stdio: 'ignore' });
  return { key: readFileSync(join(dir, 'csr.key'), 'utf8'), csr: readFileSync(join(dir, 'csr.pem'), 'utf8') };
}

const pemLines = (pem: string): string[] => pem.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'));

describe.each(Object.keys(POLICIES))('audit policy "%s", trace logging, every request traced', (policyName) => {
  const rr = policyName !== 'Metadata';
  const adminToken = `adm-${hex(20)}`;
  const aliceToken = `ali-${hex(20)}`;
  const wrongToken = `bad-${hex(20)}`;
  const bootId = alnum(6);
  const bootSecret = alnum(16);
  const wrongBootSecret = alnum(16);
  const c = {
    data: `cnry-data-${hex(12)}`,
    binary: randomBytes(24),
    stringData: `cnry-sd-${hex(12)}`,
    put: `cnry-put-${hex(12)}`,
    merge: `cnry-merge-${hex(12)}`,
    json: `cnry-json-${hex(12)}`,
    smp: `cnry-smp-${hex(12)}`,
    apply: `cnry-apply-${hex(12)}`,
    rejected: `cnry-rejected-${hex(12)}`,
    kubeToken: `cnry-kubeconfig-token-${hex(12)}`,
    kubeKey: `cnry-kubeconfig-key-${hex(12)}`,
    basic: `cnry-basic-pw-${hex(12)}`,
    cookie: `cnry-cookie-${hex(12)}`,
    apiKey: `cnry-apikey-${hex(12)}`,
    proxyAuth: `cnry-proxy-${hex(12)}`,
    query: `cnry-query-${hex(12)}`,
    reviewed: `cnry-reviewed-${hex(12)}`,
  };
  const visible = `visible-${hex(12)}`; // a ConfigMap value: not a secret, audited at RequestResponse
  const ns = 'leaks';

  let server: RunningServer;
  let dir: string;
  let receiver: OtlpReceiver;
  let log: ReturnType<typeof memoryLogger>;
  let auditPath: string;
  const stdio: string[] = [];
  const delivered: Text[] = [];
  const secrets = new Map<string, string>();

  const s = () => ({ url: server.url, ca: server.caPem! });
  const call = (token: string | null, cl: Call): Promise<Response> => send(s(), token, cl);
  const admin = (cl: Call) => call(adminToken, cl);
  async function must(p: Promise<Response>, status: number): Promise<Response> {
    const r = await p;
    if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.body.slice(0, 300)}`);
    return r;
  }
  const secretPath = (name = '') => `/api/v1/namespaces/${ns}/secrets${name === '' ? '' : `/${name}`}`;
  const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64');

  const original = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  beforeAll(async () => {
    for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]] as const) {
      const write = name === 'stdout' ? original.out : original.err;
      (stream as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
        stdio.push(String(chunk));
        return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
      };
    }
    dir = tempDir('leak-scan-');
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, `${adminToken},admin,admin-uid,"system:masters"\n${aliceToken},alice,alice-uid\n`);
    writeFileSync(join(dir, 'policy.yaml'), POLICIES[policyName]!(DOMAIN));
    mkdirSync(join(dir, 'audit'));
    auditPath = join(dir, 'audit', 'audit.log');
    receiver = await startOtlpReceiver();
    log = memoryLogger('trace');
    server = await startTestServer({
      dataDir: dir,
      tokenAuthFile: tokens,
      enableBootstrapTokenAuth: true,
      audit: { ...auditLogDefaults, policy: loadPolicyFile(join(dir, 'policy.yaml'), DOMAIN), logPath: auditPath },
      tracing: { url: `${receiver.url}/v1/traces`, samplingRatePerMillion: 1_000_000 },
    }, { logger: log.logger });
    for (const [k, v] of Object.entries(c)) secrets.set(`canary ${k}`, typeof v === 'string' ? v : v.toString('base64'));
    secrets.set('token file: admin', adminToken);
    secrets.set('token file: alice', aliceToken);
    secrets.set('presented wrong token', wrongToken);
    secrets.set('bootstrap token secret', bootSecret);
    secrets.set('presented wrong bootstrap secret', wrongBootSecret);
    for (const f of readdirSync(join(dir, 'pki')).filter((n) => n.endsWith('.key'))) {
      pemLines(readFileSync(join(dir, 'pki', f), 'utf8')).forEach((l, i) => secrets.set(`pki/${f} line ${i + 1}`, l));
    }
    expect([...secrets.keys()].some((k) => k.startsWith('pki/sa.key'))).toBe(true);
  }, 60_000);
  afterAll(async () => {
    process.stdout.write = original.out;
    process.stderr.write = original.err;
    await receiver?.close();
  });

  it('runs every secret-bearing path, and no secret appears in logs, stdio, audit, metrics or spans', async () => {
    await must(admin({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
    await must(admin({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'visible' }, data: { v: visible } } }), 201);

    // Secrets through every write verb, then read back three ways.
    await must(admin({ method: 'POST', path: secretPath(), body: {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' },
      data: { password: b64(c.data), blob: c.binary.toString('base64') }, stringData: { other: c.stringData },
    } }), 201);
    await must(admin({ method: 'PUT', path: secretPath('creds'), body: {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: b64(c.put), blob: c.binary.toString('base64') },
    } }), 200);
    await must(admin({ method: 'PATCH', path: secretPath('creds'), body: { data: { merged: b64(c.merge) } } }), 200);
    await must(admin({ method: 'PATCH', path: secretPath('creds'), headers: { 'Content-Type': 'application/json-patch+json' },
      body: [{ op: 'add', path: '/data/jsonpatched', value: b64(c.json) }] }), 200);
    await must(admin({ method: 'PATCH', path: secretPath('creds'), headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      body: { stringData: { smp: c.smp } } }), 200);
    await must(admin({ method: 'PATCH', path: `${secretPath('applied')}?fieldManager=leaks`, headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: applied\nstringData:\n  applied: ${c.apply}\n` }), 201);
    // Refused writes: a value that is not base64, an invalid key.
    await admin({ method: 'POST', path: secretPath(), body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad1' }, data: { k: `!!${c.rejected}` } } });
    await admin({ method: 'POST', path: secretPath(), body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad2' }, data: { 'in valid': b64(c.rejected) } } });
    await admin({ method: 'POST', path: secretPath(), body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bad3"},"stringData":{"k":"${c.rejected}"` });

    // A TLS Secret with a real private key, a kubeconfig in a Secret.
    const { key, csr } = keyAndCsr(dir);
    pemLines(key).forEach((l, i) => secrets.set(`TLS/CSR private key line ${i + 1}`, l));
    const kubeconfig = `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${c.kubeToken}\n    client-key-data: ${b64(c.kubeKey)}\n`;
    secrets.set('kubeconfig, base64', b64(kubeconfig));
    const serving = readFileSync(join(dir, 'pki', readdirSync(join(dir, 'pki')).find((f) => f.endsWith('.crt'))!), 'utf8');
    await must(admin({ method: 'POST', path: secretPath(), body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls' }, type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(serving), 'tls.key': b64(key) } } }), 201);
    await must(admin({ method: 'POST', path: secretPath(), body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kubeconfig' }, data: { config: b64(kubeconfig) } } }), 201);

    const got = await must(admin({ method: 'GET', path: secretPath('creds') }), 200);
    delivered.push({ where: 'Secret GET response', text: got.body });
    delivered.push({ where: 'Secret list response', text: (await must(admin({ method: 'GET', path: secretPath() }), 200)).body });
    delivered.push({ where: 'Secret watch stream', text: await readWatch(server.url, server.caPem!, adminToken, `${secretPath()}?watch=true`, b64(c.json)) });

    // Service account token: TokenRequest, use, tampering, review.
    await must(admin({ method: 'POST', path: `/api/v1/namespaces/${ns}/serviceaccounts`, body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } }), 201);
    const tr = await must(admin({ method: 'POST', path: `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, body: { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec: {} } }), 201);
    delivered.push({ where: 'TokenRequest response', text: tr.body });
    const jwt: string = JSON.parse(tr.body).status.token;
    secrets.set('service account JWT', jwt);
    secrets.set('service account JWT signature', jwt.split('.')[2]!);
    expect((await call(jwt, { method: 'GET', path: `/api/v1/namespaces/${ns}/configmaps` })).status).toBe(403); // authenticated, no rights
    const tampered = `${jwt.slice(0, -6)}AAAAAA`;
    expect((await call(tampered, { method: 'GET', path: '/api' })).status).toBe(401);
    for (const token of [jwt, c.reviewed]) {
      await must(admin({ method: 'POST', path: `/apis/${AUTHN}/v1/tokenreviews`, body: { apiVersion: `${AUTHN}/v1`, kind: 'TokenReview', spec: { token } } }), 201);
    }

    // Bootstrap token: the Secret, then the token (awaited: the authenticator follows the Secrets' cache).
    await must(admin({ method: 'POST', path: `/api/v1/namespaces/${SYSTEM_NS}/secrets`, body: {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${bootId}` }, type: `bootstrap.${DOMAIN}/token`,
      stringData: { 'token-id': bootId, 'token-secret': bootSecret, 'usage-bootstrap-authentication': 'true' },
    } }), 201);
    await eventually(async () => (await call(`${bootId}.${bootSecret}`, { method: 'GET', path: '/api' })).status === 200, 'the bootstrap token to authenticate');
    expect((await call(`${bootId}.${wrongBootSecret}`, { method: 'GET', path: '/api' })).status).toBe(401);

    // Static tokens and credentials in other headers.
    expect((await call(wrongToken, { method: 'GET', path: '/api' })).status).toBe(401);
    expect((await call(aliceToken, { method: 'GET', path: secretPath() })).status).toBe(403);
    expect((await call(null, { method: 'GET', path: '/api', headers: { Authorization: `Basic ${b64(`alice:${c.basic}`)}` } })).status).toBeGreaterThanOrEqual(401);
    await call(adminToken, { method: 'GET', path: '/api', headers: { Cookie: `session=${c.cookie}`, 'X-Api-Key': c.apiKey, 'Proxy-Authorization': `Bearer ${c.proxyAuth}` } });
    expect((await admin({ method: 'GET', path: secretPath(), headers: { 'Impersonate-User': 'alice' } })).status).toBe(403);
    expect((await call(aliceToken, { method: 'GET', path: '/api', headers: { 'Impersonate-User': 'admin', 'Impersonate-Group': 'system:masters' } })).status).toBe(403);

    // A CSR (the request is public; its key stays here).
    await must(admin({ method: 'POST', path: `/apis/certificates.${DOMAIN}/v1/certificatesigningrequests`, body: {
      apiVersion: `certificates.${DOMAIN}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'leaks' },
      spec: { request: b64(csr), signerName: `example.com/leaks`, usages: ['client auth'] },
    } }), 201);

    // Credentials in query strings (scripts do this; the server ignores such parameters).
    await admin({ method: 'GET', path: `/api/v1/namespaces/${ns}/configmaps?access_token=${c.query}&token=${c.query}` });
    await readWatch(server.url, server.caPem!, adminToken, `/api/v1/namespaces/${ns}/configmaps?watch=true&password=${c.query}`, visible);
    await call(c.query, { method: 'GET', path: `/version?apikey=${c.query}` });

    // A marker request, whose span and audit event prove both outputs caught up.
    const marker = await must(admin({ method: 'GET', path: `/api/v1/namespaces/${ns}/configmaps/visible` }), 200);
    const markerId = String(marker.headers['audit-id']);
    await receiver.waitFor((spans) => spans.some((sp) => sp.attributes['audit-id'] === markerId), 15_000);
    const metrics = await must(admin({ method: 'GET', path: '/metrics' }), 200);
    await eventually(async () => readFileSync(auditPath, 'utf8').includes(`"auditID":"${markerId}","stage":"ResponseComplete"`), 'the marker audit event');

    const texts: Text[] = [
      { where: 'server log', text: log.lines().join('\n') },
      { where: 'stdout/stderr', text: stdio.join('') },
      { where: `audit log ${auditPath}`, text: readFileSync(auditPath, 'utf8') },
      { where: '/metrics', text: metrics.body },
      { where: 'spans', text: receiver.spans().map((sp) => JSON.stringify(sp, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).join('\n') },
    ];

    // The scanner works: deliveries carry the canaries; each output carries what it should.
    const deliveredHits = new Set(scan(delivered, secrets).map((h) => h.secret));
    for (const k of ['canary put', 'canary merge', 'canary json', 'canary smp', 'canary binary', 'service account JWT']) expect(deliveredHits).toContain(k);
    const auditHasVisible = texts[2]!.text.includes(visible);
    expect(auditHasVisible).toBe(rr);
    expect(texts[0]!.text).toContain(`/api/v1/namespaces/${ns}/secrets`);
    expect(texts[4]!.text).toContain(markerId);
    expect(texts[3]!.text).toContain('apiserver_request_total');
    if (policyName === 'RequestResponse for everything') {
      // The apply patch is audited as the object it is (redacted), not the parser's wrapper around it.
      const applied = texts[2]!.text.split('\n').filter((l) => l.includes('/secrets/applied?') && l.includes('"ResponseComplete"')).map((l) => JSON.parse(l));
      expect(applied).toHaveLength(1);
      expect(applied[0].requestObject).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'applied' }, stringData: { applied: '<redacted>' } });
    }
    // A credential in a query string is kept out of the audit log and spans, the other parameters stay.
    expect(texts[4]!.text).toContain('access_token=[REDACTED]&token=[REDACTED]');

    expect(describeHits(scan(texts, secrets))).toEqual([]);
  }, 90_000);
});
