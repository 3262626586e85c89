/**
 * Error answers and media types through HTTP on real servers, on the embedded store and on a real etcd:
 * the exact Status bodies of every reason the REST machinery produces, `fieldValidation`
 * Strict/Warn/Ignore, JSON and YAML in both directions, Accept negotiation, `pretty`, gzip, and bodies
 * without apiVersion/kind.
 */
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details === undefined ? {} : { details }), code };
}

function expectStatus(res: ApiResponse, code: number, reason: string, message: string, details?: Record<string, unknown>): void {
  expect({ status: res.status, body: res.json() }).toEqual({ status: code, body: status(code, reason, message, details) });
  expect(res.headers['content-type']).toBe('application/json');
}

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  const cms = (name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name === '' ? '' : `/${name}`}`;
  const secrets = (name = ''): string => `/api/v1/namespaces/${ns}/secrets${name === '' ? '' : `/${name}`}`;

  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api, uniqueName('errs'));
    expect((await api.request('POST', cms(), { body: { metadata: { name: 'base' }, data: { a: '1' } } })).status).toBe(201);
  });

  describe('fieldValidation', () => {
    const withUnknown = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { foo: 1, unschedulable: true } });

    it('Strict: an unknown field is 400 strict decoding error, nothing created', async () => {
      const res = await api.request('POST', '/api/v1/nodes', { query: { fieldValidation: 'Strict' }, body: withUnknown('strict-n') });
      // kube's create handler passes strict errors through transformDecodeError.
      expectStatus(res, 400, 'BadRequest', 'Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "spec.foo"');
      expect((await api.request('GET', '/api/v1/nodes/strict-n')).status).toBe(404);
    });

    it('Strict: several problems are listed in one message', async () => {
      const res = await api.request('POST', cms(), { query: { fieldValidation: 'Strict' }, body: { metadata: { name: 'two', bogus: 'x' }, extra: true } });
      expect(res.status).toBe(400);
      expect(res.json().message).toMatch(/^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "(extra|metadata\.bogus)", unknown field "(extra|metadata\.bogus)"$/);
    });

    it('Strict: a duplicate JSON key is 400 duplicate field', async () => {
      const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}';
      const res = await api.request('POST', cms(), { query: { fieldValidation: 'Strict' }, body });
      expectStatus(res, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"');
    });

    it('Warn: created, with a Warning header per problem', async () => {
      const res = await api.request('POST', '/api/v1/nodes', { query: { fieldValidation: 'Warn' }, body: withUnknown('warn-n') });
      expect(res.status).toBe(201);
      expect(res.warnings()).toEqual(['299 - "unknown field \\"spec.foo\\""']);
      expect(res.json().spec).toEqual({ unschedulable: true });
    });

    it('the default is Warn', async () => {
      const res = await api.request('POST', '/api/v1/nodes', { body: withUnknown('default-n') });
      expect(res.status).toBe(201);
      expect(res.warnings()).toEqual(['299 - "unknown field \\"spec.foo\\""']);
    });

    it('Warn reports a duplicate key; the last value wins', async () => {
      const body = '{"metadata":{"name":"dup-warn"},"data":{"a":"1"},"data":{"b":"2"}}';
      const res = await api.request('POST', cms(), { body });
      expect(res.status).toBe(201);
      expect(res.warnings()).toEqual(['299 - "duplicate field \\"data\\""']);
      expect(res.json().data).toEqual({ b: '2' });
    });

    it('Ignore: created, the unknown field silently dropped', async () => {
      const res = await api.request('POST', '/api/v1/nodes', { query: { fieldValidation: 'Ignore' }, body: withUnknown('ignore-n') });
      expect(res.status).toBe(201);
      expect(res.headers.warning).toBeUndefined();
      expect(res.json().spec).toEqual({ unschedulable: true });
      expect((await api.request('GET', '/api/v1/nodes/ignore-n')).json().spec).toEqual({ unschedulable: true });
    });

    it('Strict applies to PUT and to merge patches too', async () => {
      const cur = (await api.request('GET', cms('base'))).json();
      const put = await api.request('PUT', cms('base'), { query: { fieldValidation: 'Strict' }, body: { ...cur, spec: {} } });
      expectStatus(put, 400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"');
      const patch = await api.request('PATCH', cms('base'), { query: { fieldValidation: 'Strict' }, body: { metadata: { foo: 'x' } } });
      expectStatus(patch, 400, 'BadRequest', 'strict decoding error: unknown field "metadata.foo"');
      const warn = await api.request('PATCH', cms('base'), { body: { metadata: { foo: 'x' } } });
      expect(warn.status).toBe(200);
      expect(warn.warnings()).toEqual(['299 - "unknown field \\"metadata.foo\\""']);
    });

    it('an unknown fieldValidation value is refused', async () => {
      const res = await api.request('POST', cms(), { query: { fieldValidation: 'Loose' }, body: { metadata: { name: 'loose' } } });
      const cause = 'Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"';
      expectStatus(res, 422, 'Invalid', `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: ${cause}`, {
        group: 'meta.k8s.io', kind: 'CreateOptions', causes: [{ reason: 'FieldValueNotSupported', message: cause, field: 'fieldValidation' }],
      });
      expect((await api.request('GET', cms('loose'))).status).toBe(404);
    });
  });

  describe('error Status bodies', () => {
    it('404 NotFound for a missing object', async () => {
      expectStatus(await api.request('GET', secrets('x')), 404, 'NotFound', 'secrets "x" not found', { name: 'x', kind: 'secrets' });
      expectStatus(await api.request('DELETE', cms('x')), 404, 'NotFound', 'configmaps "x" not found', { name: 'x', kind: 'configmaps' });
      expectStatus(await api.request('GET', '/api/v1/nodes/x'), 404, 'NotFound', 'nodes "x" not found', { name: 'x', kind: 'nodes' });
    });

    it('404 for a resource the server does not serve', async () => {
      expectStatus(await api.request('GET', `/api/v1/namespaces/${ns}/widgets`), 404, 'NotFound', 'the server could not find the requested resource', {});
      expectStatus(await api.request('GET', '/apis/nope.example.com/v1/things'), 404, 'NotFound', 'the server could not find the requested resource', {});
    });

    it('404 for a namespaced resource without a namespace, and for an unknown sub-resource', async () => {
      expect((await api.request('POST', '/api/v1/configmaps', { body: { metadata: { name: 'a' } } })).status).toBe(404);
      expect((await api.request('GET', cms('base') + '/status')).status).toBe(404);
    });

    it('409 AlreadyExists', async () => {
      const res = await api.request('POST', cms(), { body: { metadata: { name: 'base' } } });
      expectStatus(res, 409, 'AlreadyExists', 'configmaps "base" already exists', { name: 'base', kind: 'configmaps' });
    });

    it('422 Invalid lists every cause with its field path', async () => {
      const res = await api.request('POST', cms(), { body: { metadata: { name: 'Bad_Name', labels: { 'a/b/c': 'x' } }, data: { 'no spaces': '1' } } });
      expect(res.status).toBe(422);
      const body = res.json();
      expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, details: { name: 'Bad_Name', kind: 'ConfigMap' } });
      expect(body.details.causes.map((c: { field: string }) => c.field)).toEqual(['metadata.name', 'metadata.labels', 'data[no spaces]']);
      expect(body.message).toMatch(/^ConfigMap "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": .*, metadata\.labels: Invalid value: "a\/b\/c": .*, data\[no spaces\]: Invalid value: "no spaces": .*\]$/);
    });

    it('400 when the body kind is not the resource kind', async () => {
      const res = await api.request('POST', secrets(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k' } } });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
      // The wording differs from kube's transformDecodeError (`ConfigMap in version "v1" cannot be handled as a
      // Secret: ...`); both name the two kinds.
      expect(res.json().message).toContain('ConfigMap');
      expect(res.json().message).toContain('Secret');
      expect((await api.request('GET', secrets('k'))).status).toBe(404);
    });

    it('400 when the body apiVersion is not the resource version', async () => {
      const res = await api.request('POST', cms(), { body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'k' } } });
      expectStatus(res, 400, 'BadRequest', 'the API version in the data (v2) does not match the expected API version (v1)');
    });

    it('400 when the name of a PUT body is not the name on the URL', async () => {
      const res = await api.request('PUT', cms('base'), { body: { metadata: { name: 'other' } } });
      expectStatus(res, 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (base)');
    });

    it('400 when the namespace of the body is not the namespace on the URL', async () => {
      const res = await api.request('POST', cms(), { body: { metadata: { name: 'n', namespace: 'default' } } });
      expectStatus(res, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      const put = await api.request('PUT', cms('base'), { body: { metadata: { name: 'base', namespace: 'default' } } });
      expectStatus(put, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    });

    it('a namespace in the body of a cluster-scoped object is dropped', async () => {
      const res = await api.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'ns-dropped', namespace: 'default' } } });
      expect(res.status).toBe(201);
      expect(res.json().metadata).not.toHaveProperty('namespace');
    });

    it('400 for a body that is not JSON, empty, or not an object', async () => {
      const bad = await api.request('POST', cms(), { body: '{"metadata": ' });
      expect(bad.status).toBe(400);
      expect(bad.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
      const empty = await api.request('POST', cms(), { body: '' });
      expectStatus(empty, 400, 'BadRequest', 'the body of the request was empty');
      const arr = await api.request('POST', cms(), { body: '[1]' });
      expect(arr.status).toBe(400);
      expect(arr.json().reason).toBe('BadRequest');
    });

    it('400 for a JSON patch that is not an array and a merge patch that is not an object', async () => {
      const jp = await api.request('PATCH', cms('base'), { headers: { 'Content-Type': 'application/json-patch+json' }, body: { op: 'add' } });
      expect(jp.status).toBe(400);
      expect(jp.json().reason).toBe('BadRequest');
      const mp = await api.request('PATCH', cms('base'), { body: '[]' });
      expect(mp.status).toBe(400);
      expect(mp.json().reason).toBe('BadRequest');
    });

    it('405 for deletecollection of namespaces (a verb the resource lacks)', async () => {
      const res = await api.request('DELETE', '/api/v1/namespaces');
      expectStatus(res, 405, 'MethodNotAllowed', 'deletecollection is not supported on resources of kind "namespaces"', { kind: 'namespaces' });
    });

    it('405 for a verb the status sub-resource lacks', async () => {
      const del = await api.request('DELETE', '/api/v1/nodes/ns-dropped/status');
      expectStatus(del, 405, 'MethodNotAllowed', 'delete is not supported on resources of kind "nodes"', { kind: 'nodes' });
    });

    it('413 for a body over 3 MiB, whatever its content', async () => {
      const res = await api.request('POST', cms(), { body: { metadata: { name: 'huge' }, data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } } });
      expectStatus(res, 413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    });

    it('415 for an unknown request Content-Type, naming JSON, YAML and protobuf (the domain\'s name)', async () => {
      const res = await api.request('POST', cms(), { headers: { 'Content-Type': 'text/plain' }, body: '{"metadata":{"name":"t"}}' });
      expectStatus(
        res,
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.platform.protobuf',
      );
    });

    it('415 for a PATCH body that is no patch type (plain JSON, text), naming the four patch types', async () => {
      for (const type of ['application/json', 'text/plain']) {
        const res = await api.request('PATCH', cms('base'), { headers: { 'Content-Type': type }, body: { data: { x: '1' } } });
        expect([type, res.status, res.json().reason]).toEqual([type, 415, 'UnsupportedMediaType']);
        expect(res.json().message).toBe(
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
        );
      }
    });

    it('406 when no acceptable media type is served', async () => {
      const res = await api.request('GET', cms('base'), { headers: { Accept: 'text/html' } });
      expect(res.status).toBe(406);
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
      expect(res.json().message).toMatch(/^only the following media types are accepted: application\/json, application\/yaml/);
    });

    it('406 comes before any work: a missing object, and a create that then does not happen', async () => {
      const missing = await api.request('GET', cms('nope'), { headers: { Accept: 'text/html' } });
      expect([missing.status, missing.json().reason]).toEqual([406, 'NotAcceptable']);
      const create = await api.request('POST', cms(), { headers: { Accept: 'text/html' }, body: { metadata: { name: 'not-acceptable' } } });
      expect([create.status, create.json().reason]).toEqual([406, 'NotAcceptable']);
      expect((await api.request('GET', cms('not-acceptable'))).status).toBe(404);
    });

    it('401 with a wrong token; 403 without one (system:anonymous, refused by RBAC)', async () => {
      expectStatus(await api.request('GET', cms('base'), { token: 'wrong-token' }), 401, 'Unauthorized', 'Unauthorized');
      expectStatus(await api.request('GET', cms('base'), { token: null }), 403, 'Forbidden',
        `configmaps "base" is forbidden: User "system:anonymous" cannot get resource "configmaps" in API group "" in the namespace "${ns}"`,
        { name: 'base', kind: 'configmaps' });
    });

  });

  describe('media types', () => {
    it('YAML request body (Content-Type: application/yaml), JSON answer', async () => {
      const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels:\n    fmt: yaml\ndata:\n  key: "value"\n  num: "1"\n';
      const res = await api.request('POST', cms(), { headers: { 'Content-Type': 'application/yaml' }, body: yaml });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'from-yaml', labels: { fmt: 'yaml' } }, data: { key: 'value', num: '1' } });
    });

    it('YAML response for Accept: application/yaml', async () => {
      const res = await api.request('GET', cms('from-yaml'), { headers: { Accept: 'application/yaml' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/yaml');
      expect(res.text()).toMatch(/^apiVersion: v1\n/m);
      expect(parseYaml(res.text())).toEqual((await api.request('GET', cms('from-yaml'))).json());
    });

    it('YAML list response', async () => {
      const res = await api.request('GET', cms(), { headers: { Accept: 'application/yaml' } });
      expect(res.status).toBe(200);
      const list = parseYaml(res.text());
      expect(list).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
      expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('from-yaml');
    });

    it('YAML body with a different kind is refused like JSON', async () => {
      const res = await api.request('POST', cms(), { headers: { 'Content-Type': 'application/yaml' }, body: 'apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: y2\n' });
      expectStatus(res, 400, 'BadRequest', 'the API version in the data (v2) does not match the expected API version (v1)');
    });

    it('Accept with q-values picks the best served type', async () => {
      const cases: [string, string][] = [
        ['application/yaml;q=0.9, application/json;q=0.5', 'application/yaml'],
        ['application/json;q=0.1, application/yaml', 'application/yaml'],
        ['application/yaml;q=0, application/json', 'application/json'],
        ['text/html, */*;q=0.1', 'application/json'],
        ['application/*', 'application/json'],
        ['*/*', 'application/json'],
      ];
      for (const [accept, want] of cases) {
        const res = await api.request('GET', cms('from-yaml'), { headers: { Accept: accept } });
        expect([accept, res.status, res.headers['content-type']]).toEqual([accept, 200, want]);
      }
    });

    it('pretty=true indents JSON; Go booleans True and 1 too; false and 0 do not', async () => {
      for (const v of ['true', 'True', '1', 't']) {
        const res = await api.request('GET', cms('from-yaml'), { query: { pretty: v } });
        expect([v, res.text().startsWith('{\n  "')]).toEqual([v, true]);
      }
      for (const v of ['false', '0', 'F']) {
        const res = await api.request('GET', cms('from-yaml'), { query: { pretty: v } });
        expect([v, res.text().startsWith('{"')]).toEqual([v, true]);
      }
    });

    it('curl gets pretty JSON unless it asks otherwise', async () => {
      const curl = await api.request('GET', cms('from-yaml'), { headers: { 'User-Agent': 'curl/8.5.0' } });
      expect(curl.text().startsWith('{\n  "')).toBe(true);
      const off = await api.request('GET', cms('from-yaml'), { headers: { 'User-Agent': 'curl/8.5.0' }, query: { pretty: 'false' } });
      expect(off.text().startsWith('{"')).toBe(true);
    });

    it('gzip for a large list when asked, not for a small object', async () => {
      const gzNs = await createNamespace(api, uniqueName('gz'));
      for (let i = 0; i < 4; i++) {
        const res = await api.request('POST', `/api/v1/namespaces/${gzNs}/configmaps`, { body: { metadata: { name: `big-${i}` }, data: { v: String(i).repeat(50_000) } } });
        expect(res.status).toBe(201);
      }
      const plain = await api.request('GET', `/api/v1/namespaces/${gzNs}/configmaps`);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const gz = await api.request('GET', `/api/v1/namespaces/${gzNs}/configmaps`, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(gz.status).toBe(200);
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.headers.vary).toContain('Accept-Encoding');
      expect(gz.raw.length).toBeLessThan(plain.raw.length / 10);
      expect(JSON.parse(gunzipSync(gz.raw).toString('utf8'))).toEqual(plain.json());
      const small = await api.request('GET', cms('from-yaml'), { headers: { 'Accept-Encoding': 'gzip' } });
      expect(small.headers['content-encoding']).toBeUndefined();
      expect(small.json().metadata.name).toBe('from-yaml');
    });

    it('a large list goes out in pieces with its length known: Content-Length, not chunked, the bytes of JSON.stringify', async () => {
      const bigNs = await createNamespace(api, uniqueName('big'));
      // An item larger than a piece, and non-ASCII text around the pieces' edges.
      const data = [{ v: 'a'.repeat(100_000) }, { v: 'é日🚀'.repeat(9_000) }, { v: 'x'.repeat(30_000) }, { v: 'ü'.repeat(40_000) }];
      for (const [i, d] of data.entries()) {
        const res = await api.request('POST', `/api/v1/namespaces/${bigNs}/configmaps`, { body: { metadata: { name: `big-${i}` }, data: d } });
        expect(res.status).toBe(201);
      }
      for (const query of [{}, { resourceVersion: '0' }]) {
        const res = await api.request('GET', `/api/v1/namespaces/${bigNs}/configmaps`, { query });
        expect(res.status).toBe(200);
        expect(res.headers['transfer-encoding']).toBeUndefined();
        expect(Number(res.headers['content-length'])).toBe(res.raw.length);
        const list = res.json();
        expect(list.items.map((o: { data: unknown }) => o.data)).toEqual(data);
        expect(res.raw.equals(Buffer.from(JSON.stringify(list)))).toBe(true);
      }
    });

    it('a body without apiVersion and kind gets them from the URL', async () => {
      const res = await api.request('POST', secrets(), { body: { metadata: { name: 'bare' }, stringData: { a: 'b' } } });
      expect(res.status).toBe(201);
      expect(res.json()).toMatchObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bare' } });
      const put = await api.request('PUT', secrets('bare'), { body: { metadata: { name: 'bare' }, data: {} } });
      expect(put.status).toBe(200);
      expect(put.json()).toMatchObject({ apiVersion: 'v1', kind: 'Secret' });
    });

    it('errors are JSON Status bodies whatever the Accept', async () => {
      const res = await api.request('GET', secrets('missing'), { headers: { Accept: 'application/json' } });
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json().reason).toBe('NotFound');
    });

    it('a charset parameter on the request Content-Type is accepted', async () => {
      const res = await api.request('POST', cms(), { headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: { metadata: { name: 'charset' } } });
      expect(res.status).toBe(201);
    });
  });
});
