/**
 * The hand-written etcd message codecs against an independent one: protobufjs reading etcd3's copy of
 * etcd's `rpc.proto`. Requests we encode must decode there to what was asked; responses encoded there (with
 * the fields we skip filled in) must decode here to the proto.ts shapes; broken input fails with
 * `ProtobufDecodeError` and nothing else.
 */
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { decodeMessage, ProtobufDecodeError, responseDecoders, watchResponse } from './decode.js';
import { grpcFrame, requestSpecs, watchRequestSpec, type Spec } from './encode.js';

const root = protobuf.loadSync(join(__dirname, '..', '..', '..', 'node_modules', 'etcd3', 'proto', 'rpc.proto'));
const type = (name: string): protobuf.Type => root.lookupType(name);
const longs = { longs: String, bytes: Buffer, defaults: false } as const;

/** Our frame of `req`, checked (prefix, length) and decoded by protobufjs as `typeName`. */
function viaProtobufjs(method: keyof typeof requestSpecs | 'watch', req: unknown, typeName: string): Record<string, unknown> {
  const frame = grpcFrame((method === 'watch' ? watchRequestSpec : requestSpecs[method]) as Spec<unknown>, req);
  expect(frame[0]).toBe(0);
  expect(frame.readUInt32BE(1)).toBe(frame.length - 5);
  const t = type(typeName);
  return t.toObject(t.decode(frame.subarray(5)), longs);
}

function encodeWith(typeName: string, object: Record<string, unknown>): Buffer {
  const t = type(typeName);
  // fromObject, not verify: it takes int64s as decimal strings (a misspelt field would show in the results).
  return Buffer.from(t.encode(t.fromObject(object)).finish());
}

const key = Buffer.from('/registry/configmaps/default/a');
const value = Buffer.from(JSON.stringify({ kind: 'ConfigMap', data: { x: 'y'.repeat(300) } }));

describe('etcd request encoding', () => {
  test('a range with every field we send, and one with none beyond the key', () => {
    expect(
      viaProtobufjs(
        'range',
        { key, range_end: Buffer.from('/registry/configmaps0'), limit: 10_000, revision: 2 ** 40 + 3, keys_only: true, count_only: true, min_mod_revision: 77 },
        'etcdserverpb.RangeRequest',
      ),
    ).toEqual({ key, rangeEnd: Buffer.from('/registry/configmaps0'), limit: '10000', revision: String(2 ** 40 + 3), keysOnly: true, countOnly: true, minModRevision: '77' });
    expect(viaProtobufjs('range', { key: Buffer.from([0]), count_only: false, limit: 0 }, 'etcdserverpb.RangeRequest')).toEqual({ key: Buffer.from([0]) });
  });

  test('a create-if-absent transaction: the compare keeps mod_revision 0 (a oneof member), put with a lease ID above 2^53', () => {
    const lease = '7587862072907575011';
    const decoded = viaProtobufjs(
      'txn',
      {
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key, value, lease } }],
        failure: [{ request_range: { key } }],
      },
      'etcdserverpb.TxnRequest',
    );
    expect(decoded).toEqual({
      compare: [{ key, target: 2, modRevision: '0' }],
      success: [{ requestPut: { key, value, lease } }],
      failure: [{ requestRange: { key } }],
    });
    // The oneof arm is set, so etcd compares mod_revision (0: absent) and not the version.
    const frame = grpcFrame(requestSpecs.txn, { compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }], success: [], failure: [] });
    const t = type('etcdserverpb.TxnRequest');
    expect(t.toObject(t.decode(frame.subarray(5)), { oneofs: true }).compare[0].targetUnion).toBe('modRevision');
  });

  test('a multi-key transaction with deletes, compares at large revisions and many ops', () => {
    const keys = Array.from({ length: 40 }, (_, i) => Buffer.from(`/k/${i}`));
    const decoded = viaProtobufjs(
      'txn',
      {
        compare: keys.slice(0, 3).map((k, i) => ({ key: k, target: 'Mod', result: 'Equal', mod_revision: 2 ** 50 + i })),
        success: keys.map((k, i) => (i % 2 === 0 ? { request_put: { key: k, value: Buffer.alloc(200 * i, i) } } : { request_delete_range: { key: k, prev_kv: true } })),
        failure: keys.slice(0, 3).map((k) => ({ request_range: { key: k } })),
      },
      'etcdserverpb.TxnRequest',
    );
    expect((decoded.compare as unknown[]).map((c) => (c as { modRevision: string }).modRevision)).toEqual([0, 1, 2].map((i) => String(2 ** 50 + i)));
    const success = decoded.success as Record<string, { key: Buffer; value?: Buffer; prevKv?: boolean }>[];
    expect(success).toHaveLength(40);
    success.forEach((op, i) => {
      if (i % 2 === 0) {
        expect(op.requestPut!.key).toEqual(keys[i]);
        // An empty value is proto3's default: left out, read back as empty.
        expect(op.requestPut!.value ?? Buffer.alloc(0)).toEqual(Buffer.alloc(200 * i, i));
      } else {
        expect(op.requestDeleteRange).toEqual({ key: keys[i], prevKv: true });
      }
    });
  });

  test('put, delete range, compaction and lease grant', () => {
    expect(viaProtobufjs('put', { key, value }, 'etcdserverpb.PutRequest')).toEqual({ key, value });
    expect(viaProtobufjs('put', { key, value, lease: '0' }, 'etcdserverpb.PutRequest')).toEqual({ key, value });
    expect(viaProtobufjs('deleteRange', { key, prev_kv: true }, 'etcdserverpb.DeleteRangeRequest')).toEqual({ key, prevKv: true });
    expect(viaProtobufjs('compact', { revision: 123_456_789, physical: false }, 'etcdserverpb.CompactionRequest')).toEqual({ revision: '123456789' });
    expect(viaProtobufjs('leaseGrant', { TTL: 3_600, ID: 0 }, 'etcdserverpb.LeaseGrantRequest')).toEqual({ TTL: '3600' });
    expect(viaProtobufjs('status', {}, 'etcdserverpb.StatusRequest')).toEqual({});
  });

  test('watch requests: create (from a revision, progress, previous values, our id), cancel, progress', () => {
    const create = { key, range_end: Buffer.from('/registry/configmaps0'), start_revision: 2 ** 45, progress_notify: true, prev_kv: true, watch_id: 77 };
    expect(viaProtobufjs('watch', { create_request: create }, 'etcdserverpb.WatchRequest')).toEqual({
      createRequest: { key, rangeEnd: create.range_end, startRevision: String(2 ** 45), progressNotify: true, prevKv: true, watchId: '77' },
    });
    // start_revision 0: "from now", left out as proto3's default.
    expect(viaProtobufjs('watch', { create_request: { ...create, start_revision: 0, progress_notify: false } }, 'etcdserverpb.WatchRequest')).toEqual({
      createRequest: { key, rangeEnd: create.range_end, prevKv: true, watchId: '77' },
    });
    expect(viaProtobufjs('watch', { cancel_request: { watch_id: 77 } }, 'etcdserverpb.WatchRequest')).toEqual({ cancelRequest: { watchId: '77' } });
    // An empty progress request is still the oneof's arm (present, zero length).
    const t = type('etcdserverpb.WatchRequest');
    const progress = grpcFrame(watchRequestSpec, { progress_request: {} });
    expect(t.toObject(t.decode(progress.subarray(5)), { oneofs: true }).requestUnion).toBe('progressRequest');
  });
});

const header = { clusterId: '14841639068965178418', memberId: '10276657743932975437', revision: '9007199254740991', raftTerm: '7' };

describe('etcd response decoding', () => {
  const decode = <M extends keyof typeof responseDecoders>(method: M, bytes: Buffer): ReturnType<(typeof responseDecoders)[M]> =>
    decodeMessage(responseDecoders[method], bytes, 0, bytes.length) as ReturnType<(typeof responseDecoders)[M]>;

  test('a range: the header revision, every key value (fields we skip filled in), more and count', () => {
    const kvs = Array.from({ length: 50 }, (_, i) => ({
      key: Buffer.from(`/k/${i}`),
      createRevision: String(1_000 + i),
      modRevision: String(2_000 + i),
      version: String(i + 1),
      value: Buffer.alloc(i * 37, i),
      lease: i === 3 ? '-5' : '0',
    }));
    const res = decode('range', encodeWith('etcdserverpb.RangeResponse', { header, kvs, more: true, count: '123456' }));
    expect(res.header.revision).toBe(2 ** 53 - 1);
    expect(res.more).toBe(true);
    expect(res.count).toBe(123_456);
    expect(res.kvs).toEqual(kvs.map((kv) => ({ key: kv.key, value: kv.value, create_revision: Number(kv.createRevision), mod_revision: Number(kv.modRevision) })));
  });

  test('an empty range reads as proto3 defaults', () => {
    expect(decode('range', Buffer.alloc(0))).toEqual({ header: { revision: 0 }, kvs: [], more: false, count: 0 });
  });

  test('a failed transaction hands back its Else reads; a delete its previous values; a put its header', () => {
    const kv = { key: Buffer.from('/a'), createRevision: '5', modRevision: '9', version: '2', value: Buffer.from('v') };
    const bytes = encodeWith('etcdserverpb.TxnResponse', {
      header,
      succeeded: false,
      responses: [
        { responseRange: { header, kvs: [kv], count: '1' } },
        { responsePut: { header, prevKv: kv } },
        { responseDeleteRange: { header, deleted: '1', prevKvs: [kv] } },
        { responseTxn: { header, succeeded: true } },
        { responseRange: { header } },
      ],
    });
    const res = decode('txn', bytes);
    const expectedKv = { key: kv.key, value: kv.value, create_revision: 5, mod_revision: 9 };
    expect(res).toEqual({
      header: { revision: 2 ** 53 - 1 },
      succeeded: false,
      responses: [
        { response: 'response_range', response_range: { header: { revision: 2 ** 53 - 1 }, kvs: [expectedKv], more: false, count: 1 } },
        { response: 'response_put' },
        { response: 'response_delete_range', response_delete_range: { header: { revision: 2 ** 53 - 1 }, deleted: 1, prev_kvs: [expectedKv] } },
        { response: 'response_txn' },
        { response: 'response_range', response_range: { header: { revision: 2 ** 53 - 1 }, kvs: [], more: false, count: 0 } },
      ],
    });
    expect(decode('put', encodeWith('etcdserverpb.PutResponse', { header: { revision: '42' }, prevKv: kv }))).toEqual({ header: { revision: 42 } });
    expect(decode('deleteRange', encodeWith('etcdserverpb.DeleteRangeResponse', { header: { revision: '43' } }))).toEqual({ header: { revision: 43 }, deleted: 0, prev_kvs: [] });
  });

  test('a lease grant keeps its 64-bit ID exactly, negative ones too', () => {
    for (const id of ['7587862072907575011', '9223372036854775807', '-9223372036854775808', '1']) {
      expect(decode('leaseGrant', encodeWith('etcdserverpb.LeaseGrantResponse', { header, ID: id, TTL: '60', error: '' }))).toEqual({
        header: { revision: 2 ** 53 - 1 },
        ID: id,
        TTL: 60,
        error: '',
      });
    }
    expect(decode('leaseGrant', encodeWith('etcdserverpb.LeaseGrantResponse', { error: 'lease exists ✓' }))).toEqual({ header: { revision: 0 }, ID: '0', TTL: 0, error: 'lease exists ✓' });
  });

  test('a watch response: events of both types with previous values, a broadcast\'s id -1, a compacted cancel', () => {
    const kv = (k: string, mod: string) => ({ key: Buffer.from(k), createRevision: '10', modRevision: mod, version: '2', value: Buffer.from(`v${mod}`), lease: '7' });
    const decodeWatch = (bytes: Buffer) => decodeMessage(watchResponse, bytes, 0, bytes.length);
    const events = decodeWatch(
      encodeWith('etcdserverpb.WatchResponse', {
        header,
        watchId: '3',
        events: [
          { type: 0, kv: kv('/a', '11'), prevKv: kv('/a', '10') },
          { type: 1, kv: { key: Buffer.from('/b'), modRevision: '12' } },
          { type: 0, kv: kv('/c', '13') },
        ],
      }),
    );
    expect(events).toEqual({
      header: { revision: 2 ** 53 - 1 },
      watch_id: 3,
      created: false,
      canceled: false,
      compact_revision: 0,
      cancel_reason: '',
      events: [
        { type: 'Put', kv: { key: Buffer.from('/a'), value: Buffer.from('v11'), create_revision: 10, mod_revision: 11 }, prev_kv: { key: Buffer.from('/a'), value: Buffer.from('v10'), create_revision: 10, mod_revision: 10 } },
        { type: 'Delete', kv: { key: Buffer.from('/b'), value: Buffer.alloc(0), create_revision: 0, mod_revision: 12 }, prev_kv: null },
        { type: 'Put', kv: { key: Buffer.from('/c'), value: Buffer.from('v13'), create_revision: 10, mod_revision: 13 }, prev_kv: null },
      ],
    });
    expect(decodeWatch(encodeWith('etcdserverpb.WatchResponse', { header: { revision: '500' }, watchId: '-1' }))).toMatchObject({ watch_id: -1, header: { revision: 500 }, events: [] });
    expect(decodeWatch(encodeWith('etcdserverpb.WatchResponse', { header, watchId: '4', created: true }))).toMatchObject({ watch_id: 4, created: true });
    expect(
      decodeWatch(encodeWith('etcdserverpb.WatchResponse', { header, watchId: '5', canceled: true, compactRevision: '4000', cancelReason: 'mvcc: required revision has been compacted' })),
    ).toMatchObject({ watch_id: 5, canceled: true, compact_revision: 4000, cancel_reason: 'mvcc: required revision has been compacted' });
  });

  test('a status: the member\'s version and database size', () => {
    const bytes = encodeWith('etcdserverpb.StatusResponse', { header, version: '3.4.23', dbSize: '20480', leader: '99', raftIndex: '5', raftTerm: '2', raftAppliedIndex: '5', errors: ['x'], dbSizeInUse: '16384' });
    expect(decode('status', bytes)).toEqual({ header: { revision: 2 ** 53 - 1 }, version: '3.4.23', dbSize: 20_480 });
  });

  test('keys and values are views of the response buffer, not copies', () => {
    const bytes = encodeWith('etcdserverpb.RangeResponse', { kvs: [{ key: Buffer.from('/k'), value: value }] });
    const kv = decode('range', bytes).kvs[0]!;
    expect(kv.value.buffer).toBe(bytes.buffer);
    expect(Buffer.compare(kv.value, value)).toBe(0);
  });

  test('every truncation and corruption of a valid answer fails with ProtobufDecodeError, or decodes', () => {
    const kv = { key: Buffer.from('/some/key'), createRevision: '300', modRevision: '70000', value: Buffer.alloc(200, 1) };
    const bytes = encodeWith('etcdserverpb.TxnResponse', {
      header,
      succeeded: true,
      responses: [{ responseRange: { header, kvs: [kv, kv], count: '2' } }, { responseDeleteRange: { header, prevKvs: [kv] } }],
    });
    expect(decode('txn', bytes).responses).toHaveLength(2);
    const outcomes = new Set<string>();
    for (let end = 0; end < bytes.length; end++) {
      try {
        decode('txn', bytes.subarray(0, end));
        outcomes.add('decoded');
      } catch (err) {
        expect(err).toBeInstanceOf(ProtobufDecodeError);
        outcomes.add('refused');
      }
    }
    // Some prefixes end on a field boundary (valid shorter messages), most do not.
    expect([...outcomes].sort()).toEqual(['decoded', 'refused']);
    let seed = 1;
    const random = (): number => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (let i = 0; i < 2_000; i++) {
      const broken = Buffer.from(bytes);
      for (let j = 0; j < 3; j++) broken[Math.floor(random() * broken.length)] = Math.floor(random() * 256);
      try {
        decode('txn', broken);
      } catch (err) {
        expect(err).toBeInstanceOf(ProtobufDecodeError);
      }
    }
  });
});
