/**
 * End to end: `kubectl create token` (kubectl 1.32 through the dispatcher on PATH, which POSTs a protobuf
 * TokenRequest to `serviceaccounts/<name>/token`) against the BUILT server under `--group-domain=k8s.io`,
 * then kubectl using that token: `auth whoami` shows the service account, and the token stops working
 * once the account is deleted. Also `--audience`, `--duration`, `--bound-object-kind Secret`, and `create token
 * default` in a new namespace.
 */
import { requireBuild, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const claimsOf = (token: string): Record<string, any> => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());

describe('kubectl create token (--group-domain=k8s.io)', () => {
  let server: RunningApiserver;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
    ok(await kubectl('create', 'namespace', 'robots'));
    ok(await kubectl('create', 'serviceaccount', 'builder', '-n', 'robots'));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('issues a token (protobuf TokenRequest) that kubectl then authenticates with', async () => {
    const res = await kubectl('create', 'token', 'builder', '-n', 'robots', '-v=7');
    const token = ok(res).trim();
    expect(res.stderr).toMatch(/POST https:\/\/\S+\/api\/v1\/namespaces\/robots\/serviceaccounts\/builder\/token/);
    expect(res.stderr).toContain('Content-Type: application/vnd.kubernetes.protobuf');
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ iss: 'https://kubernetes.default.svc.cluster.local', sub: 'system:serviceaccount:robots:builder', aud: ['https://kubernetes.default.svc.cluster.local'] });
    expect(claims.exp - claims.iat).toBe(3600);

    const rows = parseTable(ok(await kubectl('auth', 'whoami', `--token=${token}`)));
    const uid = ok(await kubectl('get', 'serviceaccount', 'builder', '-n', 'robots', '-o', 'jsonpath={.metadata.uid}')).trim();
    expect(rows).toEqual([
      { ATTRIBUTE: 'Username', VALUE: 'system:serviceaccount:robots:builder' },
      { ATTRIBUTE: 'UID', VALUE: uid },
      { ATTRIBUTE: 'Groups', VALUE: '[system:serviceaccounts system:serviceaccounts:robots system:authenticated]' },
      { ATTRIBUTE: 'Extra: authentication.kubernetes.io/credential-id', VALUE: `[JTI=${claims.jti}]` },
    ]);
  });

  it('--duration, --audience and --bound-object-kind Secret', async () => {
    ok(await kubectl('create', 'secret', 'generic', 'anchor', '-n', 'robots'));
    const token = ok(await kubectl('create', 'token', 'builder', '-n', 'robots', '--duration=20m', '--audience=vault', '--audience=https://kubernetes.default.svc.cluster.local',
      '--bound-object-kind=Secret', '--bound-object-name=anchor')).trim();
    const claims = claimsOf(token);
    expect(claims.exp - claims.iat).toBe(1200);
    expect(claims.aud).toEqual(['vault', 'https://kubernetes.default.svc.cluster.local']);
    expect(claims['kubernetes.io'].secret.name).toBe('anchor');
    expect(ok(await kubectl('auth', 'whoami', `--token=${token}`, '-o', 'jsonpath={.status.userInfo.username}'))).toBe('system:serviceaccount:robots:builder');

    const tooShort = await kubectl('create', 'token', 'builder', '-n', 'robots', '--duration=5m');
    expect(tooShort.status).not.toBe(0);
    expect(tooShort.stderr).toContain('may not specify a duration less than 10 minutes');
  });

  it("create token default works in any namespace: the serviceaccount controller made the account", async () => {
    ok(await kubectl('create', 'namespace', 'fresh'));
    ok(await kubectl('wait', '--for=create', 'serviceaccount/default', '-n', 'fresh', '--timeout=30s'));
    const token = ok(await kubectl('create', 'token', 'default', '-n', 'fresh')).trim();
    expect(ok(await kubectl('auth', 'whoami', `--token=${token}`, '-o', 'jsonpath={.status.userInfo.username}'))).toBe('system:serviceaccount:fresh:default');
    // The system namespaces have theirs too.
    expect(ok(await kubectl('get', 'serviceaccount', 'default', '-n', 'kube-system', '-o', 'name'))).toBe('serviceaccount/default\n');
  });

  it('a token of a deleted service account is refused', async () => {
    ok(await kubectl('create', 'serviceaccount', 'temp', '-n', 'robots'));
    const token = ok(await kubectl('create', 'token', 'temp', '-n', 'robots')).trim();
    ok(await kubectl('delete', 'serviceaccount', 'temp', '-n', 'robots'));
    let res: KubectlResult | undefined;
    for (let i = 0; i < 50; i++) {
      res = await kubectl('auth', 'whoami', `--token=${token}`);
      if (res.status !== 0) break;
    }
    expect(res!.status).not.toBe(0);
    expect(res!.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
