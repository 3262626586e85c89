import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import type { KubeObject } from '../../api/object.js';
import { configMaps } from '../../registry/kinds/core/configmap.js';
import { kindSchema } from '../../schema/object-meta-schema.js';
import { namespaces } from '../../registry/kinds/core/namespace.js';
import { secrets } from '../../registry/kinds/core/secret.js';
import { serviceAccounts } from '../../registry/kinds/core/serviceaccount.js';
import { decodeEnvelope, watchFrame } from './envelope.js';
import { LIST_CHUNK_BYTES } from '../encoded-list.js';
import { lazyItemsList } from '../lazy-list.js';
import { shareEncodings } from '../shared-json.js';
import { decodeDeleteOptionsProtobuf, decodeProtobuf, listProtobuf, objectProtobuf, PROTOBUF_MEMO_KEY, statusProtobuf } from './protobuf-codec.js';
import { ProtobufError } from './wire-reader.js';

const root = protobuf.parse(readFileSync(join(__dirname, 'testing', 'kubernetes.proto'), 'utf8')).root;
const type = (name: string) => root.lookupType(`k8s.${name}`);
const toObject = (name: string, bytes: Uint8Array) => type(name).toObject(type(name).decode(bytes), { longs: Number, bytes: String, defaults: false });

/** Hand assembly from the field-number table: tag byte + length + payload. */
const len = (tag: number, payload: number[]): number[] => [tag, payload.length, ...payload];
const str = (tag: number, s: string): number[] => len(tag, [...Buffer.from(s)]);
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const varintBytes = (n: number): number[] => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n >>>= 7;
  }
  return [...out, n];
};
const envelopeBytes = (apiVersion: string, kind: string, raw: number[]): Buffer =>
  Buffer.from([...MAGIC, ...len(0x0a, [...str(0x0a, apiVersion), ...str(0x12, kind)]), 0x12, ...varintBytes(raw.length), ...raw, 0x1a, 0x00, 0x22, 0x00]);

/** ObjectMeta as Go writes it: every non-pointer field, zero or not; a zero creationTimestamp is empty. */
const goObjectMeta = (name: string, namespace: string): number[] =>
  len(0x0a, [...str(0x0a, name), ...str(0x12, ''), ...str(0x1a, namespace), ...str(0x22, ''), ...str(0x2a, ''), ...str(0x32, ''), 0x38, 0x00, 0x42, 0x00]);

describe('protobuf decoding of bodies hand-assembled from the field-number table', () => {
  it('a Secret as kubectl 1.32 sends it: zero values of plain fields dropped, data as base64', () => {
    const raw = [...goObjectMeta('s1', 'ns'), ...len(0x12, [...str(0x0a, 'k'), ...str(0x12, 'v')]), ...str(0x1a, 'Opaque')];
    const d = decodeProtobuf(envelopeBytes('v1', 'Secret', raw), secrets.schema);
    expect(d.apiVersion).toBe('v1');
    expect(d.kind).toBe('Secret');
    expect(d.value).toEqual({ metadata: { name: 's1', namespace: 'ns' }, data: { k: Buffer.from('v').toString('base64') }, type: 'Opaque' });
    expect(d.unknown).toEqual([]);
  });

  it('pointer fields keep their zero values; a map entry without a value is empty bytes', () => {
    // ConfigMap{metadata, binaryData{"e": nil}, immutable: false}
    const raw = [...goObjectMeta('c', 'ns'), ...len(0x1a, [...str(0x0a, 'e')]), 0x20, 0x00];
    const d = decodeProtobuf(envelopeBytes('v1', 'ConfigMap', raw), configMaps.schema);
    expect(d.value).toEqual({ metadata: { name: 'c', namespace: 'ns' }, binaryData: { e: '' }, immutable: false });
  });

  it('a ServiceAccount with automountServiceAccountToken false and references', () => {
    const raw = [...goObjectMeta('sa', 'ns'), ...len(0x12, [...str(0x0a, 'Secret'), ...str(0x1a, 'tok')]), ...len(0x1a, [...str(0x0a, 'pull')]), 0x20, 0x00];
    const d = decodeProtobuf(envelopeBytes('', '', raw), serviceAccounts.schema);
    expect(d.apiVersion).toBe('');
    expect(d.value).toEqual({
      metadata: { name: 'sa', namespace: 'ns' },
      secrets: [{ kind: 'Secret', name: 'tok' }],
      imagePullSecrets: [{ name: 'pull' }],
      automountServiceAccountToken: false,
    });
  });

  it('times, labels, finalizers and unknown field numbers', () => {
    const meta = len(0x0a, [...str(0x0a, 'n1'), ...len(0x42, [0x08, 0xa0, 0xa5, 0xc8, 0xb1, 0x06, 0x10, 0x00]), ...len(0x5a, [...str(0x0a, 'a'), ...str(0x12, 'b')]), ...str(0x72, 'x/y'), ...str(0x7a, 'old')]);
    const raw = [...meta, ...len(0x12, [...str(0x0a, 'kubernetes')]), 0xf8, 0x01, 0x05];
    const d = decodeProtobuf(envelopeBytes('v1', 'Namespace', raw), namespaces.schema);
    expect(d.value).toEqual({
      metadata: { name: 'n1', creationTimestamp: '2024-05-01T10:00:00Z', labels: { a: 'b' }, finalizers: ['x/y'] },
      spec: { finalizers: ['kubernetes'] },
    });
    // ObjectMeta 15 (the removed clusterName) and top-level 31 are unknown to the schema.
    expect(d.unknown).toEqual(['metadata.#15', '#31']);
  });
});

describe('protobuf encoding, read back by protobufjs with an independent .proto', () => {
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c1',
      namespace: 'default',
      uid: '5b0a1f2e-0000-4000-8000-000000000001',
      resourceVersion: '42',
      generation: 3,
      creationTimestamp: '2024-05-01T10:00:00Z',
      deletionGracePeriodSeconds: -1,
      labels: { app: 'web', tier: 'é' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u', controller: false }],
      managedFields: [{ manager: 'kubectl', operation: 'Update' as const, apiVersion: 'v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:data': { 'f:a': {} } } }],
    },
    data: { a: 'x'.repeat(300) },
    binaryData: { b: Buffer.from([0, 255, 7]).toString('base64') },
    immutable: false,
  };

  it('an object: envelope, ObjectMeta (negative int64, Time, maps, FieldsV1), data maps, pointer false', () => {
    const { bytes } = objectProtobuf(configMaps.schema, cm, undefined);
    expect([...bytes.subarray(0, 4)]).toEqual(MAGIC);
    const unknown = toObject('Unknown', bytes.subarray(4));
    expect(unknown.typeMeta).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(unknown.contentEncoding).toBe('');
    expect(unknown.contentType).toBe('');
    const m = toObject('ConfigMap', Buffer.from(unknown.raw, 'base64'));
    expect(m.metadata.name).toBe('c1');
    expect(m.metadata.generation).toBe(3);
    expect(m.metadata.deletionGracePeriodSeconds).toBe(-1);
    expect(m.metadata.creationTimestamp).toEqual({ seconds: Date.parse('2024-05-01T10:00:00Z') / 1000, nanos: 0 });
    expect(m.metadata.labels).toEqual({ app: 'web', tier: 'é' });
    expect(m.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u', controller: false }]);
    expect(JSON.parse(Buffer.from(m.metadata.managedFields[0].fieldsV1.Raw, 'base64').toString())).toEqual({ 'f:data': { 'f:a': {} } });
    expect(m.data).toEqual(cm.data);
    expect(m.binaryData).toEqual(cm.binaryData);
    expect(m.immutable).toBe(false);
    // And our own decoder gives the object back.
    const back = decodeProtobuf(bytes, configMaps.schema);
    const { apiVersion, kind, ...rest } = cm;
    expect(back.value).toEqual({ ...rest, metadata: { ...rest.metadata } });
  });

  it('a list reuses the items of the memo; ListMeta first', () => {
    const memo = new Map<string, unknown>();
    const first = objectProtobuf(configMaps.schema, cm, memo);
    expect(objectProtobuf(configMaps.schema, { ...cm, metadata: { name: 'other' } }, memo)).toBe(first);
    const list = listProtobuf(configMaps.schema, {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '43', continue: 'tok', remainingItemCount: 7 },
      items: [cm, { ...cm, metadata: { name: 'c2' }, data: {} }],
    }).buffer();
    const env = decodeEnvelope(list);
    expect([env.apiVersion, env.kind]).toEqual(['v1', 'ConfigMapList']);
    const l = toObject('ConfigMapList', env.raw);
    expect(l.metadata).toEqual({ resourceVersion: '43', continue: 'tok', remainingItemCount: 7 });
    expect(l.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c1', 'c2']);
  });

  it('a list in segments: its pieces and its buffer are the envelope around ListMeta and each item (field 2), lengths of every size', () => {
    // Items whose messages need 1-, 2- and 3-byte lengths, memoized and not, over many 64 KiB pieces.
    const items = Array.from({ length: 60 }, (_, i) => ({ ...cm, metadata: { name: `c${i}` }, data: { v: 'x'.repeat((i % 3) * 30 + i * 1500) } }));
    const memo = new Map<string, unknown>();
    shareEncodings(items[4]!, memo);
    const meta = { resourceVersion: '9' };
    const encoded = listProtobuf(configMaps.schema, { apiVersion: 'v1', kind: 'ConfigMapList', metadata: meta, items });
    // Each item's message as the object encoder writes it (read back by protobufjs in the tests above).
    const message = (o: KubeObject): number[] => [...objectProtobuf(configMaps.schema, o, undefined).raw];
    const raw = [...len(0x0a, [...str(0x12, '9')])]; // ListMeta {resourceVersion = 2}
    for (const o of items) {
      const m = message(o);
      raw.push(0x12, ...varintBytes(m.length), ...m);
    }
    const want = envelopeBytes('v1', 'ConfigMapList', raw);
    expect(encoded.bytes).toBe(want.length);
    const pieces = [...encoded.chunks()];
    expect(pieces.length).toBeGreaterThan(1);
    // Each piece at most 64 KiB, or one item (its tag and length included) longer than that.
    const largest = Math.max(...items.map((o) => o.data.v.length)) + 200;
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(Math.max(LIST_CHUNK_BYTES, largest));
    expect(pieces.filter((p) => p.length <= LIST_CHUNK_BYTES).length).toBeGreaterThan(1);
    expect(Buffer.concat(pieces).equals(want)).toBe(true);
    expect(encoded.buffer().equals(want)).toBe(true);
    // The shared item's message was memoized, and is what a later list sends.
    expect((memo.get(PROTOBUF_MEMO_KEY) as { raw: Buffer }).raw.equals(Buffer.from(message(items[4]!)))).toBe(true);
    expect(toObject('ConfigMapList', decodeEnvelope(want).raw).items.map((i: { data: { v: string } }) => i.data.v.length)).toEqual(items.map((o) => o.data.v.length));
  });

  it('a lazy list: each item\'s message from its sources until `items` is read, then from the items', () => {
    const objects = [cm, { ...cm, metadata: { name: 'c2' }, data: { a: 'é' } }];
    let made = 0;
    let asked = 0;
    const list = lazyItemsList<{ apiVersion: string; kind: string; metadata: object; items: typeof objects }>(
      { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '5' } },
      { count: 2, json: () => { throw new Error('not JSON'); }, protobuf: (i) => (asked++, objectProtobuf(configMaps.schema, objects[i]!, undefined).raw) },
      () => (made++, objects),
    );
    const fromSources = listProtobuf(configMaps.schema, list).buffer();
    expect([made, asked]).toEqual([0, 2]);
    expect(toObject('ConfigMapList', decodeEnvelope(fromSources).raw).items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c1', 'c2']);
    list.items = [objects[1]!];
    expect(toObject('ConfigMapList', decodeEnvelope(listProtobuf(configMaps.schema, list).buffer()).raw).items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c2']);
    expect(asked).toBe(2);
  });

  it('Status with details and causes, and a watch frame around an enveloped object', () => {
    const status = statusProtobuf({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'm', reason: 'Invalid',
      details: { name: 'x', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data' }] }, code: 422,
    });
    const env = decodeEnvelope(status);
    expect([env.apiVersion, env.kind]).toEqual(['v1', 'Status']);
    expect(toObject('Status', env.raw)).toEqual({
      metadata: {}, status: 'Failure', message: 'm', reason: 'Invalid', code: 422,
      details: { name: 'x', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: 'bad', field: 'data' }] },
    });
    const obj = objectProtobuf(configMaps.schema, cm, undefined).bytes;
    const frame = watchFrame('MODIFIED', obj);
    expect(frame.readUInt32BE(0)).toBe(frame.length - 4);
    const ev = toObject('WatchEvent', frame.subarray(4));
    expect(ev.type).toBe('MODIFIED');
    expect(Buffer.from(ev.object.raw, 'base64').equals(obj)).toBe(true);
  });

  it('DeleteOptions bodies', () => {
    const body = type('DeleteOptions').encode({ gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: ['All'], preconditions: { uid: 'u' } }).finish();
    const d = decodeDeleteOptionsProtobuf(envelopeBytes('meta.k8s.io/v1', 'DeleteOptions', [...body]));
    expect(d.value).toEqual({ gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: ['All'], preconditions: { uid: 'u' } });
  });
});

describe('value forms the JSON schema does not imply', () => {
  it('MicroTime keeps microseconds, Time drops sub-seconds; IntOrString, Quantity and Duration round-trip', () => {
    const schema = kindSchema(
      'test',
      {
        at: { type: 'string', format: 'date-time', protobufType: 'microtime' },
        seen: { type: 'string', format: 'date-time' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        name: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        cpu: { 'x-kubernetes-int-or-string': true, protobufType: 'quantity' },
        every: { type: 'string', protobufType: 'duration' },
        extra: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
      },
      undefined,
      { at: 2, seen: 3, port: 4, name: 5, cpu: 6, every: 7, extra: 8 },
    );
    const obj = {
      apiVersion: 'v1', kind: 'T', metadata: { name: 't' },
      at: '2024-05-01T10:00:00.123456Z', seen: '2024-05-01T10:00:00.9Z', port: 8080, name: 'http', cpu: '500m', every: '1h30m0.5s',
      extra: { groups: ['a', 'b'], none: [] },
    };
    const back = decodeProtobuf(objectProtobuf(schema, obj, undefined).bytes, schema).value;
    expect(back).toEqual({
      metadata: { name: 't' }, at: '2024-05-01T10:00:00.123456Z', seen: '2024-05-01T10:00:00Z', port: 8080, name: 'http', cpu: '500m',
      every: '1h30m0.5s', extra: { groups: ['a', 'b'], none: [] },
    });
  });
});

describe('malformed protobuf is refused with a clear error', () => {
  const good = objectProtobuf(configMaps.schema, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } }, undefined).bytes;
  const decode = (b: Uint8Array) => () => decodeProtobuf(b, configMaps.schema);

  it('wrong magic', () => {
    expect(decode(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(/does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/);
  });
  it('every truncation inside the object or its type meta', () => {
    const raw = decodeEnvelope(good).raw;
    const rawEnd = raw.byteOffset - good.byteOffset + raw.length;
    for (let n = 5; n < rawEnd; n++) {
      // Cuts that end exactly between envelope fields leave a shorter, valid envelope; all others fail.
      if (n === 6 + good[5]!) continue;
      expect(decode(good.subarray(0, n))).toThrow(ProtobufError);
    }
  });
  it('a length prefix far past the end (100 MiB)', () => {
    const raw = [0x0a, 0x80, 0x80, 0x80, 0x32, 0x00];
    expect(decode(envelopeBytes('v1', 'ConfigMap', raw))).toThrow('unexpected EOF');
  });
  it('a field of the wrong wire type', () => {
    expect(decode(envelopeBytes('v1', 'ConfigMap', [0x08, 0x01]))).toThrow('wrong wire type 0 for field metadata');
    expect(decode(envelopeBytes('v1', 'ConfigMap', [0x22, 0x00]))).toThrow('wrong wire type 2 for field immutable');
    expect(decode(envelopeBytes('v1', 'ConfigMap', [...len(0x0a, [0x0a, 0x01])]))).toThrow('unexpected EOF');
  });
  it('a recursive schema is read only 100 messages deep', () => {
    const node: { type: 'object'; properties: Record<string, unknown>; protobuf: Record<string, number> } = { type: 'object', properties: {}, protobuf: { child: 1 } };
    node.properties.child = node;
    let body: number[] = [];
    for (let i = 0; i < 150; i++) body = [0x0a, ...varintBytes(body.length), ...body];
    expect(() => decodeProtobuf(envelopeBytes('v1', 'T', body), node as never)).toThrow('nested more than 100 deep');
    let ok: number[] = [];
    for (let i = 0; i < 90; i++) ok = [0x0a, ...varintBytes(ok.length), ...ok];
    expect(() => decodeProtobuf(envelopeBytes('v1', 'T', ok), node as never)).not.toThrow();
  });
  it('a content encoding, an over-long varint, a group', () => {
    expect(decode(Buffer.from([...MAGIC, ...str(0x1a, 'gzip')]))).toThrow('unsupported content encoding');
    expect(decode(envelopeBytes('v1', 'ConfigMap', [0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))).toThrow('integer overflow');
    expect(decode(envelopeBytes('v1', 'ConfigMap', [0xfb, 0x01]))).toThrow('illegal wire type 3');
  });
});
