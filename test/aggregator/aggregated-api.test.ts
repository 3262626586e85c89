/**
 * The aggregation layer end to end (k8s.io names, embedded store): a real HTTPS backend
 * (widget-backend.ts) registered by an APIService created through the API, reached through a server
 * started in process with `--proxy-client-cert-file`/`--proxy-client-key-file` and a service resolver that
 * maps the Service to the backend's loopback port.
 *
 * Asserted: the Available condition follows the backend (Passed; FailedDiscoveryCheck with Go's words
 * when it stops; Passed again after a restart); discovery (legacy and aggregated v2/v2beta1) and OpenAPI
 * v2/v3 list the backend's group version; a proxied GET carries the caller's identity (impersonated,
 * with extras escaped as client-go does) and neither the caller's bearer token nor its forged X-Remote-*
 * headers, over a connection that presented the proxy client certificate; a POST body reaches the
 * backend; a watch streams each event as the backend writes it; a protobuf-only Accept is 406 without
 * reaching the backend; an unavailable backend is 503 `service unavailable`; stock kubectl reads the
 * group version (`get --raw`, `api-resources`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiRequest, type ApiResponse } from '../http/helpers.js';
import { eventually, memoryLogger, stopAll, tempDir, testConfig } from '../server/helpers.js';
import { generateCa, issueCert } from '../server/proxy-certs.js';
import { startServer, type RunningServer } from '../../apiserver/server/start-server.js';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { startWidgetBackend, type WidgetBackend } from './widget-backend.js';

const GROUP = 'widgets.example.com';
const VERSION = 'v1alpha1';
const GV = `${GROUP}/${VERSION}`;
const NAME = `${VERSION}.${GROUP}`;
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

let backend: WidgetBackend;
let server: RunningServer;
let base: { url: string; ca: string; token: string };
let home: string;
const api = (method: string, path: string, o: Parameters<typeof apiRequest>[3] = {}): Promise<ApiResponse> => apiRequest(base, method, path, o);

const available = async (): Promise<Record<string, string> | undefined> => {
  const res = await api('GET', `${APISERVICES}/${NAME}`);
  return (res.json().status?.conditions ?? []).find((c: { type: string }) => c.type === 'Available');
};

beforeAll(async () => {
  const proxyCa = await generateCa('front-proxy-ca');
  const proxyClient = await issueCert(proxyCa, 'front-proxy-client');
  const dir = tempDir('aggregator-test-');
  writeFileSync(join(dir, 'proxy.crt'), proxyClient.certPem);
  writeFileSync(join(dir, 'proxy.key'), proxyClient.keyPem);
  backend = await startWidgetBackend({ group: GROUP, version: VERSION, serviceName: 'widgets-api', namespace: 'widgets', proxyClientCa: proxyCa.certPem });
  const dataDir = join(dir, 'data');
  server = await startServer(
    testConfig({ dataDir, groupDomain: 'k8s.io', proxyClient: { certFile: join(dir, 'proxy.crt'), keyFile: join(dir, 'proxy.key') } }),
    {
      logger: memoryLogger().logger,
      aggregation: {
        // Services are not served yet: the test's Service is its loopback backend.
        serviceResolver: (s) => {
          if (s.namespace !== 'widgets' || s.name !== 'widgets-api' || s.port !== 8443) throw new Error(`unexpected service ${s.namespace}/${s.name}:${s.port}`);
          return { host: '127.0.0.1', port: backend.port };
        },
        availabilityIntervalMs: 300,
      },
    },
  );
  base = { url: server.url, ca: server.caPem!, token: readFileSync(adminTokenPath(dataDir), 'utf8').trim() };
  home = mkdtempSync(join(tmpdir(), 'aggregator-kubectl-'));

  const created = await api('POST', APISERVICES, {
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: NAME },
      spec: { group: GROUP, version: VERSION, groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'widgets', name: 'widgets-api', port: 8443 }, caBundle: backend.caBundle },
    },
  });
  expect(created.status).toBe(201);
  await eventually(async () => (await available())?.status === 'True', 'the APIService to become Available');
});

afterAll(async () => {
  await server?.close();
  await backend?.stop();
  await stopAll();
  rmSync(home, { recursive: true, force: true });
});

test('the Available condition reads Passed, and the table shows it', async () => {
  expect(await available()).toEqual(expect.objectContaining({ status: 'True', reason: 'Passed', message: 'all checks passed' }));
  const table = await api('GET', `${APISERVICES}/${NAME}`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  expect(table.json().rows[0].cells.slice(0, 3)).toEqual([NAME, 'widgets/widgets-api', 'True']);
});

test('discovery lists the group version with the backend resources (legacy and aggregated)', async () => {
  await eventually(async () => (await api('GET', '/apis')).json().groups.some((g: { name: string }) => g.name === GROUP), 'the group in /apis');
  const group = (await api('GET', '/apis')).json().groups.find((g: { name: string }) => g.name === GROUP);
  expect(group).toEqual({ name: GROUP, versions: [{ groupVersion: GV, version: VERSION }], preferredVersion: { groupVersion: GV, version: VERSION } });
  expect((await api('GET', `/apis/${GROUP}`)).json()).toMatchObject({ kind: 'APIGroup', name: GROUP, preferredVersion: { version: VERSION } });
  for (const v of ['v2', 'v2beta1']) {
    const res = await api('GET', '/apis', { headers: { Accept: `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList` } });
    const item = res.json().items.find((i: { metadata: { name: string } }) => i.metadata.name === GROUP);
    expect(item.versions).toEqual([
      {
        version: VERSION,
        freshness: 'Current',
        resources: [
          {
            resource: 'widgets',
            responseKind: { group: '', version: '', kind: 'Widget' },
            scope: 'Namespaced',
            singularResource: 'widget',
            verbs: ['create', 'get', 'list', 'watch'],
            shortNames: ['wd'],
            subresources: [{ subresource: 'status', responseKind: { group: '', version: '', kind: 'Widget' }, verbs: ['get'] }],
          },
        ],
      },
    ]);
  }
  // The group version's own document comes from the backend, through the proxy.
  const list = await api('GET', `/apis/${GV}`);
  expect(list.json()).toMatchObject({ kind: 'APIResourceList', groupVersion: GV });
});

test("OpenAPI v2 and v3 merge the backend's documents", async () => {
  await eventually(async () => (await api('GET', '/openapi/v3')).json().paths[`apis/${GV}`] !== undefined, 'the v3 listing');
  const root = (await api('GET', '/openapi/v3')).json();
  expect(root.paths['apis/apiregistration.k8s.io/v1']).toBeDefined();
  const v3 = await api('GET', root.paths[`apis/${GV}`].serverRelativeURL);
  expect(v3.json().info.title).toBe('widgets');
  const v2 = (await api('GET', '/openapi/v2')).json();
  expect(Object.keys(v2.paths)).toContain(`/apis/${GV}/namespaces/{namespace}/widgets`);
  expect(Object.keys(v2.paths)).not.toContain('/apis/other.example.com/v1/things');
  expect(Object.keys(v2.definitions)).toEqual(expect.arrayContaining(['widgets.v1.WidgetList', 'widgets.v1.Widget', 'io.k8s.api.core.v1.ConfigMap']));
  expect(Object.keys(v2.definitions)).not.toContain('widgets.v1.Unused');
  // The merged document still has its protobuf (gnostic) form.
  const pb = await api('GET', '/openapi/v2', { headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
  expect(pb.status).toBe(200);
  expect(pb.raw.includes(Buffer.from(`/apis/${GV}/namespaces/{namespace}/widgets`))).toBe(true);
});

test("a GET reaches the backend with the caller's identity, without its token, over the proxy client certificate", async () => {
  const res = await api('GET', `/apis/${GV}/namespaces/x/widgets`, {
    headers: {
      'Impersonate-User': 'alice',
      'Impersonate-Group': 'system:masters',
      'Impersonate-Extra-Acme.io%2fteam': 'blue',
      'X-Remote-User': 'mallory',
      'X-Remote-Extra-Forged': 'yes',
    },
  });
  expect(res.status).toBe(200);
  const seen = res.json().seen;
  expect(seen.authorization).toBeNull();
  expect(seen.clientCN).toBe('front-proxy-client');
  expect(seen.clientAuthorized).toBe(true);
  expect(seen.remote['x-remote-user']).toBe('alice');
  expect(seen.remote['x-remote-group']).toContain('system:masters');
  expect(seen.remote['x-remote-extra-acme.io%2fteam']).toBe('blue');
  expect(seen.remote['x-remote-extra-forged']).toBeUndefined();
});

test('a request body is streamed to the backend', async () => {
  const body = { apiVersion: GV, kind: 'Widget', metadata: { name: 'w' }, size: 'x'.repeat(200_000) };
  const res = await api('POST', `/apis/${GV}/namespaces/x/widgets`, { body });
  expect(res.status).toBe(201);
  expect(JSON.parse(res.json().received)).toEqual(body);
});

test('a watch streams each event as the backend writes it', async () => {
  const writer = backend.nextWatch();
  const received: string[] = [];
  let onData: () => void = () => undefined;
  const req = request(new URL(`/apis/${GV}/namespaces/x/widgets?watch=true`, base.url), { ca: base.ca, agent: false, headers: { Authorization: `Bearer ${base.token}` } }, (res) => {
    expect(res.statusCode).toBe(200);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      received.push(...chunk.split('\n').filter((l) => l !== ''));
      onData();
    });
  });
  req.end();
  const lines = (n: number): Promise<void> =>
    new Promise((resolve) => {
      onData = () => received.length >= n && resolve();
      onData();
    });
  try {
    const write = await writer;
    for (let i = 1; i <= 3; i++) {
      write({ type: 'ADDED', object: { apiVersion: GV, kind: 'Widget', metadata: { name: `w${i}`, resourceVersion: String(i) } } });
      // Each event arrives before the next one is written: nothing is buffered in between.
      await lines(i);
      expect(JSON.parse(received[i - 1]!).object.metadata.name).toBe(`w${i}`);
    }
  } finally {
    req.destroy();
  }
});

test('protobuf-only Accept is 406 without reaching the backend; protobuf is dropped from mixed Accepts', async () => {
  const before = backend.requests.length;
  const res = await api('GET', `/apis/${GV}/namespaces/x/widgets`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
  expect(res.status).toBe(406);
  expect(res.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', message: 'only the following media types are accepted: application/json, application/yaml' });
  expect(backend.requests.slice(before).some((r) => r.path.endsWith('/widgets'))).toBe(false);
  const mixed = await api('GET', `/apis/${GV}/namespaces/x/widgets`, { headers: { Accept: 'application/vnd.kubernetes.protobuf,application/json' } });
  expect(mixed.json().seen.accept).toBe('application/json');
});

test('kubectl reads the group version: get --raw and api-resources', async () => {
  const raw = await kubectl(['get', '--raw', `/apis/${GV}`]);
  expect(raw.status).toBe(0);
  expect(JSON.parse(raw.stdout)).toMatchObject({ kind: 'APIResourceList', groupVersion: GV });
  const resources = await kubectl(['api-resources', `--api-group=${GROUP}`]);
  expect(resources.status).toBe(0);
  expect(resources.stdout).toMatch(new RegExp(`^widgets\\s+wd\\s+${GV.replace('.', '\\.')}\\s+true\\s+Widget$`, 'm'));
});

test('a stopped backend turns the condition False and the proxy answers 503; a restart recovers', async () => {
  await backend.stop();
  // A probe in flight when the backend stopped may read EOF first; the next ones find the port closed.
  const refused = `failing or missing response from https://127.0.0.1:${backend.port}/apis/${GV}: Get "https://127.0.0.1:${backend.port}/apis/${GV}": dial tcp 127.0.0.1:${backend.port}: connect: connection refused`;
  await eventually(async () => (await available())?.message === refused, 'Available False: connection refused');
  expect(await available()).toMatchObject({ status: 'False', reason: 'FailedDiscoveryCheck' });
  const down = await api('GET', `/apis/${GV}/namespaces/x/widgets`);
  expect(down.status).toBe(503);
  expect(down.json()).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503, message: 'service unavailable' });

  await backend.start();
  await eventually(async () => (await available())?.status === 'True', 'Available True again');
  expect((await api('GET', `/apis/${GV}/namespaces/x/widgets`)).status).toBe(200);
});

test('a proxy client certificate that does not match its key fails the start', async () => {
  const ca = await generateCa('front-proxy-ca');
  const [a, b] = [await issueCert(ca, 'a'), await issueCert(ca, 'b')];
  const dir = tempDir('aggregator-mismatch-');
  writeFileSync(join(dir, 'a.crt'), a.certPem);
  writeFileSync(join(dir, 'b.key'), b.keyPem);
  await expect(startServer(testConfig({ dataDir: join(dir, 'data'), proxyClient: { certFile: join(dir, 'a.crt'), keyFile: join(dir, 'b.key') } }), { logger: memoryLogger().logger }))
    .rejects.toThrow(/--proxy-client-cert-file .*a\.crt and --proxy-client-key-file .*b\.key/);
});

function kubectl(args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn('kubectl', ['--kubeconfig', server.kubeconfigPath!, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C' } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    proc.on('error', reject);
    proc.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
