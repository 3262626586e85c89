/**
 * End to end: the review APIs with the stock kubectl 1.32 (the dispatcher on PATH) against the BUILT server
 * under `--group-domain=k8s.io`, where kubectl's auth commands hard-code `authentication.k8s.io` and
 * `authorization.k8s.io` and send PROTOBUF bodies:
 *
 * - `kubectl auth whoami` (SelfSubjectReview), plain and with `--as` / `--as-group` (impersonation);
 * - `kubectl auth can-i create configmaps` as the generated admin (system:masters): yes;
 * - `kubectl auth can-i --list` (SelfSubjectRulesReview): kubectl's rules table.
 *
 * Which authorizer answers (allow-all until `--authorization-mode` is wired, RBAC after) does not change
 * these answers for the admin; the rows of `--list` do, so only their shape is asserted.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/**
 * Whether kubectl's `-v=7` log shows a POST to `path` with a protobuf body answered 201 (the request line,
 * its headers, then the response status).
 */
function sentAsProtobuf(log: string, path: string): boolean {
  const lines = log.split('\n');
  const start = lines.findIndex((l) => l.includes('POST https://') && l.trimEnd().endsWith(path));
  const end = lines.findIndex((l, i) => i > start && l.includes('Response Status:'));
  if (start < 0 || end < 0) return false;
  return lines.slice(start, end).some((l) => l.includes('Content-Type: application/vnd.kubernetes.protobuf')) && lines[end]!.includes('Response Status: 201 Created');
}

describe('kubectl auth and the review APIs (--group-domain=k8s.io)', () => {
  let server: RunningApiserver;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('auth whoami shows the admin', async () => {
    const res = await kubectl('auth', 'whoami');
    const rows = parseTable(ok(res));
    expect(rows).toEqual([
      { ATTRIBUTE: 'Username', VALUE: 'admin' },
      { ATTRIBUTE: 'UID', VALUE: 'admin' },
      { ATTRIBUTE: 'Groups', VALUE: '[system:masters system:authenticated]' },
    ]);
    const json = JSON.parse(ok(await kubectl('auth', 'whoami', '-o', 'json')));
    expect(json).toMatchObject({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', status: { userInfo: { username: 'admin', uid: 'admin' } } });
  });

  it('auth whoami --as / --as-group shows the impersonated user', async () => {
    const rows = parseTable(ok(await kubectl('auth', 'whoami', '--as=jane', '--as-group=devs', '--as-group=ops')));
    expect(rows).toEqual([
      { ATTRIBUTE: 'Username', VALUE: 'jane' },
      { ATTRIBUTE: 'Groups', VALUE: '[devs ops system:authenticated]' },
    ]);
  });

  it('auth can-i create configmaps: yes for the admin, through a protobuf SelfSubjectAccessReview', async () => {
    const res = await kubectl('auth', 'can-i', 'create', 'configmaps', '-v=7');
    expect(ok(res).trim()).toBe('yes');
    expect(sentAsProtobuf(res.stderr, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).toBe(true);
    expect(ok(await kubectl('auth', 'can-i', 'get', '/healthz')).trim()).toBe('yes');
  });

  it('auth can-i --list prints the rules table', async () => {
    const res = await kubectl('auth', 'can-i', '--list', '--namespace=default', '-v=7');
    const out = ok(res);
    expect(headerLine(out).split(/\s{2,}/)).toEqual(['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    expect(sentAsProtobuf(res.stderr, '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews')).toBe(true);
    for (const row of parseTable(out)) expect(row.Verbs).toMatch(/^\[.*\]$/);
  });
});
