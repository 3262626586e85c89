/**
 * x509 client certificate authentication (`--client-ca-file`) over real TLS: the server asks for a client
 * certificate without requiring one; a certificate the client CA verifies (client auth usage, valid now,
 * possibly through an intermediate the client sends) authenticates as CN with the O values as groups;
 * an untrusted one (another CA, the serving CA), an expired one or one without the clientAuth usage is
 * 401 unless another authenticator (a bearer token) accepts the request; no certificate leaves bearer
 * tokens working; a verified certificate without a CN has no opinion. Certificates are made in the test
 * with @peculiar/x509.
 */
import { createHash, type webcrypto } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { subtle, x509 } from '../../apiserver/tls/crypto-provider.js';
import { startTestServer, stopAll, tempDir } from '../server/helpers.js';

type Keys = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;
interface Issued {
  readonly certPem: string;
  readonly keyPem: string;
  readonly keys: Keys;
  readonly cert: x509.X509Certificate;
}

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 86_400_000;

async function keyPem(k: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('pkcs8', k), 'PRIVATE KEY');
}

async function makeCa(cn: string, issuer?: Issued): Promise<Issued> {
  const keys = (await subtle.generateKey(alg, true, ['sign', 'verify'])) as Keys;
  const now = Date.now();
  const common = {
    serialNumber: Math.floor(Math.random() * 1e9).toString(16).padStart(8, '1'),
    notBefore: new Date(now - day),
    notAfter: new Date(now + 30 * day),
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  };
  const cert = issuer === undefined
    ? await x509.X509CertificateGenerator.createSelfSigned({ ...common, name: `CN=${cn}`, keys })
    : await x509.X509CertificateGenerator.create({ ...common, subject: `CN=${cn}`, issuer: issuer.cert.subject, publicKey: keys.publicKey, signingKey: issuer.keys.privateKey });
  return { cert, keys, certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

interface LeafOptions {
  readonly subject: string;
  readonly eku?: readonly string[] | null;
  readonly notAfter?: Date;
}

async function makeLeaf(ca: Issued, o: LeafOptions): Promise<Issued> {
  const keys = (await subtle.generateKey(alg, true, ['sign', 'verify'])) as Keys;
  const eku = o.eku === undefined ? [x509.ExtendedKeyUsage.clientAuth] : o.eku;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: Math.floor(Math.random() * 1e9).toString(16).padStart(8, '2'),
    subject: o.subject,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - 2 * day),
    notAfter: o.notAfter ?? new Date(Date.now() + day),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: alg,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...(eku === null ? [] : [new x509.ExtendedKeyUsageExtension([...eku])]),
    ],
  });
  return { cert, keys, certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

let server: RunningServer;
let admin: string;
let dataDir: string;
let clientCa: Issued;
let otherCa: Issued;

interface Reply {
  readonly status: number;
  readonly body: any;
}

/** A SelfSubjectReview on a fresh TLS connection, presenting `cert` (and its chain) when given. */
function whoami(o: { cert?: Issued; chain?: readonly Issued[]; token?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' });
    const req = request(new URL('/apis/authentication.platform.io/v1/selfsubjectreviews', server.url), {
      method: 'POST',
      ca: server.caPem,
      agent: false,
      ...(o.cert === undefined ? {} : { cert: [o.cert.certPem, ...(o.chain ?? []).map((c) => c.certPem)].join('\n'), key: o.cert.keyPem }),
      headers: { 'Content-Type': 'application/json', ...(o.token === undefined ? {} : { Authorization: `Bearer ${o.token}` }) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  clientCa = await makeCa('client-ca');
  otherCa = await makeCa('someone-else');
  dataDir = tempDir();
  const caFile = join(dataDir, 'client-ca.crt');
  writeFileSync(caFile, clientCa.certPem);
  server = await startTestServer({ dataDir, clientCaFile: caFile });
  admin = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
});
afterAll(stopAll);

describe('x509 client certificates', () => {
  it('authenticate as CN with the O values as groups and kube\'s credential id', async () => {
    const leaf = await makeLeaf(clientCa, { subject: 'CN=jane,O=devs,O=ops' });
    const res = await whoami({ cert: leaf });
    expect(res.status).toBe(201);
    const fingerprint = createHash('sha256').update(Buffer.from(leaf.cert.rawData)).digest('hex');
    expect(res.body.status.userInfo).toEqual({
      username: 'jane',
      groups: ['devs', 'ops', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${fingerprint}`] },
    });
  });

  it('verify through an intermediate the client sends', async () => {
    const intermediate = await makeCa('intermediate', clientCa);
    const leaf = await makeLeaf(intermediate, { subject: 'CN=via-intermediate' });
    const res = await whoami({ cert: leaf, chain: [intermediate] });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo.username).toBe('via-intermediate');
    expect((await whoami({ cert: leaf })).status).toBe(401);
  });

  it('no certificate: bearer tokens work', async () => {
    const res = await whoami({ token: admin });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo.username).not.toBe('');
  });

  const refused: [string, () => Promise<Issued>][] = [
    ['a certificate of another CA', () => makeLeaf(otherCa, { subject: 'CN=mallory,O=system:masters' })],
    ['a certificate without the clientAuth usage', () => makeLeaf(clientCa, { subject: 'CN=server-only', eku: [x509.ExtendedKeyUsage.serverAuth] })],
    ['an expired certificate', () => makeLeaf(clientCa, { subject: 'CN=old', notAfter: new Date(Date.now() - 60_000) })],
  ];
  it.each(refused)('%s is 401', async (_what, make) => {
    const res = await whoami({ cert: await make() });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('a certificate with no extended key usage (any use) is accepted, as Go verifies', async () => {
    const res = await whoami({ cert: await makeLeaf(clientCa, { subject: 'CN=any-use', eku: null }) });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo.username).toBe('any-use');
  });

  it('the serving CA grants nothing: a client certificate it signs is 401', async () => {
    const servingCa = await x509Pair(readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'), readFileSync(join(dataDir, 'pki', 'ca.key'), 'utf8'));
    const res = await whoami({ cert: await makeLeaf(servingCa, { subject: 'CN=admin,O=system:masters' }) });
    expect(res.status).toBe(401);
  });

  it('an untrusted certificate does not spoil a valid bearer token on the same request (kube\'s union)', async () => {
    // kube: the x509 authenticator's error does not stop the union; the token then authenticates.
    const res = await whoami({ cert: await makeLeaf(otherCa, { subject: 'CN=x' }), token: admin });
    expect(res.status).toBe(201);
  });

  it('a verified certificate without a CN has no opinion (the request is then anonymous)', async () => {
    const res = await whoami({ cert: await makeLeaf(clientCa, { subject: 'O=devs' }) });
    // Anonymous may not review itself under the bootstrap RBAC policy: 403 names system:anonymous.
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('"system:anonymous"');
  });
});

async function x509Pair(certPem: string, keyPemText: string): Promise<Issued> {
  const cert = new x509.X509Certificate(certPem);
  const privateKey = await subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPemText), alg, true, ['sign']);
  return { cert, certPem, keyPem: keyPemText, keys: { privateKey, publicKey: await cert.publicKey.export() } as Keys };
}
