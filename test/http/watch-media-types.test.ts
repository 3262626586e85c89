/**
 * One watch, several media types: a protobuf watch (`;stream=watch` frames, decoded by protobufjs from
 * an independent .proto) and a CBOR watch (`application/cbor-seq`, decoded by cbor-x; gate
 * CBORServingAndStorage on) carry the same events, in the same order, as a JSON watch over 1,000 writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeMultiple } from 'cbor-x';
import protobuf from 'protobufjs';
import { featureGates } from '../../apiserver/features/feature-gates.js';
import { backends, createNamespace, describeBackends, stopBackends, type TestApi } from './helpers.js';
import { openWatch, type WatchEventJson, type WatchParser, type WatchStream } from './watch-client.js';

const PB = 'application/vnd.kubernetes.protobuf';
const root = protobuf.parse(readFileSync(join(__dirname, '..', '..', 'apiserver', 'codec', 'protobuf', 'testing', 'kubernetes.proto'), 'utf8')).root;
const T = (name: string) => root.lookupType(`k8s.${name}`);

/** Length-prefixed WatchEvent frames; each object is an enveloped ConfigMap (or Status for ERROR). */
export const protobufFrames: WatchParser = (buffered) => {
  const events: WatchEventJson[] = [];
  let consumed = 0;
  while (buffered.length - consumed >= 4) {
    const len = buffered.readUInt32BE(consumed);
    if (buffered.length - consumed - 4 < len) break;
    const ev = T('WatchEvent').decode(buffered.subarray(consumed + 4, consumed + 4 + len)) as any;
    consumed += 4 + len;
    const envelope = Buffer.from(ev.object.raw);
    if (!envelope.subarray(0, 4).equals(Buffer.from([0x6b, 0x38, 0x73, 0x00]))) throw new Error('watch object without the k8s\\0 magic');
    const u = T('Unknown').decode(envelope.subarray(4)) as any;
    const message = u.typeMeta.kind === 'Status' ? 'Status' : 'ConfigMap';
    const object = T(message).toObject(T(message).decode(u.raw), { longs: Number, bytes: String });
    events.push({ type: ev.type, object: { apiVersion: u.typeMeta.apiVersion, kind: u.typeMeta.kind, ...object } });
  }
  return { events, consumed };
};

/** A CBOR sequence: whole data items so far (cbor-x reports where an incomplete last one starts). */
const cborSequence: WatchParser = (buffered) => {
  try {
    return { events: decodeMultiple(buffered) as WatchEventJson[], consumed: buffered.length };
  } catch (e) {
    const err = e as { incomplete?: boolean; lastPosition?: number; values?: WatchEventJson[] };
    if (err.incomplete !== true) throw e;
    return { events: err.values ?? [], consumed: err.lastPosition ?? 0 };
  }
};

/** What must agree between representations: type, name, resourceVersion and data. */
const essence = (e: WatchEventJson) => [e.type, e.object.metadata?.name, e.object.metadata?.resourceVersion, JSON.stringify(e.object.data ?? {})];

const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await b.start({ features: featureGates({ CBORServingAndStorage: true }) });
  });

  it('protobuf, CBOR and JSON watches see the same 1,000 writes in the same order', async () => {
    const ns = await createNamespace(api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await api.request('GET', path)).json().metadata.resourceVersion as string;
    const json = await openWatch(api, path, { resourceVersion: rv });
    const pb = await openWatch(api, path, { resourceVersion: rv }, { Accept: `${PB},application/json` }, protobufFrames);
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe(`${PB};stream=watch`);
    const cbor = await openWatch(api, path, { resourceVersion: rv }, { Accept: 'application/cbor' }, cborSequence);
    expect(cbor.headers['content-type']).toBe('application/cbor-seq');

    // 1,000 writes: creates, updates and deletes of 250 objects, 16 at a time.
    const writes: (() => Promise<unknown>)[] = [];
    for (let i = 0; i < 250; i++) {
      const name = `w${i}`;
      writes.push(async () => {
        await api.request('POST', path, { body: { metadata: { name }, data: { v: '0' } } });
        await api.request('PATCH', `${path}/${name}`, { body: { data: { v: '1' } } });
        await api.request('PATCH', `${path}/${name}`, { body: { data: { v: 'é'.repeat(100) } } });
        await api.request('DELETE', `${path}/${name}`);
      });
    }
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < writes.length) await writes[next++]!();
    }));
    const drain = async (w: WatchStream): Promise<WatchEventJson[]> => {
      const got: WatchEventJson[] = [];
      while (got.length < 1000) got.push(await w.next(30_000));
      return got;
    };
    const [a, p, c] = await Promise.all([drain(json), drain(pb), drain(cbor)]);
    for (const w of [json, pb, cbor]) w.close();
    expect(p.map(essence)).toEqual(a.map(essence));
    expect(c.map(essence)).toEqual(a.map(essence));
    expect(new Set(a.map((e) => e.type))).toEqual(new Set(['ADDED', 'MODIFIED', 'DELETED']));
    // Revisions strictly increase: one event per write, none repeated or lost.
    const rvs = p.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs.every((r, i) => i === 0 || r > rvs[i - 1]!)).toBe(true);
  }, 120_000);

  it('protobuf bookmarks carry the kind and the revision', async () => {
    const ns = await createNamespace(api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await api.request('POST', path, { body: { metadata: { name: 'a' } } });
    const w = await openWatch(api, path, { resourceVersion: '0', allowWatchBookmarks: 'true', timeoutSeconds: '3' }, { Accept: PB }, protobufFrames);
    expect(w.status).toBe(200);
    const added = await w.next();
    expect([added.type, added.object.metadata.name, added.object.kind]).toEqual(['ADDED', 'a', 'ConfigMap']);
    const bookmark = await w.until((e) => e.type === 'BOOKMARK', 10_000);
    expect(bookmark.object.kind).toBe('ConfigMap');
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThan(0);
    w.close();
  }, 30_000);
});
