/**
 * Issue 10 acceptance, "the real clients authenticate as service accounts": the client-node 1.4 informer
 * (client-node-informer.mjs) and the python3-kubernetes watch (python-watch.py) run with a kubeconfig whose
 * only credential is a bound service-account token issued through TokenRequest
 * (`serviceaccounts/<name>/token`, bound to a Secret), against a server with RBAC as its only mode (memory
 * backend; the 1,000-object scenario on both backends is watch-scenario.ts).
 *
 * - A Role with exactly what the clients need (list and watch configmaps in their namespace), bound to the
 *   account: both clients see every change of a few hundred concurrent writes, in order, with the
 *   resourceVersions the writes returned, and end equal to the server's list. The token grants nothing
 *   more (other resources, other namespaces, other verbs are 403).
 * - A Role one verb short (list, no watch): each client's list works, its watch is refused, and the client
 *   itself reports the 403 (its own error line: client-node's `statusCode`, python's `ApiException.status`);
 *   the server's request log shows the same refused watches, made as the service account.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { memoryLogger, startTestServer, stopAll, tempDir as serverDir } from '../server/helpers.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from '../http/helpers.js';
import {
  applyOps, churnOps, ClientProcess, converge, mismatchedLastEvents, tempDir, Writer, type Applied, type Expected,
} from './client-harness.js';

const RBAC = 'rbac.platform.io';
const AUTH = 'authentication.platform.io';
const python = process.env.PYTHON3 ?? '/usr/bin/python3';
const nodeScript = join(__dirname, 'client-node-informer.mjs');
const pythonScript = join(__dirname, 'python-watch.py');


const isChange = (t: string): boolean => t === 'ADDED' || t === 'MODIFIED' || t === 'DELETED';

let server: RunningServer;
/** The admin side: url, CA and the generated admin token (what the harness's Writer takes), and requests. */
let api: {
  readonly url: string;
  readonly ca: string;
  readonly token: string;
  request(method: string, path: string, o?: ApiRequestOptions): Promise<ApiResponse>;
};
let log: ReturnType<typeof memoryLogger>;
let ns: string;
let other: string;
const dir = tempDir('sa-clients-');
afterAll(() => dir.remove());

async function must(method: string, path: string, body: unknown, status = 201): Promise<any> {
  const res = await api.request(method, path, { body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.text()}`);
  return res.json();
}

/**
 * A service account with a Role of `verbs` on configmaps in `ns`, bound to it; returns a token issued
 * through TokenRequest and bound to a Secret of the namespace (a bound token, as a Pod's would be).
 */
async function serviceAccountWith(name: string, verbs: string[]): Promise<string> {
  await must('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  await must('POST', `/apis/${RBAC}/v1/namespaces/${ns}/roles`, {
    apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: `${name}-role` },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }],
  });
  await must('POST', `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`, {
    apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: `${name}-binding` },
    roleRef: { apiGroup: RBAC, kind: 'Role', name: `${name}-role` },
    subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
  });
  const anchor = await must('POST', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-anchor` } });
  const tr = await must('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
    apiVersion: `${AUTH}/v1`, kind: 'TokenRequest',
    spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: anchor.metadata.name, uid: anchor.metadata.uid } },
  });
  const token: string = tr.status.token;
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  expect(claims.sub).toBe(`system:serviceaccount:${ns}:${name}`);
  expect(claims['kubernetes.io'].secret.name).toBe(`${name}-anchor`);
  // The RBAC index follows the watch caches: wait until the binding applies to the token.
  const deadline = Date.now() + 20_000;
  while ((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token })).status !== 200) {
    if (Date.now() > deadline) throw new Error(`the binding of ${name} never applied`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return token;
}

/** The server's generated kubeconfig with its one user's credential replaced by `token` (nothing else). */
function kubeconfigWithToken(name: string, token: string): string {
  const config = parseYaml(readFileSync(server.kubeconfigPath!, 'utf8'));
  expect(config.users).toHaveLength(1);
  config.users[0].user = { token };
  const path = join(dir.path, `${name}.kubeconfig`);
  writeFileSync(path, stringifyYaml(config), { mode: 0o600 });
  return path;
}

const clients: [string, (kubeconfig: string) => ClientProcess][] = [
  ['client-node 1.4 informer', (kc) => new ClientProcess(process.execPath, [nodeScript, kc, ns])],
  ['python3-kubernetes watch', (kc) => new ClientProcess(python, ['-u', pythonScript, kc, ns])],
];

/** The finished watch requests of `user` on `path` in the server's request log: their statuses. */
function serverWatchStatuses(path: string, user: string): number[] {
  const out: number[] = [];
  for (const l of log.lines()) {
    const r = JSON.parse(l);
    if (r.msg !== 'request' || r.path !== path || r.method !== 'GET' || r.userAgent === 'acceptance-test') continue;
    if (!/(^|&)watch=(true|1|t|True|TRUE)(&|$)/.test(r.query ?? '')) continue;
    if (r.user !== user) continue;
    out.push(r.status);
  }
  return out;
}

beforeAll(async () => {
  log = memoryLogger('debug');
  const dataDir = serverDir();
  // The embedded (memory) store: the backend is not what this test is about.
  server = await startTestServer({ dataDir, authorizationModes: ['RBAC'] }, { logger: log.logger });
  const base = { url: server.url, ca: server.caPem!, token: readFileSync(adminTokenPath(dataDir), 'utf8').trim() };
  api = { ...base, request: (method, path, o) => apiRequest(base, method, path, o) };
  ns = 'sa-clients';
  other = 'sa-elsewhere';
  for (const name of [ns, other]) await must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}, 60_000);
afterAll(stopAll);

describe('service-account clients', () => {
  it('with a Role of exactly list and watch on configmaps, both clients see every write and converge', async () => {
    const token = await serviceAccountWith('watcher', ['list', 'watch']);
    // Exactly what they need: nothing else is granted to the token.
    const as = (method: string, path: string) => api.request(method, path, { token });
    expect((await as('GET', `/api/v1/namespaces/${ns}/configmaps?watch=false`)).status).toBe(200);
    expect((await as('GET', `/api/v1/namespaces/${ns}/secrets`)).status).toBe(403);
    expect((await as('GET', `/api/v1/namespaces/${other}/configmaps`)).status).toBe(403);
    expect((await as('GET', '/api/v1/configmaps')).status).toBe(403);
    const denied = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { token, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope' } } });
    expect(denied.status).toBe(403);
    expect(denied.json().message).toBe(`configmaps is forbidden: User "system:serviceaccount:${ns}:watcher" cannot create resource "configmaps" in API group "" in the namespace "${ns}"`);

    const kubeconfig = kubeconfigWithToken('watcher', token);
    const running = clients.map(([label, start]) => ({ label, client: start(kubeconfig) }));
    const w = new Writer(api);
    try {
      for (const { client } of running) await client.until(() => client.of('list').length === 1, 'the client\'s first list');
      const expected: Expected = new Map();
      const applied: Applied[] = [];
      const ops = churnOps('sa', 120); // 120 created, 120 updated, 40 deleted: 280 writes
      await applyOps(w, ns, ops, expected, applied, 16);
      const kindToType = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
      const want = new Map<string, string[]>();
      for (const a of applied) want.set(a.name, [...(want.get(a.name) ?? []), `${kindToType[a.kind]} ${a.kind === 'delete' ? '' : a.rv}`]);
      for (const { label, client } of running) {
        const changes = (): number => client.lines.filter((l) => isChange(l.t)).length;
        await client.until(() => changes() >= ops.length, `${label}: ${ops.length} events`);
        const got = new Map<string, string[]>();
        for (const l of client.lines) if (isChange(l.t)) got.set(l.name!, [...(got.get(l.name!) ?? []), `${l.t} ${l.t === 'DELETED' ? '' : l.rv}`]);
        expect(got).toEqual(want);
        const state = await converge(client, w, ns);
        expect(state.client.size).toBe(80);
        expect(mismatchedLastEvents(client, expected)).toEqual([]);
        expect(changes()).toBe(ops.length);
        expect(client.of('error')).toEqual([]);
        expect(client.of('list')).toHaveLength(1);
      }
      // The server saw the clients' watches as the service account, allowed.
      const statuses = serverWatchStatuses(`/api/v1/namespaces/${ns}/configmaps`, `system:serviceaccount:${ns}:watcher`);
      expect(statuses.filter((s) => s >= 400)).toEqual([]);
    } finally {
      await Promise.all(running.map(({ client }) => client.stop()));
      w.destroy();
    }
  }, 90_000);

  it('with a Role one verb short (no watch), each client reports the 403 of its watch', async () => {
    const token = await serviceAccountWith('lister', ['list']);
    const kubeconfig = kubeconfigWithToken('lister', token);
    const listed = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const present = (listed.json().items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort();
    const running = clients.map(([label, start]) => ({ label, client: start(kubeconfig) }));
    try {
      for (const { label, client } of running) {
        // The list is allowed (the client prints it), its watch is refused and the client says so.
        await client.until(() => client.of('error').length > 0, `${label}: an error`);
        expect(client.of('list').length).toBeGreaterThanOrEqual(1);
        const first = client.of('error')[0]!;
        expect(first.code).toBe(403);
        expect(first.msg).toBe('Forbidden');
        // What it holds came from its list alone (the objects already there), never from a watch.
        const changes = client.lines.filter((l) => isChange(l.t));
        expect(changes.every((l) => l.t === 'ADDED')).toBe(true);
        expect([...new Set(changes.map((l) => l.name!))].sort()).toEqual(present);
        // It keeps retrying (each client restarts after an error), and every retry is refused the same way.
        await client.until(() => client.of('error').length >= 3, `${label}: repeated errors`);
        expect(client.of('error').every((e) => e.code === 403)).toBe(true);
      }
      const statuses = serverWatchStatuses(`/api/v1/namespaces/${ns}/configmaps`, `system:serviceaccount:${ns}:lister`);
      expect(statuses.length).toBeGreaterThanOrEqual(6);
      expect(statuses.filter((s) => s === 403).length).toBeGreaterThanOrEqual(6);
      // The Status body of such a watch names the account and the missing verb, in kube's words.
      const res = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token, query: { watch: 'true' } });
      expect(res.status).toBe(403);
      expect(res.json().message).toBe(`configmaps is forbidden: User "system:serviceaccount:${ns}:lister" cannot watch resource "configmaps" in API group "" in the namespace "${ns}"`);
    } finally {
      await Promise.all(running.map(({ client }) => client.stop()));
    }
  }, 60_000);
});
