/**
 * Events over HTTP on both backends: core v1 Events and events.<domain>/v1 Events are the same objects
 * (one stored shape, converted per view), with kube's validation per API, field selectors, kubectl's
 * table, discovery in both domain modes, watch through the view, and `--event-ttl` expiry.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';
import { openWatch } from './watch-client.js';

const all = backends();
afterAll(() => stopBackends(all));

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

const coreEvent = (name: string, ns: string, about: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'ConfigMap', namespace: ns, name: about, uid: `uid-${about}`, apiVersion: 'v1' },
  reason: 'Synced',
  message: `synced ${about}`,
  source: { component: 'demo-controller' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:00:00Z',
  count: 2,
  type: 'Normal',
  ...extra,
});

const newEvent = (name: string, ns: string, about: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.platform.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-01-01T00:00:00.000001Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Sync',
  reason: 'Synced',
  regarding: { kind: 'ConfigMap', namespace: ns, name: about },
  note: `synced ${about}`,
  type: 'Normal',
  ...extra,
});

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
  });

  it('discovery lists both Event resources, with short name ev', async () => {
    const core = (await api.request('GET', '/api/v1')).json();
    expect(core.resources).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] })]));
    const view = (await api.request('GET', '/apis/events.platform.io/v1')).json();
    expect(view.resources).toEqual([expect.objectContaining({ name: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] })]);
  });

  it('one object under both names: created as core v1, read, listed and selected through events.platform.io', async () => {
    const name = uniqueName('ev');
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/events`, { body: coreEvent(name, ns, 'c1') })).status).toBe(201);
    const got = await api.request('GET', `/apis/events.platform.io/v1/namespaces/${ns}/events/${name}`);
    expect(got.status).toBe(200);
    expect(got.json()).toMatchObject({
      apiVersion: 'events.platform.io/v1',
      kind: 'Event',
      regarding: { name: 'c1' },
      note: 'synced c1',
      deprecatedSource: { component: 'demo-controller' },
      deprecatedCount: 2,
    });
    const byRegarding = await api.request('GET', `/apis/events.platform.io/v1/namespaces/${ns}/events`, { query: { fieldSelector: 'regarding.name=c1' } });
    expect(byRegarding.json().items.map((e: any) => e.metadata.name)).toEqual([name]);
    expect(byRegarding.json()).toMatchObject({ apiVersion: 'events.platform.io/v1', kind: 'EventList' });
    const wrongLabel = await api.request('GET', `/apis/events.platform.io/v1/namespaces/${ns}/events`, { query: { fieldSelector: 'involvedObject.name=c1' } });
    expect(wrongLabel.status).toBe(400);
    expect(wrongLabel.json().message).toBe('field label not supported: involvedObject.name');
  });

  it('kubectl describe\'s selector finds the events of one object', async () => {
    const name = uniqueName('ev');
    await api.request('POST', `/api/v1/namespaces/${ns}/events`, { body: coreEvent(name, ns, 'c2') });
    await api.request('POST', `/api/v1/namespaces/${ns}/events`, { body: coreEvent(uniqueName('ev'), ns, 'c3') });
    const fieldSelector = `involvedObject.name=c2,involvedObject.namespace=${ns},involvedObject.kind=ConfigMap,involvedObject.uid=uid-c2`;
    const res = await api.request('GET', '/api/v1/events', { query: { fieldSelector } });
    expect(res.status).toBe(200);
    expect(res.json().items.map((e: any) => e.metadata.name)).toEqual([name]);
    const paged = await api.request('GET', `/api/v1/namespaces/${ns}/events`, { query: { fieldSelector, limit: '500' } });
    expect(paged.json().items.map((e: any) => e.metadata.name)).toEqual([name]);
  });

  it('a write through events.platform.io is stored in the core shape and validated strictly', async () => {
    const name = uniqueName('ev');
    const created = await api.request('POST', `/apis/events.platform.io/v1/namespaces/${ns}/events`, { body: newEvent(name, ns, 'c4') });
    expect(created.status).toBe(201);
    expect(created.json().metadata.managedFields[0].apiVersion).toBe('events.platform.io/v1');
    const core = (await api.request('GET', `/api/v1/namespaces/${ns}/events/${name}`)).json();
    expect(core).toMatchObject({ apiVersion: 'v1', involvedObject: { name: 'c4' }, message: 'synced c4', reportingComponent: 'example.com/ctl', action: 'Sync' });

    const bad = await api.request('POST', `/apis/events.platform.io/v1/namespaces/${ns}/events`, {
      body: newEvent(uniqueName('ev'), ns, 'c4', { type: 'Sometimes', deprecatedCount: 3 }),
    });
    expect(bad.status).toBe(422);
    expect(bad.json().message).toMatch(/^Event "ev-[-0-9]+" is invalid: \[type: Invalid value: "": has invalid value: Sometimes, count: Invalid value: "": needs to be unset\]$/);
    const noTime = await api.request('POST', `/apis/events.platform.io/v1/namespaces/${ns}/events`, {
      body: newEvent(uniqueName('ev'), ns, 'c4', { eventTime: undefined }),
    });
    expect(noTime.status).toBe(422);
    expect(noTime.json().details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'eventTime' }]);

    const frozen = await api.request('PATCH', `/apis/events.platform.io/v1/namespaces/${ns}/events/${name}`, { body: { note: 'rewritten' } });
    expect(frozen.status).toBe(422);
    expect(frozen.json().message).toContain('message: Invalid value: "rewritten": field is immutable');
    const core2 = await api.request('PATCH', `/api/v1/namespaces/${ns}/events/${name}`, { body: { message: 'rewritten', count: 5 } });
    expect(core2.status).toBe(200);
  });

  it('legacy rules through core v1: involvedObject.namespace must match', async () => {
    const res = await api.request('POST', `/api/v1/namespaces/${ns}/events`, {
      body: coreEvent(uniqueName('ev'), ns, 'c5', { involvedObject: { kind: 'ConfigMap', namespace: 'elsewhere', name: 'c5' } }),
    });
    expect(res.status).toBe(422);
    expect(res.json().details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "elsewhere": does not match event.namespace', field: 'involvedObject.namespace' },
    ]);
  });

  it('PUT of a missing event creates it, as recorders expect', async () => {
    const name = uniqueName('ev');
    const res = await api.request('PUT', `/api/v1/namespaces/${ns}/events/${name}`, { body: coreEvent(name, ns, 'c6') });
    expect(res.status).toBe(201);
  });

  it('the table is kubectl\'s, through both names', async () => {
    const name = uniqueName('ev');
    await api.request('POST', `/api/v1/namespaces/${ns}/events`, { body: coreEvent(name, ns, 'c7', { involvedObject: { kind: 'ConfigMap', namespace: ns, name: 'c7', fieldPath: 'data' } }) });
    for (const path of [`/api/v1/namespaces/${ns}/events/${name}`, `/apis/events.platform.io/v1/namespaces/${ns}/events/${name}`]) {
      const body = (await api.request('GET', path, { headers: { Accept: TABLE } })).json();
      expect(body.columnDefinitions.map((c: any) => `${c.name}:${c.priority}`)).toEqual([
        'Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1',
      ]);
      const cells = body.rows[0].cells;
      expect(cells.slice(1, 9)).toEqual(['Normal', 'Synced', 'configmap/c7', 'data', 'demo-controller', 'synced c7', cells[7], 2]);
      expect(cells[0]).toMatch(/^\d+[smhdy]/);
      expect(cells[9]).toBe(name);
    }
  });

  it('a watch through events.platform.io carries converted objects', async () => {
    const rv = (await api.request('GET', `/api/v1/namespaces/${ns}/events`)).json().metadata.resourceVersion as string;
    const w = await openWatch(api, `/apis/events.platform.io/v1/namespaces/${ns}/events`, { resourceVersion: rv });
    try {
      const name = uniqueName('ev');
      await api.request('POST', `/api/v1/namespaces/${ns}/events`, { body: coreEvent(name, ns, 'c8') });
      const e = await w.until((x) => x.type === 'ADDED' && x.object.metadata.name === name);
      expect(e.object).toMatchObject({ apiVersion: 'events.platform.io/v1', kind: 'Event', note: 'synced c8', regarding: { name: 'c8' } });
      expect(e.object).not.toHaveProperty('message');
    } finally {
      w.close();
    }
  });
});

describeBackends(all, (b) => {
  it('events.k8s.io under --group-domain=k8s.io', async () => {
    const api = await b.start({ groupDomain: 'k8s.io' });
    const groups = (await api.request('GET', '/apis')).json();
    expect(groups.groups.map((g: any) => g.name)).toContain('events.k8s.io');
    const ns = await createNamespace(api);
    const name = uniqueName('ev');
    const res = await api.request('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, { body: { ...newEvent(name, ns, 'c1'), apiVersion: 'events.k8s.io/v1' } });
    expect(res.status).toBe(201);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/events/${name}`)).json().involvedObject.name).toBe('c1');
  });

  it('--event-ttl: events expire, whichever API wrote them', async () => {
    const api = await b.start({ eventTtlMs: 1000 });
    const ns = await createNamespace(api);
    const rv = (await api.request('GET', `/api/v1/namespaces/${ns}/events`)).json().metadata.resourceVersion as string;
    const w = await openWatch(api, `/api/v1/namespaces/${ns}/events`, { resourceVersion: rv });
    try {
      const a = uniqueName('ev');
      const c = uniqueName('ev');
      expect((await api.request('POST', `/api/v1/namespaces/${ns}/events`, { body: coreEvent(a, ns, 'c1') })).status).toBe(201);
      expect((await api.request('POST', `/apis/events.platform.io/v1/namespaces/${ns}/events`, { body: newEvent(c, ns, 'c1') })).status).toBe(201);
      const gone = new Set<string>();
      while (gone.size < 2) {
        const e = await w.next(15_000);
        if (e.type === 'DELETED') gone.add(e.object.metadata.name);
      }
      expect([...gone].sort()).toEqual([a, c].sort());
      expect((await api.request('GET', `/api/v1/namespaces/${ns}/events/${a}`)).status).toBe(404);
      // Other kinds never expire.
      expect((await api.request('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    } finally {
      w.close();
    }
  }, 30_000);
});
