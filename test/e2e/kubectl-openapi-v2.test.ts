/**
 * End to end: stock kubectl reading `/openapi/v2` in protobuf (gnostic's `openapi_v2.Document`) from the
 * BUILT server, for both group domains on the embedded store.
 *
 * - kubectl 1.27 and 1.28 download the v2 document in protobuf for `create`/`apply` (schema validation) and
 *   `explain`; `explain --output=plaintext-openapiv2` renders from it alone, so its output proves kubectl's
 *   Go decoder (and kube-openapi's schema parser over it) read our bytes.
 * - Any kubectl falls back to v2 when a kind is missing from `/openapi/v3`: kubectl 1.32's `create -f` of an
 *   unknown kind must end with its own "no matches for kind" error, not "failed to download openapi".
 */
import { requireBuild, kubectlMinor, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

const PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/**
 * The `-v=8` log lines of kubectl's `GET /openapi/v2` exchange (request and response headers), up to the
 * next request; undefined when kubectl never asked for it.
 */
function openapiV2Exchange(stderr: string): string | undefined {
  const lines = stderr.split('\n');
  const start = lines.findIndex((l) => /\] GET https:\/\/\S+\/openapi\/v2\?timeout=32s$/.test(l));
  if (start < 0) return undefined;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /\] (GET|POST|PUT|PATCH|DELETE) https:\/\//.test(l));
  return [lines[start], ...(end < 0 ? rest : rest.slice(0, end))].join('\n');
}

/** The exchange was a 200 in protobuf, asked for under client-go's name. */
function expectProtobufV2(stderr: string): void {
  const exchange = openapiV2Exchange(stderr);
  expect(exchange).toBeDefined();
  expect(exchange).toContain(`Accept: ${PROTOBUF_ACCEPT}`);
  expect(exchange).toMatch(/Response Status: 200 OK/);
  expect(exchange).toContain(`Content-Type: ${PROTOBUF_TYPE}`);
}

const configMap = (name: string, extra = ''): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: default
  labels:
    app: web
data:
  mode: production
${extra}`;

const UNKNOWN_KIND = `apiVersion: example.com/v1
kind: Foo
metadata:
  name: f1
  namespace: default
spec:
  size: 3
`;

for (const domain of ['platform.io', 'k8s.io'] as const) {
  describe(`kubectl and /openapi/v2 in protobuf (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    let kubectl127: string;
    let kubectl128: string;
    let kubectl132: string;

    beforeAll(async () => {
      kubectl127 = kubectlMinor(27);
      kubectl128 = kubectlMinor(28);
      kubectl132 = kubectlMinor(32);
      server = await startApiserver([`--group-domain=${domain}`]);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('kubectl 1.27 explain configmap reads the v2 document in protobuf', async () => {
      const res = await server.kubectl(['explain', 'configmap', '--output=plaintext-openapiv2', '-v=8'], { binary: kubectl127 });
      const out = ok(res);
      expectProtobufV2(res.stderr);
      // kubectl's v2 template: "KIND:" padded to 10 columns, fields indented by 3, their types from the schema.
      expect(out).toMatch(/^KIND:\s+ConfigMap\nVERSION:\s+v1\n/);
      expect(out).toContain('ConfigMap holds configuration data for pods to consume.');
      expect(out).toMatch(/\n {3}binaryData\t<map\[string\]string>\n/);
      expect(out).toMatch(/\n {3}data\t<map\[string\]string>\n/);
      expect(out).toMatch(/\n {3}immutable\t<boolean>\n/);
      expect(out).toMatch(/\n {3}metadata\t<Object>\n/);
    });

    it('kubectl 1.27 and 1.28 explain nested fields through $refs ($ref to ObjectMeta, a map, a string)', async () => {
      const labels = ok(await server.kubectl(['explain', 'configmap.metadata.labels', '--output=plaintext-openapiv2'], { binary: kubectl127 }));
      expect(labels).toMatch(/FIELDS?:\s+labels <map\[string\]string>/);
      const type = ok(await server.kubectl(['explain', 'secret.type', '--output=plaintext-openapiv2'], { binary: kubectl128 }));
      expect(type).toMatch(/FIELDS?:\s+type <string>/);
      const spec = ok(await server.kubectl(['explain', 'namespace.spec', '--output=plaintext-openapiv2'], { binary: kubectl128 }));
      expect(spec).toMatch(/RESOURCE:\s+spec <Object>/);
      expect(spec).toMatch(/\n {3}finalizers\t<\[\]string>\n/);
    });

    it('kubectl 1.27 create -f downloads v2 in protobuf, validates strictly and creates', async () => {
      const file = server.file('cm.yaml', configMap('c127'));
      const res = await server.kubectl(['create', '-f', file, '-v=8'], { binary: kubectl127 });
      expect(ok(res)).toBe('configmap/c127 created\n');
      expectProtobufV2(res.stderr);
      expect(res.stderr).toMatch(/POST https:\/\/\S+\/api\/v1\/namespaces\/default\/configmaps\?fieldManager=kubectl-create&fieldValidation=Strict/);
      const got = JSON.parse(ok(await server.kubectl(['get', 'configmap', 'c127', '-o', 'json'])));
      expect(got.data).toEqual({ mode: 'production' });
      expect(got.metadata.labels).toEqual({ app: 'web' });
    });

    it('kubectl 1.27 create -f with an unknown field is refused by strict validation and creates nothing', async () => {
      const file = server.file('bad.yaml', configMap('c127-bad', 'bogus: 1\n'));
      const res = await server.kubectl(['create', '-f', file], { binary: kubectl127 });
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('unknown field "bogus"');
      const get = await server.kubectl(['get', 'configmap', 'c127-bad']);
      expect(get.status).toBe(1);
      expect(get.stderr).toContain('not found');
    });

    it('kubectl 1.32 create -f of a kind absent from /openapi/v3 falls back to v2 and says "no matches for kind"', async () => {
      const file = server.file('foo.yaml', UNKNOWN_KIND);
      const res = await server.kubectl(['create', '-f', file, '-v=8'], { binary: kubectl132 });
      expect(res.status).toBe(1);
      expectProtobufV2(res.stderr);
      const errors = res.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors).toEqual([expect.stringContaining('no matches for kind "Foo" in version "example.com/v1"')]);
      expect(res.stderr).not.toContain('failed to download openapi');
    });
  });
}
