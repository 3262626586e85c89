/**
 * Issue 18 item 2: nesting depth and YAML aliases are bounded on every decoder. A body nested deeper than
 * `maxNestingDepth` (500) is a 400 Status (JSON in Go's words, YAML in go-yaml's), on create, update, every
 * patch type, apply, delete bodies, and raw JSON inside protobuf; a body at the limit is served by every
 * write, read and watch path (the limit leaves the server's recursive code room on the stack). YAML alias
 * bombs and anchors containing themselves are 400s (how fast the decoders refuse them: make bench part bad-input). Nothing is stored by a refused body.
 */
import { configMaps } from '../../../apiserver/registry/kinds/core/configmap.js';
import { objectProtobuf } from '../../../apiserver/codec/protobuf/protobuf-codec.js';
import { maxNestingDepth } from '../../../apiserver/request/limits.js';
import { memoryBackend, snapshot, startWorld, type World } from './fixtures.js';
import { rawExchange } from './raw-client.js';

const b = memoryBackend();
afterAll(() => b.stop());

let w: World;
beforeAll(async () => {
  w = await startWorld(b);
}, 60_000);

/** `k` nested objects: `{"a":{"a":...1}}`. */
const nest = (k: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < k; i++) v = { a: v };
  return v;
};
/** JSON text of `value` with the string "DEEP" replaced by `k` nested objects (any k: built as text). */
const withDeep = (value: unknown, k: number): string => JSON.stringify(value).replace('"DEEP"', '{"a":'.repeat(k) + '1' + '}'.repeat(k));
/** A Gadget nested `depth` levels in all (root, spec, then `free` and its nest). */
const gadget = (name: string, depth: number) => ({ apiVersion: `${w.group}/v1`, kind: 'Gadget', metadata: { name }, spec: { replicas: 1, free: nest(depth - 2) } });
/** The same as block-style YAML, each level indented two more columns, as YAML is usually written. */
const blockYaml = (name: string, depth: number): string => {
  const lines = [`apiVersion: ${w.group}/v1`, 'kind: Gadget', 'metadata:', `  name: ${name}`, 'spec:', '  replicas: 1', '  free:'];
  for (let i = 0; i < depth - 2; i++) lines.push(`${' '.repeat(4 + 2 * i)}a:`);
  lines[lines.length - 1] += ' 1';
  return lines.join('\n') + '\n';
};

const JSON_DEPTH = { code: 400, reason: 'BadRequest', message: "error decoding JSON: invalid character '{' exceeded max depth" };
const YAML_DEPTH = { code: 400, reason: 'BadRequest', message: `error decoding YAML: exceeded max depth of ${maxNestingDepth}` };

describe('at the limit', () => {
  it('a custom resource nested 500 levels is created, read, listed, watched, updated, patched and applied', async () => {
    const path = `${w.gadgets}/deep`;
    const created = await w.api.request('POST', w.gadgets, { body: gadget('deep', maxNestingDepth) });
    expect(created.status).toBe(201);
    const rv = created.json().metadata.resourceVersion as string;
    for (const accept of ['application/json', 'application/yaml', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
      expect([accept, (await w.api.request('GET', path, { headers: { Accept: accept } })).status]).toEqual([accept, 200]);
      expect([accept, (await w.api.request('GET', w.gadgets, { headers: { Accept: accept } })).status]).toEqual([accept, 200]);
    }
    const watch = await w.api.request('GET', w.gadgets, { query: { watch: 'true', resourceVersion: '0', timeoutSeconds: '1', fieldSelector: 'metadata.name=deep' } });
    expect(watch.text()).toContain('"type":"ADDED"');
    const got = (await w.api.request('GET', path)).json();
    // managedFields record `free`'s nest a few levels deeper than the object itself: not sent back.
    delete got.metadata.managedFields;
    expect((await w.api.request('PUT', path, { body: { ...got, spec: { ...got.spec, replicas: 2 } } })).status).toBe(200);
    expect((await w.api.request('PATCH', path, { body: { spec: { free: nest(maxNestingDepth - 2) } } })).status).toBe(200);
    expect((await w.api.request('PATCH', path, { body: [{ op: 'replace', path: '/spec/replicas', value: 3 }], headers: { 'Content-Type': 'application/json-patch+json' } })).status).toBe(200);
    const apply = await w.api.request('PATCH', path, { body: JSON.stringify(gadget('deep', maxNestingDepth)), headers: { 'Content-Type': 'application/apply-patch+yaml' }, query: { fieldManager: 'deep', force: 'true' } });
    expect(apply.status).toBe(200);
    const applied = apply.json();
    delete applied.metadata.managedFields;
    expect((await w.api.request('PUT', `${path}/status`, { body: { ...applied, status: { replicas: 1 } } })).status).toBe(200);
    expect((await w.api.request('GET', path)).json().metadata.resourceVersion).not.toBe(rv);
    expect((await w.api.request('DELETE', path)).status).toBe(200);
  });

  it('block-style YAML at the limit is created', async () => {
    const res = await w.api.request('POST', w.gadgets, { body: blockYaml('deep-yaml', maxNestingDepth), headers: { 'Content-Type': 'application/yaml' } });
    expect([res.status, res.text().slice(0, 200)]).toEqual([201, expect.any(String)]);
  });
});

describe('one level past the limit, and far past it', () => {
  let before: Record<string, string | number>;
  beforeAll(async () => {
    before = await snapshot(w);
  });
  afterAll(async () => {
    expect(await snapshot(w)).toEqual(before);
  });

  const cm = () => `/api/v1/namespaces/${w.ns}/configmaps`;

  it.each([
    ['one level', maxNestingDepth + 1],
    ['100,000 levels', 100_000],
  ])('JSON %s too deep: 400 on create, update, merge, JSON and strategic patch, apply and delete bodies', async (_what, depth) => {
    // Each body is `depth` levels deep in all.
    const deepGadget = (name: string) => withDeep({ apiVersion: `${w.group}/v1`, kind: 'Gadget', metadata: { name }, spec: { free: 'DEEP' } }, depth - 2);
    const deepCm = withDeep({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: 'DEEP' }, depth - 1);
    const requests: [string, string, string, string][] = [
      ['POST', w.gadgets, deepGadget('too-deep'), 'application/json'],
      ['POST', cm(), deepCm, 'application/json'],
      ['PUT', `${w.gadgets}/g1`, deepGadget('g1'), 'application/json'],
      ['PUT', `${cm()}/cm1`, deepCm, 'application/json'],
      ['PATCH', `${w.gadgets}/g1`, withDeep({ spec: { free: 'DEEP' } }, depth - 2), 'application/merge-patch+json'],
      ['PATCH', `${w.gadgets}/g1`, withDeep([{ op: 'add', path: '/spec/free', value: 'DEEP' }], depth - 2), 'application/json-patch+json'],
      ['PATCH', `${cm()}/cm1`, withDeep({ data: 'DEEP' }, depth - 1), 'application/strategic-merge-patch+json'],
      ['PUT', `${w.gadgets}/g1/status`, deepGadget('g1'), 'application/json'],
      ['PATCH', `${w.gadgets}/g1/scale`, withDeep({ spec: 'DEEP' }, depth - 1), 'application/merge-patch+json'],
      ['DELETE', `${cm()}/cm1`, withDeep({ kind: 'DeleteOptions', apiVersion: 'v1', x: 'DEEP' }, depth - 1), 'application/json'],
      ['DELETE', cm(), withDeep({ kind: 'DeleteOptions', apiVersion: 'v1', x: 'DEEP' }, depth - 1), 'application/json'],
    ];
    for (const [method, path, body, type] of requests) {
      const res = await w.api.request(method, path, { body, headers: { 'Content-Type': type } });
      expect([method, path, res.status, res.json().message]).toEqual([method, path, 400, expect.stringContaining(JSON_DEPTH.message)]);
    }
    const apply = await w.api.request('PATCH', `${w.gadgets}/g1`, { body: deepGadget('g1'), headers: { 'Content-Type': 'application/apply-patch+yaml' }, query: { fieldManager: 'x' } });
    expect(apply.json()).toMatchObject(YAML_DEPTH);
  });

  it.each([
    ['block maps', () => blockYaml('too-deep', maxNestingDepth + 1)],
    ['flow sequences, 1 MiB deep', () => `apiVersion: ${w.group}/v1\nkind: Gadget\nmetadata: {name: x}\nspec: ${'['.repeat(1 << 20)}${']'.repeat(1 << 20)}\n`],
    ['block sequences, 500,000 deep', () => `apiVersion: ${w.group}/v1\nkind: Gadget\nmetadata: {name: x}\nspec:\n  ${'- '.repeat(500_000)}x\n`],
  ])('YAML %s too deep: 400', async (_what, make) => {
    const res = await w.api.request('POST', w.gadgets, { body: make(), headers: { 'Content-Type': 'application/yaml' } });
    expect(res.json()).toMatchObject(YAML_DEPTH);
  });

  it('a JSON patch whose copies stack the object deeper than the limit: 400', async () => {
    // Each copy puts the whole chain under its own deepest member: free holds 250 levels, then 500, 1000.
    const ops: object[] = [{ op: 'add', path: '/spec/free', value: nest(249) }];
    let inner = 249;
    for (let i = 0; i < 2; i++) {
      ops.push({ op: 'copy', from: '/spec/free', path: '/spec/free' + '/a'.repeat(inner) });
      inner *= 2;
    }
    const res = await w.api.request('PATCH', `${w.gadgets}/g1`, { body: JSON.stringify(ops), headers: { 'Content-Type': 'application/json-patch+json' } });
    expect([res.status, res.json().message]).toEqual([400, `the patched object exceeds the max depth of ${maxNestingDepth}`]);
  });

  it('raw JSON nested too deep inside a protobuf body (managedFields fieldsV1): 400', async () => {
    const obj = {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'pb-deep', managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: nest(maxNestingDepth + 1) }] },
    };
    const bytes = objectProtobuf(configMaps.schema, obj as never, undefined).bytes;
    const res = await w.api.request('POST', cm(), { body: Buffer.from(bytes), headers: { 'Content-Type': 'application/vnd.platform.protobuf' } });
    expect([res.status, res.json().message]).toEqual([400, expect.stringMatching(/^the body of the request could not be decoded as protobuf: .*invalid JSON in raw bytes: invalid character '\{' exceeded max depth$/)]);
  });
});

describe('YAML aliases', () => {
  const cm = () => `/api/v1/namespaces/${w.ns}/configmaps`;
  const post = (text: string) => w.api.request('POST', cm(), { body: text, headers: { 'Content-Type': 'application/yaml' } });

  it('billion laughs: 400 "document contains excessive aliasing" at once, nothing stored', async () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: lol}', 'x:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(`  ${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    }
    const res = await post(lines.join('\n'));
    expect(res.json()).toMatchObject({ code: 400, message: 'error decoding YAML: document contains excessive aliasing' });
    expect((await w.api.request('GET', `${cm()}/lol`)).status).toBe(404);
  });

  it('one 1 MiB anchor referenced a thousand times: 400', async () => {
    const res = await post(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  a: &a "${'x'.repeat(1 << 20)}"\nx: [${Array(1000).fill('*a').join(',')}]\n`);
    expect(res.json()).toMatchObject({ code: 400, message: 'error decoding YAML: document contains excessive aliasing' });
  });

  it('an anchor containing itself: 400', async () => {
    const res = await post('apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: self, labels: {x: *m}}\n');
    expect(res.json()).toMatchObject({ code: 400, message: "error decoding YAML: anchor 'm' value contains itself" });
  });

  it('aliases used sensibly still work, each a copy', async () => {
    const res = await post('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: anchors, labels: &l {app: web}, annotations: *l}\ndata: {a: &v hello, b: *v}\n');
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ metadata: { labels: { app: 'web' }, annotations: { app: 'web' } }, data: { a: 'hello', b: 'hello' } });
    expect((await w.api.request('DELETE', `${cm()}/anchors`)).status).toBe(200);
  });
});

it('the server is alive and answers after all of it', async () => {
  const res = await rawExchange(w.api, `GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  expect(res.status).toBe(200);
});
