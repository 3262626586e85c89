/**
 * CBOR over HTTP behind `--feature-gates=CBORServingAndStorage=true`, read and written by cbor-x (an
 * independent codec; the server has its own).
 */
import { decode, decodeMultiple, encode } from 'cbor-x';
import { featureGates } from '../../apiserver/features/feature-gates.js';
import { backends, createNamespace, stopBackends, uniqueName, type TestApi } from './helpers.js';

const CBOR = 'application/cbor';
const SELF_DESCRIBED = Buffer.from([0xd9, 0xd9, 0xf7]);
const all = backends().filter((b) => b.name === 'memory');
afterAll(() => stopBackends(all));

describe('CBOR with the CBORServingAndStorage gate', () => {
  let api: TestApi;
  let off: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await all[0]!.start({ features: featureGates({ CBORServingAndStorage: true }) });
    off = await all[0]!.start();
    ns = await createNamespace(api);
  });
  const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

  it('creates from a CBOR body and answers in CBOR with the self-described tag; get and list', async () => {
    const name = uniqueName('cb');
    const body = Buffer.concat([SELF_DESCRIBED, encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' }, binaryData: { x: Buffer.from([0, 1, 2]) } })]);
    const res = await api.request('POST', cms(), { body, headers: { 'Content-Type': CBOR, Accept: CBOR } });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(CBOR);
    expect(res.raw.subarray(0, 3).equals(SELF_DESCRIBED)).toBe(true);
    const created = decode(res.raw);
    expect(created.metadata.name).toBe(name);
    expect(created.data).toEqual({ a: 'b' });
    // A byte string in the request is base64 in JSON.
    expect((await api.request('GET', `${cms()}/${name}`)).json().binaryData).toEqual({ x: 'AAEC' });

    const list = decode((await api.request('GET', cms(), { headers: { Accept: CBOR } })).raw);
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i: any) => i.metadata.name)).toContain(name);
  });

  it('server-side apply in CBOR; no CBOR form of the other patch types', async () => {
    const name = uniqueName('ap');
    const patch = encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
    const res = await api.request('PATCH', `${cms()}/${name}`, { body: patch, headers: { 'Content-Type': 'application/apply-patch+cbor' }, query: { fieldManager: 'cbor-test' } });
    expect(res.status).toBe(201);
    expect(res.json().metadata.managedFields[0]).toMatchObject({ manager: 'cbor-test', operation: 'Apply' });
    for (const type of ['application/merge-patch+cbor', 'application/json-patch+cbor', 'application/strategic-merge-patch+cbor']) {
      const r = await api.request('PATCH', `${cms()}/${name}`, { body: patch, headers: { 'Content-Type': type } });
      expect([type, r.status]).toEqual([type, 415]);
    }
  });

  it('malformed CBOR is a 400 that changes nothing; errors in CBOR for CBOR clients', async () => {
    const before = (await api.request('GET', cms())).json().items.length;
    const bad = await api.request('POST', cms(), { body: Buffer.from([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]), headers: { 'Content-Type': CBOR } });
    expect(bad.status).toBe(400);
    expect(bad.json().message).toMatch(/duplicate map key/);
    const truncated = await api.request('POST', cms(), { body: encode({ metadata: { name: 'x' } }).subarray(0, 5), headers: { 'Content-Type': CBOR } });
    expect(truncated.status).toBe(400);
    expect((await api.request('GET', cms())).json().items.length).toBe(before);
    const missing = await api.request('GET', `${cms()}/nope`, { headers: { Accept: CBOR } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe(CBOR);
    expect(decode(missing.raw)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('with the gate off (the default) CBOR is 415 for bodies and 406 for responses', async () => {
    const offNs = await createNamespace(off);
    const path = `/api/v1/namespaces/${offNs}/configmaps`;
    const r = await off.request('POST', path, { body: encode({ metadata: { name: 'x' } }), headers: { 'Content-Type': CBOR } });
    expect(r.status).toBe(415);
    expect(r.json().message).not.toContain('cbor');
    expect((await off.request('GET', path, { headers: { Accept: CBOR } })).status).toBe(406);
    const apply = await off.request('PATCH', `${path}/x`, { body: encode({ metadata: { name: 'x' } }), headers: { 'Content-Type': 'application/apply-patch+cbor' } });
    expect(apply.status).toBe(415);
  });

  it('a CBOR watch is an application/cbor-seq stream of {type, object} items', async () => {
    const name = uniqueName('w');
    await api.request('POST', cms(), { body: { metadata: { name }, data: { a: '1' } } });
    const w = await api.request('GET', cms(), { headers: { Accept: CBOR }, query: { watch: 'true', resourceVersion: '0', timeoutSeconds: '1' } });
    expect(w.headers['content-type']).toBe('application/cbor-seq');
    const events = decodeMultiple(w.raw) as any[];
    expect(events.map((e) => [e.type, e.object.metadata.name])).toContainEqual(['ADDED', name]);
    const seq = await api.request('GET', cms(), { headers: { Accept: 'application/cbor-seq' }, query: { watch: 'true', resourceVersion: '0', timeoutSeconds: '1' } });
    expect(seq.status).toBe(200);
    expect(seq.headers['content-type']).toBe('application/cbor-seq');
  });
});
