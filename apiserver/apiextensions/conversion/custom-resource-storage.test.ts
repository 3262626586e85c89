/**
 * Custom resource versions at the storage boundary, through real generic registries over the embedded
 * store with ONE watch cache shared by both versions (as the CRD controller serves them): a definition with
 * v1 (served) and v2 (served, storage), strategy None and strategy Webhook (a real HTTPS conversion webhook
 * in the test, verified with its caBundle). Raw store keys are read to see what is stored.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import { parseFieldSelector } from '../../selectors/field-selector.js';
import { createGenericRegistry, type GenericRegistry } from '../../registry/generic/generic-registry.js';
import { decodeObject } from '../../registry/generic/object-codec.js';
import { configMaps } from '../../registry/kinds/core/configmap.js';
import { CUSTOM_RESOURCE_VALIDATION_STYLE, customResourceKinds, type CustomResourceKindsOptions } from '../../registry/kinds/apiextensions/custom-resource-kinds.js';
import { applyMergePatch } from '../../registry/patch/merge-patch.js';
import { generateCa, generateServingCert, type CertAndKey } from '../../tls/generate-certs.js';
import { createWatchCache } from '../../../storage/cache/watch-cache.js';
import type { CacheWatcher, CacheWatchEvent, WatchCache } from '../../../storage/cache/types.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import type { JsonObject } from './group-version.js';

const K8S = naming('k8s.io');
const GROUP = 'stable.example.com';
const PREFIX = `/registry/${GROUP}/widgets/`;
const V1 = `${GROUP}/v1`;
const V2 = `${GROUP}/v2`;

const statusSchema = { type: 'object', default: { phase: 'Pending' }, properties: { phase: { type: 'string' } } };
const schemaOf = (spec: Record<string, unknown>): unknown => ({
  openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec }, status: statusSchema } },
});

/**
 * The definition. None: both versions have host and port, v2 also replicas (default 1). Webhook: v1 has
 * host and port, v2 `address` ("host:port") and replicas (default 1).
 */
function definition(conversion: unknown): KubeObject {
  const webhook = (conversion as { strategy?: string }).strategy === 'Webhook';
  const v1 = schemaOf({ host: { type: 'string' }, port: { type: 'integer' } });
  const v2 = webhook
    ? schemaOf({ address: { type: 'string' }, replicas: { type: 'integer', default: 1 } })
    : schemaOf({ host: { type: 'string' }, port: { type: 'integer' }, replicas: { type: 'integer', default: 1 } });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      conversion,
      versions: [
        { name: 'v1', served: true, storage: false, schema: v1, subresources: { status: {} } },
        { name: 'v2', served: true, storage: true, schema: v2, subresources: { status: {} }, selectableFields: [{ jsonPath: '.spec.replicas' }] },
      ],
    },
  };
}

// --- the conversion webhook --------------------------------------------------------------------------

let ca: CertAndKey;
let otherCa: CertAndKey;
let server: Server;
let port: number;
let closedPort: number;
type Handler = (review: JsonObject, res: ServerResponse) => void;
let handler: Handler;
/** Every review received: the desired version and the names of the objects sent. */
const reviews: { desired: string; names: string[] }[] = [];

/** v1 {host, port} <-> v2 {address: "host:port"}; v1 answers carry a field v1 does not declare. */
function convertWidget(obj: JsonObject, desired: string): JsonObject {
  const spec = (obj['spec'] ?? {}) as Record<string, unknown>;
  if (desired === V2) {
    const { host, port: p, ...rest } = spec;
    return { ...obj, apiVersion: desired, spec: { ...rest, address: `${String(host)}:${String(p)}` } };
  }
  const { address, ...rest } = spec;
  const [host, p] = String(address).split(':');
  return { ...obj, apiVersion: desired, spec: { ...rest, host, port: Number(p), fromWebhook: true } };
}

const converting: Handler = (review, res) => {
  const request = review['request'] as { uid: string; desiredAPIVersion: string; objects: JsonObject[] };
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({
    apiVersion: review['apiVersion'],
    kind: 'ConversionReview',
    response: { uid: request.uid, convertedObjects: request.objects.map((o) => convertWidget(o, request.desiredAPIVersion)), result: { status: 'Success' } },
  }));
};

const garbage: Handler = (_review, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end('this is not a ConversionReview');
};

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
const NONE = { strategy: 'None' };
const webhookAt = (p: number, caPem = ca.certPem): unknown => ({
  strategy: 'Webhook',
  webhook: { clientConfig: { url: `https://127.0.0.1:${p}/convert`, caBundle: b64(caPem) }, conversionReviewVersions: ['v1'] },
});

beforeAll(async () => {
  ca = await generateCa('conversion-test-ca');
  otherCa = await generateCa('someone-else');
  const serving = await generateServingCert(ca, 'converter', [
    { type: 'dns', value: 'converter.webhooks.svc' },
    { type: 'ip', value: '127.0.0.1' },
  ]);
  server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject;
      const request = review['request'] as { desiredAPIVersion: string; objects: { metadata: { name: string } }[] };
      reviews.push({ desired: request.desiredAPIVersion, names: request.objects.map((o) => o.metadata.name) });
      handler(review, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  // A port nothing listens on: a webhook that is down.
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// --- the store, the shared cache, the registries -----------------------------------------------------

let dir: string;
let store: MemoryStore;
let cache: WatchCache<KubeObject>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cr-storage-'));
  store = await openMemoryStore({ dataDir: dir });
  cache = createWatchCache<KubeObject>(store, PREFIX, { decode: decodeObject });
  handler = converting;
  reviews.length = 0;
});

afterEach(async () => {
  cache.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The registries of v1 and v2 built from `crd`, as the CRD controller serves them (one shared cache). */
function serve(crd: KubeObject, options?: CustomResourceKindsOptions): { v1: GenericRegistry; v2: GenericRegistry } {
  const [k1, k2] = customResourceKinds(crd, K8S, options);
  const make = (strategy: typeof k1) =>
    createGenericRegistry({ store, strategy: strategy!, naming: K8S, resourcePrefix: `${GROUP}/widgets`, validationStyle: CUSTOM_RESOURCE_VALIDATION_STYLE, cache });
  return { v1: make(k1), v2: make(k2) };
}

async function raw(name: string, ns = 'default'): Promise<Record<string, unknown>> {
  const { kv } = await store.get(`${PREFIX}${ns}/${name}`);
  if (kv === undefined) throw new Error(`no key for ${name}`);
  return JSON.parse(Buffer.from(kv.value).toString('utf8')) as Record<string, unknown>;
}

/** Writes a stored object directly (as an older server would have stored it). */
async function putRaw(obj: Record<string, unknown>, ns = 'default'): Promise<number> {
  const name = (obj['metadata'] as { name: string }).name;
  return (await store.create(`${PREFIX}${ns}/${name}`, Buffer.from(JSON.stringify(obj)))).revision;
}

const widgetV1 = (name: string, host = 'a.example', p = 8080): KubeObject => ({
  apiVersion: V1, kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { host, port: p },
});

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('the request succeeded');
}

const spec = (o: KubeObject): Record<string, unknown> => o.spec as Record<string, unknown>;
const next = async (w: CacheWatcher<KubeObject>): Promise<CacheWatchEvent<KubeObject>> => (await w[Symbol.asyncIterator]().next()).value as CacheWatchEvent<KubeObject>;
const watchFrom = (r: GenericRegistry, rv: number): Promise<CacheWatcher<KubeObject>> =>
  r.watch('default', { resourceVersion: String(rv), allowWatchBookmarks: false, deadline: Date.now() + 60_000 });

// --- strategy None -----------------------------------------------------------------------------------

describe('strategy None', () => {
  test('create in v1 is stored in v2 (apiVersion only, nothing defaulted into storage); both versions read it', async () => {
    const { v1, v2 } = serve(definition(NONE));
    const created = await v1.create('default', widgetV1('w1'));
    // The answer is the stored object read back in v1: the stored version's defaults, then v1's pruning.
    expect(created.object).toMatchObject({ apiVersion: V1, spec: { host: 'a.example', port: 8080 }, status: { phase: 'Pending' } });
    expect(spec(created.object).replicas).toBeUndefined();

    const stored = await raw('w1');
    expect(stored['apiVersion']).toBe(V2);
    expect(stored['spec']).toEqual({ host: 'a.example', port: 8080 });
    expect(stored['status']).toBeUndefined(); // the status default is never stored

    const asV2 = await v2.get('default', 'w1');
    expect(asV2).toMatchObject({ apiVersion: V2, spec: { host: 'a.example', port: 8080, replicas: 1 }, status: { phase: 'Pending' } });
    const asV1 = await v1.get('default', 'w1', { resourceVersion: '0' });
    expect(asV1).toMatchObject({ apiVersion: V1, spec: { host: 'a.example', port: 8080 }, status: { phase: 'Pending' } });
    expect(spec(asV1).replicas).toBeUndefined();
    // Defaulting and conversion of a cached object happen once per version: the same served object again.
    expect(await v1.get('default', 'w1', { resourceVersion: '0' })).toBe(asV1);

    const list = await v1.list('default');
    expect(list.items.map((o) => `${o.apiVersion} ${o.metadata.name}`)).toEqual([`${V1} w1`]);
    expect(list.items[0]).toBe(asV1);
  });

  test('an object stored in an older storage version is pruned and defaulted in its own version, then converted', async () => {
    const { v1, v2 } = serve(definition(NONE));
    await putRaw({
      apiVersion: V1, kind: 'Widget',
      metadata: { name: 'old', namespace: 'default', uid: 'u-old', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { host: 'legacy.example', port: 81, replicas: 5, extra: 'x' },
    });
    const asV1 = await v1.get('default', 'old');
    expect(asV1.apiVersion).toBe(V1);
    expect(asV1.spec).toEqual({ host: 'legacy.example', port: 81 }); // v1 declares neither replicas nor extra
    expect(asV1.status).toEqual({ phase: 'Pending' });
    const asV2 = await v2.get('default', 'old', { resourceVersion: '0' });
    expect(asV2.apiVersion).toBe(V2);
    // Pruned by v1 (its own version) before converting: replicas is gone, and v1's defaults have none.
    expect(asV2.spec).toEqual({ host: 'legacy.example', port: 81 });
    // Reading never rewrites the key.
    expect((await raw('old'))['spec']).toEqual({ host: 'legacy.example', port: 81, replicas: 5, extra: 'x' });
  });

  test('unknown fields in storage are pruned on read; a field selector sees the defaulted served form', async () => {
    const { v2 } = serve(definition(NONE));
    await putRaw({ apiVersion: V2, kind: 'Widget', metadata: { name: 'p', namespace: 'default', uid: 'u-p' }, spec: { host: 'h', port: 1, surplus: true }, extra: 1 });
    await putRaw({ apiVersion: V2, kind: 'Widget', metadata: { name: 'q', namespace: 'default', uid: 'u-q' }, spec: { host: 'h', port: 1, replicas: 3 } });
    const got = await v2.get('default', 'p');
    expect(got.spec).toEqual({ host: 'h', port: 1, replicas: 1 });
    expect(got['extra']).toBeUndefined();
    const cached = await v2.get('default', 'p', { resourceVersion: '0' });
    expect(cached.spec).toEqual({ host: 'h', port: 1, replicas: 1 });
    // `spec.replicas` is never stored for p: the selector matches its default, from the cache and the store.
    const fieldSelector = parseFieldSelector('spec.replicas=1');
    expect((await v2.list('default', { fieldSelector })).items.map((o) => o.metadata.name)).toEqual(['p']);
    expect((await v2.list('default', { fieldSelector, limit: 5 })).items.map((o) => o.metadata.name)).toEqual(['p']);
  });

  test('update and merge patch through v1 write v2', async () => {
    const { v1 } = serve(definition(NONE));
    await v1.create('default', widgetV1('u'));
    const current = await v1.get('default', 'u');
    const { object } = await v1.update('default', 'u', { ...current, spec: { host: 'b.example', port: 9090 } });
    expect(object).toMatchObject({ apiVersion: V1, spec: { host: 'b.example', port: 9090 } });
    expect(await raw('u')).toMatchObject({ apiVersion: V2, spec: { host: 'b.example', port: 9090 } });
    const patched = await v1.patch('default', 'u', (cur) => applyMergePatch(cur, { spec: { port: 7070 } }) as KubeObject);
    expect(spec(patched.object)).toEqual({ host: 'b.example', port: 7070 });
    expect(await raw('u')).toMatchObject({ apiVersion: V2, spec: { host: 'b.example', port: 7070 } });
  });
});

// --- strategy Webhook --------------------------------------------------------------------------------

describe('strategy Webhook', () => {
  test('create in v1: converted to v2 for storage and back for the answer; reads in v2 never call the webhook', async () => {
    const { v1, v2 } = serve(definition(webhookAt(port)));
    const created = await v1.create('default', widgetV1('w1'));
    expect(reviews).toEqual([{ desired: V2, names: ['w1'] }, { desired: V1, names: ['w1'] }]);
    // The webhook's undeclared v1 field is pruned from its answer.
    expect(created.object).toMatchObject({ apiVersion: V1, spec: { host: 'a.example', port: 8080 }, status: { phase: 'Pending' } });
    expect(spec(created.object).fromWebhook).toBeUndefined();
    expect(await raw('w1')).toMatchObject({ apiVersion: V2, spec: { address: 'a.example:8080' } });
    expect((await raw('w1'))['status']).toBeUndefined();

    reviews.length = 0;
    expect(await v2.get('default', 'w1')).toMatchObject({ apiVersion: V2, spec: { address: 'a.example:8080', replicas: 1 }, status: { phase: 'Pending' } });
    expect(await v2.get('default', 'w1', { resourceVersion: '0' })).toMatchObject({ spec: { address: 'a.example:8080', replicas: 1 } });
    expect((await v2.list('default')).items).toHaveLength(1);
    expect(reviews).toEqual([]);

    const asV1 = await v1.get('default', 'w1');
    expect(asV1).toMatchObject({ apiVersion: V1, spec: { host: 'a.example', port: 8080 }, status: { phase: 'Pending' } });
    expect(spec(asV1).fromWebhook).toBeUndefined();
    expect(reviews).toHaveLength(1);
  });

  test('a list converts its page in one review, memoized for the cache', async () => {
    const { v1, v2 } = serve(definition(webhookAt(port)));
    for (const name of ['a', 'b', 'c']) await v2.create('default', { apiVersion: V2, kind: 'Widget', metadata: { name }, spec: { address: `${name}.example:1` } });
    expect(reviews).toEqual([]);
    const fromCache = await v1.list('default');
    expect(fromCache.items.map((o) => `${o.apiVersion} ${String(spec(o).host)}`)).toEqual([`${V1} a.example`, `${V1} b.example`, `${V1} c.example`]);
    expect(reviews).toEqual([{ desired: V1, names: ['a', 'b', 'c'] }]);
    await v1.list('default');
    await v1.get('default', 'b', { resourceVersion: '0' });
    expect(reviews).toHaveLength(1);
    // A page read from the store converts in one review too.
    const page = await v1.list('default', { limit: 2 });
    expect(page.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(reviews[1]).toEqual({ desired: V1, names: ['a', 'b'] });
  });

  test('an object stored in an older storage version is read in both versions', async () => {
    const { v1, v2 } = serve(definition(webhookAt(port)));
    await putRaw({
      apiVersion: V1, kind: 'Widget',
      metadata: { name: 'old', namespace: 'default', uid: 'u-old', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { host: 'legacy.example', port: 81, extra: 'x' },
    });
    const asV1 = await v1.get('default', 'old');
    expect(asV1.spec).toEqual({ host: 'legacy.example', port: 81 });
    expect(reviews).toEqual([]); // already in v1
    const asV2 = await v2.get('default', 'old');
    expect(asV2).toMatchObject({ apiVersion: V2, spec: { address: 'legacy.example:81' }, status: { phase: 'Pending' } });
    // Defaults are the stored version's (v1 has no replicas), applied before converting, as Kubernetes does.
    expect(spec(asV2).replicas).toBeUndefined();
    expect(reviews).toEqual([{ desired: V2, names: ['old'] }]);
    // The webhook got the object pruned in its own version.
    expect(spec(asV1).extra).toBeUndefined();
  });

  test('update and merge patch through v1 read the current object in v1 and write v2', async () => {
    const { v1 } = serve(definition(webhookAt(port)));
    await v1.create('default', widgetV1('u'));
    const current = await v1.get('default', 'u');
    const { object } = await v1.update('default', 'u', { ...current, spec: { host: 'b.example', port: 9090 } });
    expect(object).toMatchObject({ apiVersion: V1, spec: { host: 'b.example', port: 9090 }, metadata: { generation: 2 } });
    expect(await raw('u')).toMatchObject({ apiVersion: V2, spec: { address: 'b.example:9090' } });
    const patched = await v1.patch('default', 'u', (cur) => applyMergePatch(cur, { spec: { port: 7070 } }) as KubeObject);
    expect(spec(patched.object)).toEqual({ host: 'b.example', port: 7070 });
    expect(await raw('u')).toMatchObject({ apiVersion: V2, spec: { address: 'b.example:7070' } });
    // An unchanged update writes nothing.
    const again = await v1.get('default', 'u');
    const same = await v1.update('default', 'u', again);
    expect(same.object.metadata.resourceVersion).toBe(again.metadata.resourceVersion);
  });

  test('a watch in v1 converts each event once for all of its watchers', async () => {
    const { v1, v2 } = serve(definition(webhookAt(port)));
    const start = (await v2.create('default', { apiVersion: V2, kind: 'Widget', metadata: { name: 'seed' }, spec: { address: 's:1' } })).object;
    const watchers = await Promise.all(Array.from({ length: 5 }, () => watchFrom(v1, Number(start.metadata.resourceVersion))));
    const v2Watcher = await watchFrom(v2, Number(start.metadata.resourceVersion));
    try {
      await v2.create('default', { apiVersion: V2, kind: 'Widget', metadata: { name: 'w' }, spec: { address: 'w.example:5' } });
      const events = await Promise.all(watchers.map(next));
      for (const e of events) expect(e).toMatchObject({ type: 'ADDED', object: { object: { apiVersion: V1, metadata: { name: 'w' }, spec: { host: 'w.example', port: 5 } } } });
      const objects = events.map((e) => (e.type === 'BOOKMARK' ? undefined : e.object.object));
      expect(new Set(objects).size).toBe(1);
      expect(reviews).toEqual([{ desired: V1, names: ['w'] }]);
      expect(await next(v2Watcher)).toMatchObject({ type: 'ADDED', object: { object: { apiVersion: V2, spec: { address: 'w.example:5', replicas: 1 } } } });
      expect(reviews).toHaveLength(1);
    } finally {
      for (const w of [...watchers, v2Watcher]) w.close();
    }
  });

  test('a webhook that is down fails that resource with a 500, never the cache, v2 reads or other resources', async () => {
    const working = serve(definition(webhookAt(port)));
    await working.v2.create('default', { apiVersion: V2, kind: 'Widget', metadata: { name: 'w' }, spec: { address: 'w.example:5' } });
    // The controller rebuilds the kinds when the definition changes: now its webhook is down.
    const { v1, v2 } = serve(definition(webhookAt(closedPort)));
    const prefix = `conversion for ${V2}, Kind=Widget failed: conversion webhook for /, Kind= failed: Post "https://127.0.0.1:${closedPort}/convert?timeout=30s": `;
    for (const p of [v1.get('default', 'w'), v1.get('default', 'w', { resourceVersion: '0' }), v1.list('default'), v1.list('default', { limit: 1 })]) {
      const err = await failure(p);
      expect(err.code).toBe(500);
      expect(err.message).toBe(`${prefix}dial tcp 127.0.0.1:${closedPort}: connect: connection refused`);
    }
    expect(await failure(v1.create('default', widgetV1('x')))).toMatchObject({ code: 500 });
    expect(await failure(v1.delete('default', 'w'))).toMatchObject({ code: 500 });
    // The storage version needs no webhook; other resources do not care.
    expect((await v2.get('default', 'w')).spec).toEqual({ address: 'w.example:5', replicas: 1 });
    const cms = createGenericRegistry({ store, strategy: configMaps, naming: K8S });
    await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'still-works' }, data: { a: 'b' } });
    expect((await cms.get('default', 'still-works')).data).toEqual({ a: 'b' });

    // A watch whose event cannot be converted ends with an InternalError; a v2 watcher of the same cache goes on.
    const rv = Number((await v2.get('default', 'w')).metadata.resourceVersion);
    const broken = await watchFrom(v1, rv);
    const fine = await watchFrom(v2, rv);
    try {
      await v2.create('default', { apiVersion: V2, kind: 'Widget', metadata: { name: 'w2' }, spec: { address: 'w2.example:6' } });
      const err = await failure(next(broken));
      expect(err.code).toBe(500);
      expect(err.reason).toBe('InternalError');
      expect(err.message).toBe(`Internal error occurred: ${prefix}dial tcp 127.0.0.1:${closedPort}: connect: connection refused`);
      expect(await next(fine)).toMatchObject({ type: 'ADDED', object: { object: { metadata: { name: 'w2' } } } });
    } finally {
      broken.close();
      fine.close();
    }
    // The failure was not memoized: with the webhook back, the same cached objects convert.
    expect((await working.v1.list('default')).items.map((o) => spec(o).host)).toEqual(['w.example', 'w2.example']);
  });

  test('a garbage answer is a 500 with the decoding error; the next good answer serves again', async () => {
    const { v1 } = serve(definition(webhookAt(port)));
    await putRaw({ apiVersion: V2, kind: 'Widget', metadata: { name: 'g', namespace: 'default', uid: 'u-g' }, spec: { address: 'g:1' } });
    handler = garbage;
    const err = await failure(v1.get('default', 'g', { resourceVersion: '0' }));
    expect(err.code).toBe(500);
    expect(err.message).toMatch(new RegExp(`^conversion for ${V2}, Kind=Widget failed: conversion webhook for /, Kind= failed: couldn't get version/kind; json parse error: `));
    handler = converting;
    expect(spec(await v1.get('default', 'g', { resourceVersion: '0' }))).toEqual({ host: 'g', port: 1 });
  });

  test('a changed caBundle takes effect with the rebuilt kinds; service references go through the resolver option', async () => {
    await putRaw({ apiVersion: V2, kind: 'Widget', metadata: { name: 'c', namespace: 'default', uid: 'u-c' }, spec: { address: 'c:1' } });
    const wrongCa = serve(definition(webhookAt(port, otherCa.certPem)));
    expect((await failure(wrongCa.v1.get('default', 'c'))).message).toContain('tls: failed to verify certificate: x509: certificate signed by unknown authority');
    const rightCa = serve(definition(webhookAt(port)));
    expect(spec(await rightCa.v1.get('default', 'c'))).toEqual({ host: 'c', port: 1 });

    const viaService = {
      strategy: 'Webhook',
      webhook: { clientConfig: { service: { namespace: 'webhooks', name: 'converter', port, path: '/convert' }, caBundle: b64(ca.certPem) }, conversionReviewVersions: ['v1'] },
    };
    const dialled: string[] = [];
    const { v1 } = serve(definition(viaService), {
      webhook: { resolveService: (s) => { dialled.push(`${s.name}.${s.namespace}:${s.port}`); return { host: '127.0.0.1', port: s.port }; } },
    });
    expect(spec(await v1.get('default', 'c'))).toEqual({ host: 'c', port: 1 });
    expect(dialled).toEqual([`converter.webhooks:${port}`]);
  });
});
