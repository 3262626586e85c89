/**
 * Protobuf over HTTP, checked with an independent codec: bodies are built and responses read by protobufjs
 * from the hand-written apiserver/codec/protobuf/testing/kubernetes.proto (not by the server's encoder).
 */
import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const PB = 'application/vnd.kubernetes.protobuf';
const root = protobuf.parse(readFileSync(join(__dirname, '..', '..', 'apiserver', 'codec', 'protobuf', 'testing', 'kubernetes.proto'), 'utf8')).root;
const T = (name: string) => root.lookupType(`k8s.${name}`);
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** `k8s\0` + Unknown{typeMeta, raw}, as client-go writes it. */
function envelope(apiVersion: string, kind: string, message: string, value: object): Buffer {
  const raw = T(message).encode(T(message).fromObject(value)).finish();
  const unknown = T('Unknown').encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([MAGIC, unknown]);
}

/** Reads an enveloped response: its type meta and the message decoded as `message`. */
function open(body: Buffer, message: string): { apiVersion: string; kind: string; object: any } {
  expect(body.subarray(0, 4).equals(MAGIC)).toBe(true);
  const u = T('Unknown').decode(body.subarray(4)) as any;
  const object = T(message).toObject(T(message).decode(u.raw), { longs: Number, bytes: String });
  return { apiVersion: u.typeMeta.apiVersion, kind: u.typeMeta.kind, object };
}

const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
  });
  const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

  it('creates from a protobuf body and answers in protobuf; get, list and PartialObjectMetadata too', async () => {
    const name = uniqueName('pb');
    const body = envelope('v1', 'ConfigMap', 'ConfigMap', { metadata: { name, labels: { a: 'b' } }, data: { k: 'v' }, binaryData: { bin: Buffer.from([0, 1, 255]) } });
    const res = await api.request('POST', cms(), { body, headers: { 'Content-Type': PB, Accept: `${PB},application/json` }, query: { fieldManager: 'pb-test' } });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(PB);
    const created = open(res.raw, 'ConfigMap');
    expect([created.apiVersion, created.kind]).toEqual(['v1', 'ConfigMap']);
    expect(created.object.metadata.name).toBe(name);
    expect(created.object.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.object.metadata.creationTimestamp.seconds).toBeGreaterThan(1.7e9);
    expect(created.object.data).toEqual({ k: 'v' });
    expect(Buffer.from(created.object.binaryData.bin, 'base64')).toEqual(Buffer.from([0, 1, 255]));
    expect(created.object.metadata.managedFields[0].manager).toBe('pb-test');

    // The same object in JSON: the protobuf body decoded to what a JSON body would give.
    const json = (await api.request('GET', `${cms()}/${name}`)).json();
    expect(json.data).toEqual({ k: 'v' });
    expect(json.binaryData).toEqual({ bin: Buffer.from([0, 1, 255]).toString('base64') });
    expect(json.metadata.labels).toEqual({ a: 'b' });
    expect(json.metadata.generateName).toBeUndefined();

    const get = await api.request('GET', `${cms()}/${name}`, { headers: { Accept: PB } });
    expect(get.headers['content-type']).toBe(PB);
    expect(open(get.raw, 'ConfigMap').object.metadata.resourceVersion).toBe(json.metadata.resourceVersion);

    const list = await api.request('GET', cms(), { headers: { Accept: PB } });
    const l = open(list.raw, 'ConfigMapList');
    expect([l.apiVersion, l.kind]).toEqual(['v1', 'ConfigMapList']);
    expect(l.object.items.map((i: any) => i.metadata.name)).toContain(name);
    expect(Number(l.object.metadata.resourceVersion)).toBeGreaterThan(0);

    const pom = await api.request('GET', `${cms()}/${name}`, { headers: { Accept: `${PB};as=PartialObjectMetadata;g=meta.k8s.io;v=v1` } });
    expect(pom.status).toBe(200);
    const p = open(pom.raw, 'PartialObjectMetadata');
    expect([p.apiVersion, p.kind]).toEqual(['meta.k8s.io/v1', 'PartialObjectMetadata']);
    expect(p.object.metadata.name).toBe(name);
  });

  it('a list larger than a piece (64 KiB) goes out in pieces: the items of the JSON list, with its Content-Length; as PartialObjectMetadataList and gzip too', async () => {
    const big = `/api/v1/namespaces/${await createNamespace(api)}/configmaps`;
    const names = Array.from({ length: 40 }, (_, i) => `big-${i}`);
    for (const name of names) {
      const created = await api.request('POST', big, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: `${name}:${'é'.repeat(2000)}` } } });
      expect(created.status).toBe(201);
    }
    const json = (await api.request('GET', big, { query: { resourceVersion: '0' } })).json();
    for (const query of [{ resourceVersion: '0' }, {}]) {
      const res = await api.request('GET', big, { headers: { Accept: PB }, query });
      expect(res.status).toBe(200);
      expect(res.raw.length).toBeGreaterThan(160_000);
      expect(Number(res.headers['content-length'])).toBe(res.raw.length);
      const l = open(res.raw, 'ConfigMapList').object;
      expect(l.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion, i.data.v])).toEqual(
        json.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion, i.data.v]),
      );
    }
    // Their metadata only (what metadata informers ask for), in pieces as well.
    const pom = await api.request('GET', big, { headers: { Accept: `${PB};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` }, query: { resourceVersion: '0' } });
    expect(pom.status).toBe(200);
    expect(Number(pom.headers['content-length'])).toBe(pom.raw.length);
    const metas = open(pom.raw, 'PartialObjectMetadataList');
    expect([metas.apiVersion, metas.kind]).toEqual(['meta.k8s.io/v1', 'PartialObjectMetadataList']);
    expect(metas.object.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion])).toEqual(
      json.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]),
    );
    const zipped = await api.request('GET', big, { headers: { Accept: PB, 'Accept-Encoding': 'gzip' }, query: { resourceVersion: '0' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(open(gunzipSync(zipped.raw), 'ConfigMapList').object.items).toHaveLength(names.length);
  });

  it('both media type names are served; Table is JSON-only (406 in protobuf)', async () => {
    const own = await api.request('GET', cms(), { headers: { Accept: 'application/vnd.platform.protobuf' } });
    expect(own.status).toBe(200);
    expect(own.headers['content-type']).toBe('application/vnd.platform.protobuf');
    expect(open(own.raw, 'ConfigMapList').kind).toBe('ConfigMapList');
    const table = await api.request('GET', cms(), { headers: { Accept: `${PB};as=Table;v=v1;g=meta.k8s.io` } });
    expect(table.status).toBe(406);
    const fallback = await api.request('GET', cms(), { headers: { Accept: `${PB};as=Table;v=v1;g=meta.k8s.io,application/json` } });
    expect(fallback.headers['content-type']).toBe('application/json');
  });

  it('errors are protobuf Status for protobuf clients; DeleteOptions in protobuf', async () => {
    const missing = await api.request('GET', `${cms()}/nope`, { headers: { Accept: `${PB},application/json` } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe(PB);
    const s = open(missing.raw, 'Status');
    expect([s.apiVersion, s.kind]).toEqual(['v1', 'Status']);
    expect(s.object).toMatchObject({ status: 'Failure', reason: 'NotFound', code: 404, details: { name: 'nope', kind: 'configmaps' } });

    const name = uniqueName('del');
    await api.request('POST', cms(), { body: { metadata: { name } } });
    const dry = envelope('meta.k8s.io/v1', 'DeleteOptions', 'DeleteOptions', { dryRun: ['All'] });
    const d1 = await api.request('DELETE', `${cms()}/${name}`, { body: dry, headers: { 'Content-Type': PB, Accept: PB } });
    expect(d1.status).toBe(200);
    expect((await api.request('GET', `${cms()}/${name}`)).status).toBe(200);
    const stale = envelope('meta.k8s.io/v1', 'DeleteOptions', 'DeleteOptions', { preconditions: { uid: 'not-the-uid' } });
    const d2 = await api.request('DELETE', `${cms()}/${name}`, { body: stale, headers: { 'Content-Type': PB, Accept: PB } });
    expect(d2.status).toBe(409);
    expect(open(d2.raw, 'Status').object.reason).toBe('Conflict');
    const d3 = await api.request('DELETE', `${cms()}/${name}`, { body: envelope('', '', 'DeleteOptions', {}), headers: { 'Content-Type': PB } });
    expect(d3.status).toBe(200);
    expect((await api.request('GET', `${cms()}/${name}`)).status).toBe(404);
  });

  it('unknown field numbers follow fieldValidation', async () => {
    const good = envelope('v1', 'ConfigMap', 'ConfigMap', { metadata: { name: uniqueName('u') } });
    // Field 31 (varint) appended to the ConfigMap message inside the envelope.
    const u = T('Unknown').decode(good.subarray(4)) as any;
    const raw = Buffer.concat([Buffer.from(u.raw), Buffer.from([0xf8, 0x01, 0x01])]);
    const body = Buffer.concat([MAGIC, T('Unknown').encode({ typeMeta: u.typeMeta, raw }).finish()]);
    const strict = await api.request('POST', cms(), { body, headers: { 'Content-Type': PB }, query: { fieldValidation: 'Strict' } });
    expect(strict.status).toBe(400);
    expect(strict.json().message).toContain('strict decoding error: unknown field "#31"');
    const warn = await api.request('POST', cms(), { body, headers: { 'Content-Type': PB }, query: { fieldValidation: 'Warn' } });
    expect(warn.status).toBe(201);
    expect(warn.warnings()).toEqual(['299 - "unknown field \\"#31\\""']);
  });

  it('bad protobuf bodies are 4xx, change nothing and the server keeps serving', async () => {
    const before = (await api.request('GET', cms())).json().items.length;
    const good = envelope('v1', 'ConfigMap', 'ConfigMap', { metadata: { name: uniqueName('bad') }, data: { a: 'b' } });
    const nested = (depth: number): Buffer => {
      // Messages nested 2,000 deep under an unknown field of ObjectMeta (#16): the decoder follows only the
      // schema's depth and skips unknown fields without descending into them.
      let inner: Buffer = Buffer.alloc(0);
      for (let i = 0; i < depth; i++) inner = Buffer.concat([Buffer.from([0x82, 0x01]), varint(inner.length), inner]);
      return Buffer.concat([Buffer.from([0x0a]), varint(inner.length), inner]);
    };
    const cases: [string, Buffer, RegExp][] = [
      ['wrong magic', Buffer.concat([Buffer.from('k8s\x01'), good.subarray(4)]), /does not appear to be a protobuf message/],
      ['truncated envelope', good.subarray(0, good.length - 10), /unexpected EOF/],
      ['truncated magic', good.subarray(0, 3), /does not appear to be a protobuf message/],
      ['a wrong kind in the envelope', envelope('v1', 'Secret', 'ConfigMap', { metadata: { name: 'x' } }), /the kind of the object \(Secret\) does not match/],
      ['a wrong version in the envelope', envelope('v2', 'ConfigMap', 'ConfigMap', { metadata: { name: 'x' } }), /does not match the expected API version/],
      ['a field-type mismatch', Buffer.concat([MAGIC, T('Unknown').encode({ raw: Buffer.from([0x10, 0x05]) }).finish()]), /wrong wire type 0 for field data/],
      ['a 100 MiB length prefix', Buffer.concat([MAGIC, Buffer.from([0x12, 0x80, 0x80, 0x80, 0x32, 0x0a])]), /unexpected EOF/],
      ['deep nesting', envelopeRaw(nested(2000)), /strict decoding error: unknown field "metadata.#16"/],
      ['invalid JSON in FieldsV1', envelopeRaw(Buffer.from([0x0a, 0x0a, 0x8a, 0x01, 0x07, 0x3a, 0x05, 0x0a, 0x03, 0x7b, 0x7b, 0x7b])), /invalid JSON/],
    ];
    for (const [what, body, message] of cases) {
      const res = await api.request('POST', cms(), { body, headers: { 'Content-Type': PB }, query: { fieldValidation: 'Strict' } });
      expect([what, res.status]).toEqual([what, 400]);
      expect([what, res.json().message]).toEqual([what, expect.stringMatching(message)]);
    }
    expect((await api.request('GET', cms())).json().items.length).toBe(before);
    expect((await api.request('GET', '/readyz')).status).toBe(200);
  });

  it('fuzz: thousands of random mutations of valid bodies never get a 5xx', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const seeds = [
      envelope('v1', 'ConfigMap', 'ConfigMap', {
        metadata: { name: 'fuzz', labels: { a: 'b' }, annotations: { c: 'd' }, finalizers: ['x/y'], ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u' }] },
        data: { k: 'v' },
        binaryData: { b: Buffer.from([1, 2, 3]) },
        immutable: false,
      }),
      envelope('v1', 'ConfigMap', 'ConfigMap', { metadata: { generateName: 'f-' }, data: { a: 'x'.repeat(200) } }),
    ];
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const mutate = (src: Buffer): Buffer => {
      const b = Buffer.from(src);
      switch (rand(4)) {
        case 0: // flip bytes
          for (let i = 0, n = 1 + rand(4); i < n; i++) b[rand(b.length)] = rand(256);
          return b;
        case 1: // truncate
          return b.subarray(0, rand(b.length));
        case 2: { // insert random bytes
          const at = rand(b.length);
          return Buffer.concat([b.subarray(0, at), Buffer.from(Array.from({ length: 1 + rand(8) }, () => rand(256))), b.subarray(at)]);
        }
        default: { // repeat a slice
          const at = rand(b.length);
          const len = rand(b.length - at);
          return Buffer.concat([b.subarray(0, at + len), b.subarray(at, at + len), b.subarray(at + len)]);
        }
      }
    };
    const statuses = new Map<number, number>();
    const N = 3000;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < N) {
        next++;
        const body = mutate(seeds[rand(seeds.length)]!);
        const status = await post(api, agent, cms(), body);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    agent.destroy();
    const fivexx = [...statuses].filter(([s]) => s >= 500);
    expect(fivexx).toEqual([]);
    expect([...statuses.keys()].every((s) => [201, 400, 409, 415, 422].includes(s))).toBe(true);
    expect(statuses.get(400)).toBeGreaterThan(N / 10);
    expect((await api.request('GET', '/readyz')).status).toBe(200);
  }, 120_000);
});

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/** An envelope around raw message bytes (v1 ConfigMap). */
function envelopeRaw(raw: Buffer): Buffer {
  return Buffer.concat([MAGIC, T('Unknown').encode({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw }).finish()]);
}

function post(api: TestApi, agent: Agent, path: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, api.url), {
      method: 'POST',
      agent,
      ca: api.ca,
      headers: { Authorization: `Bearer ${api.token}`, 'Content-Type': PB, 'Content-Length': body.length },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}
