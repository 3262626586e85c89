/**
 * End to end with stock kubectl against the BUILT server under `--group-domain=k8s.io`, in the one-command
 * setup (no --client-ca-file, no signing flags): a user makes a key and a certificate request with Node's
 * crypto, submits it with `kubectl create -f` for `kubernetes.io/kube-apiserver-client`; an admin approves
 * it with `kubectl certificate approve`; csrsigning issues the certificate (awaited with `kubectl wait`);
 * a kubeconfig holding it authenticates as the user (`kubectl auth whoami`). `kubectl certificate deny`
 * marks another request Denied and it never gets a certificate.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { makeCsr } from '../../apiserver/controllers/certificates/testing-csr.js';
import { requireBuild, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const csrManifest = (name: string, csrPem: string, expirationSeconds: number): string => JSON.stringify({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: {
    request: Buffer.from(csrPem).toString('base64'),
    signerName: 'kubernetes.io/kube-apiserver-client',
    usages: ['client auth'],
    expirationSeconds,
  },
});

describe('kubectl certificate approve / deny (--group-domain=k8s.io)', () => {
  let server: RunningApiserver;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('approve: the issued certificate works in a kubeconfig (auth whoami)', async () => {
    const alice = await makeCsr('CN=alice, O=devs, O=auditors');
    ok(await kubectl('create', '-f', server.file('alice-csr.json', csrManifest('alice', alice.csrPem, 7200))));
    const pending = parseTable(ok(await kubectl('get', 'csr', 'alice')));
    expect(pending).toEqual([expect.objectContaining({ NAME: 'alice', SIGNERNAME: 'kubernetes.io/kube-apiserver-client', REQUESTEDDURATION: '120m', CONDITION: 'Pending' })]);

    expect(ok(await kubectl('certificate', 'approve', 'alice'))).toContain('certificatesigningrequest.certificates.k8s.io/alice approved');
    ok(await kubectl('wait', 'csr/alice', '--for=jsonpath={.status.certificate}', '--timeout=30s'));
    expect(parseTable(ok(await kubectl('get', 'csr', 'alice')))[0]).toMatchObject({ CONDITION: 'Approved,Issued' });

    const certB64 = ok(await kubectl('get', 'csr', 'alice', '-o', 'jsonpath={.status.certificate}')).trim();
    const certPem = Buffer.from(certB64, 'base64').toString('utf8');
    const cert = new X509Certificate(certPem);
    expect(new Date(cert.validTo).getTime() - new Date(cert.validFrom).getTime()).toBe(7200_000 + 5 * 60_000);

    const certFile = server.file('alice.crt', certPem);
    const keyFile = server.file('alice.key', alice.keyPem);
    const cluster = ok(await kubectl('config', 'view', '-o', 'jsonpath={.clusters[0].name}')).trim();
    ok(await kubectl('config', 'set-credentials', 'alice', `--client-certificate=${certFile}`, `--client-key=${keyFile}`, '--embed-certs=true'));
    ok(await kubectl('config', 'set-context', 'alice', `--cluster=${cluster}`, '--user=alice'));
    const rows = parseTable(ok(await kubectl('auth', 'whoami', '--context=alice')));
    expect(rows).toEqual([
      { ATTRIBUTE: 'Username', VALUE: 'alice' },
      { ATTRIBUTE: 'Groups', VALUE: '[devs auditors system:authenticated]' },
      // kube 1.32: the certificate's SHA-256 as the credential id.
      { ATTRIBUTE: 'Extra: authentication.kubernetes.io/credential-id', VALUE: `[X509SHA256=${createHash('sha256').update(cert.raw).digest('hex')}]` },
    ]);
  });

  it('deny: Denied, never issued', async () => {
    const bob = await makeCsr('CN=bob');
    ok(await kubectl('create', '-f', server.file('bob-csr.json', csrManifest('bob', bob.csrPem, 3600))));
    expect(ok(await kubectl('certificate', 'deny', 'bob'))).toContain('certificatesigningrequest.certificates.k8s.io/bob denied');
    ok(await kubectl('wait', 'csr/bob', '--for=condition=Denied', '--timeout=30s'));
    const csr = JSON.parse(ok(await kubectl('get', 'csr', 'bob', '-o', 'json')));
    expect(csr.status.conditions).toEqual([expect.objectContaining({ type: 'Denied', status: 'True', reason: 'KubectlDeny' })]);
    expect(csr.status.certificate).toBeUndefined();
    expect(parseTable(ok(await kubectl('get', 'csr', 'bob')))[0]).toMatchObject({ CONDITION: 'Denied' });
    // Approving a denied request is refused.
    const again = await kubectl('certificate', 'approve', 'bob');
    expect(again.status).not.toBe(0);
  });
});
