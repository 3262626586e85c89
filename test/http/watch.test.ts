/**
 * Watch over HTTP on both backends (spec "Watch", "Events"; issue 4): every start row of the watch table
 * (unset, `0`, N; with sendInitialEvents absent, true, false), event order and resourceVersions, DELETED,
 * single-object and `/watch/` watches, selector transitions, bookmarks and timeoutSeconds, the streaming
 * list sequence, 410 for compacted starts, 504 for unreachable ones, Table and PartialObjectMetadata
 * watches, 406 for YAML, and invalid option combinations.
 */
import { featureGates } from '../../apiserver/features/feature-gates.js';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';
import { openWatch, type WatchEventJson, type WatchStream } from './watch-client.js';

const all = backends();
afterAll(() => stopBackends(all));

const KUBECTL_TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data,
});
const rvOf = (e: WatchEventJson): number => Number(e.object.metadata.resourceVersion);
const summary = (e: WatchEventJson): string => `${e.type} ${e.object.metadata?.name ?? ''}`;

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  const streams: WatchStream[] = [];
  const watch = async (path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<WatchStream> => {
    const w = await openWatch(api, path, query, headers);
    streams.push(w);
    return w;
  };
  const cmPath = () => `/api/v1/namespaces/${ns}/configmaps`;
  const create = async (body: object): Promise<any> => {
    const res = await api.request('POST', cmPath(), { body });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text()}`);
    return res.json();
  };
  const patch = async (name: string, body: object): Promise<any> => {
    const res = await api.request('PATCH', `${cmPath()}/${name}`, { body });
    if (res.status !== 200) throw new Error(`patch: ${res.status} ${res.text()}`);
    return res.json();
  };
  const del = async (name: string): Promise<void> => {
    const res = await api.request('DELETE', `${cmPath()}/${name}`);
    if (res.status !== 200) throw new Error(`delete: ${res.status} ${res.text()}`);
  };
  const listRv = async (): Promise<string> => (await api.request('GET', cmPath())).json().metadata.resourceVersion;

  beforeAll(async () => {
    // Streaming lists (sendInitialEvents) need the WatchList gate, off by default (test/http/feature-gates.test.ts).
    api = await b.start({ features: featureGates({ WatchList: true }) });
  });
  beforeEach(async () => {
    ns = await createNamespace(api);
  });
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });

  it('from a list resourceVersion: every change after it, in order, with the object at each revision', async () => {
    await create(cm('before'));
    const rv = await listRv();
    const w = await watch(cmPath(), { resourceVersion: rv });
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    const created = await create(cm('a', {}, { k: '1' }));
    const patched = await patch('a', { data: { k: '2' } });
    await del('a');
    const events = [await w.next(), await w.next(), await w.next()];
    expect(events.map(summary)).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a']);
    expect(events[0]!.object.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(events[1]!.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { k: '2' }, metadata: { resourceVersion: patched.metadata.resourceVersion } });
    expect(rvOf(events[2]!)).toBeGreaterThan(rvOf(events[1]!));
    expect(events[2]!.object.data).toEqual({ k: '2' });
  });

  it.each([
    ['unset', {}],
    ['0', { resourceVersion: '0' }],
  ])('resourceVersion %s: synthetic ADDED for existing objects, then live events', async (_label, query) => {
    await create(cm('x1'));
    await create(cm('x2'));
    await listRv(); // "Any" may serve an older state: a Most Recent list lets the cache catch up first
    const w = await watch(cmPath(), query as Record<string, string>);
    const initial = [await w.next(), await w.next()];
    expect(initial.map(summary).sort()).toEqual(['ADDED x1', 'ADDED x2']);
    await create(cm('x3'));
    expect(summary(await w.next())).toBe('ADDED x3');
  });

  it('sendInitialEvents=false with resourceVersion unset starts at the current state without replaying it', async () => {
    await create(cm('old'));
    const w = await watch(cmPath(), { sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan' });
    expect(w.status).toBe(200);
    await create(cm('new'));
    expect(summary(await w.next())).toBe('ADDED new');
  });

  it('sendInitialEvents=false at resourceVersion 0 starts now, even right after a compaction', async () => {
    await create(cm('quiet'));
    // A write elsewhere, then compaction past everything the configmaps cache has heard of.
    const other = await api.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'elsewhere' } } });
    await api.server.store.compact(Number(other.json().metadata.resourceVersion));
    const w = await watch(cmPath(), { resourceVersion: '0', sendInitialEvents: 'false', resourceVersionMatch: 'NotOlderThan' });
    expect(w.status).toBe(200);
    await create(cm('loud'));
    expect(summary(await w.next())).toBe('ADDED loud');
  });

  it('sendInitialEvents=true: ADDED for every object, a BOOKMARK marked initial-events-end, then live events', async () => {
    await create(cm('s1'));
    const last = await create(cm('s2'));
    const w = await watch(cmPath(), { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' });
    const initial = [await w.next(), await w.next()];
    expect(initial.map(summary).sort()).toEqual(['ADDED s1', 'ADDED s2']);
    const bookmark = await w.next();
    expect(bookmark.type).toBe('BOOKMARK');
    expect(bookmark.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } });
    expect(rvOf(bookmark)).toBeGreaterThanOrEqual(Number(last.metadata.resourceVersion));
    await create(cm('s3'));
    expect(summary(await w.next())).toBe('ADDED s3');
  });

  it('sendInitialEvents=true at a resourceVersion is served not older than it', async () => {
    const a = await create(cm('n1'));
    const w = await watch(cmPath(), { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true', resourceVersion: a.metadata.resourceVersion });
    expect(summary(await w.next())).toBe('ADDED n1');
    const end = await w.next();
    expect(end.type).toBe('BOOKMARK');
    expect(rvOf(end)).toBeGreaterThanOrEqual(Number(a.metadata.resourceVersion));
  });

  it('only the watched namespace', async () => {
    const other = await createNamespace(api);
    const w = await watch(cmPath(), { resourceVersion: await listRv() });
    await api.request('POST', `/api/v1/namespaces/${other}/configmaps`, { body: cm('elsewhere') });
    await create(cm('here'));
    expect(summary(await w.next())).toBe('ADDED here');
  });

  it('all namespaces: events of every namespace', async () => {
    const other = await createNamespace(api);
    const w = await watch('/api/v1/configmaps', { resourceVersion: await listRv(), labelSelector: `t=${ns}` });
    await api.request('POST', `/api/v1/namespaces/${other}/configmaps`, { body: cm('o', { t: ns }) });
    await create(cm('h', { t: ns }));
    const got = [await w.next(), await w.next()];
    expect(got.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`)).toEqual([`${other}/o`, `${ns}/h`]);
  });

  it.each([
    ['a field selector on metadata.name', (name: string) => ({ path: () => cmPath(), query: { fieldSelector: `metadata.name=${name}` } })],
    ['GET of the named object with watch=true', (name: string) => ({ path: () => `${cmPath()}/${name}`, query: {} })],
    ['the deprecated /watch/ prefix', (name: string) => ({ path: () => `/api/v1/watch/namespaces/${ns}/configmaps/${name}`, query: {} })],
  ])('one object through %s', async (_label, how) => {
    const name = uniqueName('one');
    const { path, query } = how(name);
    const w = await watch(path(), { ...query, resourceVersion: await listRv() });
    expect(w.status).toBe(200);
    await create(cm('unrelated'));
    await create(cm(name));
    await patch(name, { data: { a: 'b' } });
    expect([await w.next(), await w.next()].map(summary)).toEqual([`ADDED ${name}`, `MODIFIED ${name}`]);
  });

  it('label selector transitions: leaving the selection is DELETED, entering it is ADDED', async () => {
    await create(cm('t', { app: 'web' }));
    const w = await watch(cmPath(), { resourceVersion: await listRv(), labelSelector: 'app=web' });
    await patch('t', { metadata: { labels: { app: 'db' } } });
    const left = await w.next();
    expect(left.type).toBe('DELETED');
    expect(left.object.metadata.labels).toEqual({ app: 'db' });
    await patch('t', { data: { ignored: 'yes' } });
    await patch('t', { metadata: { labels: { app: 'web' } } });
    const back = await w.next();
    expect(back.type).toBe('ADDED');
    expect(back.object.data).toEqual({ ignored: 'yes' });
    await patch('t', { data: { more: 'x' } });
    expect((await w.next()).type).toBe('MODIFIED');
  });

  it('field selector transitions on a selectable field (Secret type)', async () => {
    const path = `/api/v1/namespaces/${ns}/secrets`;
    const w = await watch(path, { resourceVersion: await listRv(), fieldSelector: 'type=Opaque' });
    await api.request('POST', path, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'o' }, type: 'Opaque' } });
    await api.request('POST', path, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' }, type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } } });
    await api.request('DELETE', `${path}/o`);
    expect([await w.next(), await w.next()].map(summary)).toEqual(['ADDED o', 'DELETED o']);
  });

  it('timeoutSeconds ends the stream; with bookmarks one arrives before the deadline carrying the latest revision', async () => {
    const made = await create(cm('b1'));
    const w = await watch(cmPath(), { resourceVersion: made.metadata.resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: '3' });
    const bookmark = await w.until((e) => e.type === 'BOOKMARK', 5000);
    expect(bookmark.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.any(String), creationTimestamp: null } });
    expect(rvOf(bookmark)).toBeGreaterThanOrEqual(Number(made.metadata.resourceVersion));
    await w.ended;
  });

  it('without allowWatchBookmarks no BOOKMARK is sent', async () => {
    const w = await watch(cmPath(), { resourceVersion: await listRv(), timeoutSeconds: '3' });
    await w.ended;
    expect(w.events.filter((e) => e.type === 'BOOKMARK')).toEqual([]);
  });

  it('a compacted start is 410 Expired before the stream starts', async () => {
    const first = await create(cm('c1'));
    await create(cm('c2'));
    const latest = await create(cm('c3'));
    await api.server.store.compact(Number(latest.metadata.resourceVersion));
    const w = await watch(cmPath(), { resourceVersion: first.metadata.resourceVersion });
    expect(w.status).toBe(410);
    expect(w.error).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    expect(w.error.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
  });

  it('a start the server has not reached is 504 Too large resource version after waiting', async () => {
    const rv = Number(await listRv()) + 1_000_000;
    const w = await watch(cmPath(), { resourceVersion: String(rv) });
    expect(w.status).toBe(504);
    expect(w.headers['retry-after']).toBe('1');
    expect(w.error).toMatchObject({ reason: 'Timeout', code: 504, details: { causes: [{ reason: 'ResourceVersionTooLarge' }], retryAfterSeconds: 1 } });
    expect(w.error.message).toMatch(new RegExp(`^Timeout: Too large resource version: ${rv}, current: \\d+$`));
  });

  it('Table watches (kubectl get -w): one row per event, column definitions only on the first', async () => {
    const w = await watch(cmPath(), { resourceVersion: await listRv() }, { Accept: KUBECTL_TABLE });
    await create(cm('tw1', {}, { a: '1' }));
    await create(cm('tw2'));
    const [e1, e2] = [await w.next(), await w.next()];
    expect(e1.object).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(e1.object.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(e1.object.rows).toHaveLength(1);
    expect(e1.object.rows[0].cells.slice(0, 2)).toEqual(['tw1', 1]);
    expect(e1.object.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'tw1' } });
    expect(e2.object.columnDefinitions).toEqual([]);
    expect(e2.object.rows[0].cells[0]).toBe('tw2');
  });

  it('PartialObjectMetadata watches (metadata informers)', async () => {
    const w = await watch(cmPath(), { resourceVersion: await listRv() }, { Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
    await create(cm('pm', { l: 'v' }, { secret: 'not sent' }));
    const e = await w.next();
    expect(e.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: expect.objectContaining({ name: 'pm', labels: { l: 'v' } }) });
  });

  it('YAML is not a watch encoding: 406', async () => {
    const w = await watch(cmPath(), {}, { Accept: 'application/yaml' });
    expect(w.status).toBe(406);
    expect(w.error).toMatchObject({ reason: 'NotAcceptable', code: 406 });
  });

  it.each([
    [{ resourceVersionMatch: 'NotOlderThan' }, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    [{ sendInitialEvents: 'true' }, 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    [{ sendInitialEvents: 'true', resourceVersionMatch: 'Exact' }, 'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"'],
  ])('invalid options %j are 422', async (query, message) => {
    const w = await watch(cmPath(), query as Record<string, string>);
    expect(w.status).toBe(422);
    expect(w.error).toMatchObject({ reason: 'Invalid', details: { kind: 'ListOptions' } });
    expect(w.error.message).toContain(message);
  });

  it('a bad resourceVersion is 400 and an unsupported field label 400', async () => {
    const bad = await watch(cmPath(), { resourceVersion: 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.error.message).toBe('invalid resource version: abc');
    const field = await watch(cmPath(), { fieldSelector: 'spec.foo=1' });
    expect(field.status).toBe(400);
    expect(field.error.message).toBe('field label not supported: spec.foo');
  });
});
