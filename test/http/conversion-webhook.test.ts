/**
 * A CustomResourceDefinition converted by a real HTTPS conversion webhook (test/http/conversion-webhook-server.ts),
 * served at runtime by the CRD controller, through the HTTP API on both backends. The definition has
 * `v1beta1` (served, deprecated), `v1` (served) with `spec.hostPort: "host:port"`, and `v2` (served, storage)
 * with `spec.host` and `spec.port`; conversion strategy `Webhook`, review version v1, verified by caBundle.
 *
 * Covered: writes in v1 stored as v2 (the raw store value), reads, lists and watches in either version; every
 * write's answer in the request's version (create, update, merge patch, JSON patch, server-side apply); the
 * ConversionReviews the webhook received; kubectl in k8s.io mode printing either shape; a stopped webhook
 * failing that resource's converting requests only, with Kubernetes' message (the storage version, other
 * resources and the definition's conditions unaffected) and recovering when it is back; garbage answers with
 * Kubernetes' messages; the deprecated version's Warning.
 */
import { kubectlAsync as kubectl } from './kubectl-async.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';
import { convertedReview, convertingResponder, startConversionWebhook, type ConversionWebhook, type Json } from './conversion-webhook-server.js';
import { openWatch } from './watch-client.js';
import { eventually } from '../server/helpers.js';
import { generateCa } from '../../apiserver/tls/generate-certs.js';

const all = backends();
let hook: ConversionWebhook;
beforeAll(async () => {
  hook = await startConversionWebhook();
});
afterAll(async () => {
  await stopBackends(all);
  await hook?.close();
});

const DEPRECATION = 'v1beta1 widgets are going away; use v2';

const hostPortSchema = {
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', properties: { hostPort: { type: 'string' }, replicas: { type: 'integer' } } } },
  },
};
const hostAndPortSchema = {
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', properties: { host: { type: 'string' }, port: { type: 'integer' }, replicas: { type: 'integer' } } } },
  },
};
const hostPortColumns = [{ name: 'HostPort', type: 'string', jsonPath: '.spec.hostPort' }];

/** The Widget definition of `group` in `apiextensions.<domain>`, converted by the test's webhook. */
function widgetCrd(domain: string, group: string): Json {
  return {
    apiVersion: `apiextensions.${domain}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1beta1', served: true, storage: false, deprecated: true, deprecationWarning: DEPRECATION, schema: hostPortSchema, additionalPrinterColumns: hostPortColumns },
        { name: 'v1', served: true, storage: false, schema: hostPortSchema, additionalPrinterColumns: hostPortColumns },
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: hostAndPortSchema,
          additionalPrinterColumns: [
            { name: 'Host', type: 'string', jsonPath: '.spec.host' },
            { name: 'Port', type: 'integer', jsonPath: '.spec.port' },
          ],
        },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: hook.clientConfig } },
    },
  };
}

const conditionOf = (crd: Json, type: string): Json | undefined => (crd.status?.conditions ?? []).find((c: Json) => c.type === type);

/** Creates the definition and waits until every version is served. */
async function establish(api: TestApi, domain: string, group: string): Promise<void> {
  const res = await api.request('POST', `/apis/apiextensions.${domain}/v1/customresourcedefinitions`, { body: widgetCrd(domain, group) });
  expect(res.status).toBe(201);
  await eventually(async () => {
    const crd = (await api.request('GET', `/apis/apiextensions.${domain}/v1/customresourcedefinitions/widgets.${group}`)).json();
    return conditionOf(crd, 'Established')?.status === 'True';
  }, `widgets.${group} Established`, 10_000);
  for (const v of ['v1beta1', 'v1', 'v2']) {
    await eventually(async () => (await api.request('GET', `/apis/${group}/${v}/widgets`)).status === 200, `${group}/${v} served`, 10_000);
  }
}

/** The reviews received since `mark` for `group`'s objects, as `{desired, objects}`. */
function reviewsSince(mark: number, group: string): { desired: string; objects: Json[] }[] {
  return hook.reviews
    .slice(mark)
    .map((r) => r.review.request as { desiredAPIVersion: string; objects: Json[] })
    .filter((r) => r.desiredAPIVersion.startsWith(`${group}/`))
    .map((r) => ({ desired: r.desiredAPIVersion, objects: r.objects }));
}

/**
 * The reviews a request caused: without those to v1beta1, the version the garbage collector's monitor
 * watches (the first served), whose informer has every event converted there in the background, at times
 * of its own.
 */
function requestReviewsSince(mark: number, group: string): { desired: string; objects: Json[] }[] {
  return reviewsSince(mark, group).filter((r) => r.desired !== `${group}/v1beta1`);
}

/** Expects a 500 Status from a failed conversion and returns its message. */
function conversionFailure(res: ApiResponse): string {
  expect(res.status).toBe(500);
  const status = res.json();
  expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500 });
  // A converter's error is a plain error in Kubernetes, which the handlers answer with StatusReasonUnknown ("").
  expect(status).not.toHaveProperty('reason');
  return status.message;
}

describeBackends(all, (b) => {
  const group = `${uniqueName('cw')}.example.com`;
  const prefix = `/registry-cw-${process.pid}-${b.name}`;
  let api: TestApi;
  let ns: string;
  const path = (version: string, name = ''): string => `/apis/${group}/${version}/namespaces/${ns}/widgets${name === '' ? '' : `/${name}`}`;
  const v1Widget = (name: string, hostPort: string, extra: Json = {}): Json => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { hostPort, replicas: 2, ...extra } });
  const v2Widget = (name: string, host: string, port: number): Json => ({ apiVersion: `${group}/v2`, kind: 'Widget', metadata: { name }, spec: { host, port, replicas: 1 } });
  /** The stored JSON of an instance, read from the server's store. */
  const stored = async (name: string, namespace = ns): Promise<Json | undefined> => {
    const { kv } = await api.server.store.get(`${prefix}/${group}/widgets/${namespace}/${name}`);
    return kv === undefined ? undefined : (JSON.parse(Buffer.from(kv.value).toString('utf8')) as Json);
  };

  beforeAll(async () => {
    api = await b.start({ storagePrefix: prefix });
    ns = await createNamespace(api);
    await establish(api, 'platform.io', group);
  });
  afterEach(() => {
    hook.respond = convertingResponder;
  });

  it('create through v1: stored as v2; get, list and watch in v1 and v2 each see their own shape', async () => {
    const rv = (await api.request('GET', path('v2'))).json().metadata.resourceVersion;
    const w1 = await openWatch(api, path('v1'), { resourceVersion: rv });
    const w2 = await openWatch(api, path('v2'), { resourceVersion: rv });
    try {
      const mark = hook.reviews.length;
      const created = await api.request('POST', path('v1'), { body: v1Widget('a', 'a.example:8080') });
      expect(created.status).toBe(201);
      expect(created.json()).toMatchObject({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'a', namespace: ns }, spec: { hostPort: 'a.example:8080', replicas: 2 } });
      expect(created.json().spec.host).toBeUndefined();

      // The webhook converted the request to the storage version, then the stored object back for the answer.
      const seen = requestReviewsSince(mark, group).slice(0, 2);
      expect(seen).toEqual([
        { desired: `${group}/v2`, objects: [expect.objectContaining({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: expect.objectContaining({ name: 'a', namespace: ns }), spec: { hostPort: 'a.example:8080', replicas: 2 } })] },
        { desired: `${group}/v1`, objects: [expect.objectContaining({ apiVersion: `${group}/v2`, kind: 'Widget', metadata: expect.objectContaining({ name: 'a', uid: created.json().metadata.uid }), spec: { host: 'a.example', port: 8080, replicas: 2 } })] },
      ]);
      const first = hook.reviews[mark]!;
      expect(first.url).toBe('/convert?timeout=30s');
      expect(first.review).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: expect.any(String) } });

      const raw = await stored('a');
      expect(raw).toMatchObject({ apiVersion: `${group}/v2`, kind: 'Widget', metadata: { name: 'a', namespace: ns, uid: created.json().metadata.uid }, spec: { host: 'a.example', port: 8080, replicas: 2 } });
      expect(raw!.spec.hostPort).toBeUndefined();

      const asV2 = await api.request('GET', path('v2', 'a'));
      expect(asV2.json()).toMatchObject({ apiVersion: `${group}/v2`, spec: { host: 'a.example', port: 8080, replicas: 2 } });
      const asV1 = await api.request('GET', path('v1', 'a'));
      expect(asV1.json()).toMatchObject({ apiVersion: `${group}/v1`, spec: { hostPort: 'a.example:8080', replicas: 2 } });
      expect(asV1.json().metadata.resourceVersion).toBe(asV2.json().metadata.resourceVersion);

      for (const query of [{}, { resourceVersion: '0' }, { limit: '10' }]) {
        const l1 = (await api.request('GET', path('v1'), { query })).json();
        expect(l1).toMatchObject({ apiVersion: `${group}/v1`, kind: 'WidgetList' });
        expect(l1.items.map((o: Json) => [o.apiVersion, o.spec])).toEqual([[`${group}/v1`, { hostPort: 'a.example:8080', replicas: 2 }]]);
        const l2 = (await api.request('GET', path('v2'), { query })).json();
        expect(l2).toMatchObject({ apiVersion: `${group}/v2`, kind: 'WidgetList' });
        expect(l2.items.map((o: Json) => [o.apiVersion, o.spec])).toEqual([[`${group}/v2`, { host: 'a.example', port: 8080, replicas: 2 }]]);
      }

      expect(await w1.next()).toMatchObject({ type: 'ADDED', object: { apiVersion: `${group}/v1`, metadata: { name: 'a' }, spec: { hostPort: 'a.example:8080' } } });
      expect(await w2.next()).toMatchObject({ type: 'ADDED', object: { apiVersion: `${group}/v2`, metadata: { name: 'a' }, spec: { host: 'a.example', port: 8080 } } });
      // A change written in v2 reaches the v1 watcher converted.
      const patched = await api.request('PATCH', path('v2', 'a'), { body: { spec: { port: 9090 } } });
      expect(patched.json().spec).toEqual({ host: 'a.example', port: 9090, replicas: 2 });
      expect(await w1.next()).toMatchObject({ type: 'MODIFIED', object: { apiVersion: `${group}/v1`, spec: { hostPort: 'a.example:9090' } } });
      expect(await w2.next()).toMatchObject({ type: 'MODIFIED', object: { apiVersion: `${group}/v2`, spec: { host: 'a.example', port: 9090 } } });
      expect((await api.request('DELETE', path('v1', 'a'))).status).toBe(200);
      expect(await w1.next()).toMatchObject({ type: 'DELETED', object: { apiVersion: `${group}/v1`, metadata: { name: 'a' }, spec: { hostPort: 'a.example:9090' } } });
      expect(await w2.next()).toMatchObject({ type: 'DELETED', object: { apiVersion: `${group}/v2`, metadata: { name: 'a' } } });
    } finally {
      w1.close();
      w2.close();
    }
  });

  it('create through v2, read through v1; update, merge patch, JSON patch and apply through v1 answer in v1 and store v2', async () => {
    const created = await api.request('POST', path('v2'), { body: v2Widget('b', 'b.example', 80) });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ apiVersion: `${group}/v2`, spec: { host: 'b.example', port: 80, replicas: 1 } });
    const mark = hook.reviews.length;
    const current = await api.request('GET', path('v1', 'b'));
    expect(current.json()).toMatchObject({ apiVersion: `${group}/v1`, spec: { hostPort: 'b.example:80', replicas: 1 } });
    expect(requestReviewsSince(mark, group)).toEqual([{ desired: `${group}/v1`, objects: [expect.objectContaining({ apiVersion: `${group}/v2`, spec: { host: 'b.example', port: 80, replicas: 1 } })] }]);

    const updated = await api.request('PUT', path('v1', 'b'), { body: { ...current.json(), spec: { hostPort: 'c.example:81', replicas: 3 } } });
    expect(updated.status).toBe(200);
    expect(updated.json()).toMatchObject({ apiVersion: `${group}/v1`, spec: { hostPort: 'c.example:81', replicas: 3 }, metadata: { generation: 2 } });
    expect((await stored('b'))).toMatchObject({ apiVersion: `${group}/v2`, spec: { host: 'c.example', port: 81, replicas: 3 } });

    const merged = await api.request('PATCH', path('v1', 'b'), { body: { spec: { hostPort: 'd.example:82' } } });
    expect(merged.status).toBe(200);
    expect(merged.json()).toMatchObject({ apiVersion: `${group}/v1`, spec: { hostPort: 'd.example:82', replicas: 3 } });
    expect((await stored('b'))!.spec).toEqual({ host: 'd.example', port: 82, replicas: 3 });

    const jsonPatched = await api.request('PATCH', path('v1', 'b'), {
      body: [{ op: 'replace', path: '/spec/hostPort', value: 'e.example:83' }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(jsonPatched.status).toBe(200);
    expect(jsonPatched.json()).toMatchObject({ apiVersion: `${group}/v1`, spec: { hostPort: 'e.example:83' } });
    expect((await stored('b'))!.spec).toEqual({ host: 'e.example', port: 83, replicas: 3 });

    const applied = await api.request('PATCH', path('v1', 'b'), {
      body: JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'b' }, spec: { hostPort: 'f.example:84' } }),
      query: { fieldManager: 'tester', force: 'true' },
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(applied.status).toBe(200);
    expect(applied.json()).toMatchObject({ apiVersion: `${group}/v1`, spec: { hostPort: 'f.example:84', replicas: 3 } });
    const tester = applied.json().metadata.managedFields.find((m: Json) => m.manager === 'tester');
    expect(tester).toMatchObject({ operation: 'Apply', apiVersion: `${group}/v1`, fieldsV1: { 'f:spec': { 'f:hostPort': {} } } });
    expect((await stored('b'))!.spec).toEqual({ host: 'f.example', port: 84, replicas: 3 });

    // And a write through v2 answers in v2, without a review.
    const before = hook.reviews.length;
    const v2Patch = await api.request('PATCH', path('v2', 'b'), { body: { spec: { replicas: 5 } } });
    expect(v2Patch.json()).toMatchObject({ apiVersion: `${group}/v2`, spec: { host: 'f.example', port: 84, replicas: 5 } });
    expect(requestReviewsSince(before, group)).toEqual([]);
  });

  it('a stopped webhook fails converting requests of that resource with a 500; v2, other resources and the definition are unaffected; it recovers', async () => {
    const space = await createNamespace(api);
    const inSpace = (version: string, name = ''): string => `/apis/${group}/${version}/namespaces/${space}/widgets${name === '' ? '' : `/${name}`}`;
    expect((await api.request('POST', inSpace('v2'), { body: v2Widget('steady', 's.example', 1) })).status).toBe(201);
    const rv = (await api.request('GET', inSpace('v2'))).json().metadata.resourceVersion;
    const w1 = await openWatch(api, inSpace('v1'), { resourceVersion: rv });
    const w2 = await openWatch(api, inSpace('v2'), { resourceVersion: rv });
    await hook.stop();
    try {
      const post = `Post "https://127.0.0.1:${hook.port}/convert?timeout=30s": dial tcp 127.0.0.1:${hook.port}: connect: connection refused`;
      const fromV2 = `conversion for ${group}/v2, Kind=Widget failed: conversion webhook for /, Kind= failed: ${post}`;
      expect(conversionFailure(await api.request('GET', inSpace('v1', 'steady')))).toBe(fromV2);
      expect(conversionFailure(await api.request('GET', inSpace('v1', 'steady'), { query: { resourceVersion: '0' } }))).toBe(fromV2);
      expect(conversionFailure(await api.request('GET', inSpace('v1')))).toBe(fromV2);
      expect(conversionFailure(await api.request('GET', inSpace('v1'), { query: { limit: '5' } }))).toBe(fromV2);
      const create = await api.request('POST', inSpace('v1'), { body: v1Widget('refused', 'r.example:1') });
      expect(conversionFailure(create)).toBe(`conversion for ${group}/v1, Kind=Widget failed: conversion webhook for /, Kind= failed: ${post}`);
      expect(await stored('refused', space)).toBeUndefined();
      expect(conversionFailure(await api.request('PATCH', inSpace('v1', 'steady'), { body: { spec: { replicas: 9 } } }))).toContain(post);
      expect(conversionFailure(await api.request('DELETE', inSpace('v1', 'steady')))).toContain(post);
      expect((await stored('steady', space))!.spec).toEqual({ host: 's.example', port: 1, replicas: 1 });

      // The storage version needs no conversion: reads and writes in v2 work.
      expect((await api.request('GET', inSpace('v2', 'steady'))).json().spec).toEqual({ host: 's.example', port: 1, replicas: 1 });
      expect((await api.request('GET', inSpace('v2'), { query: { resourceVersion: '0' } })).json().items.map((o: Json) => o.metadata.name)).toEqual(['steady']);
      expect((await api.request('POST', inSpace('v2'), { body: v2Widget('during', 'd.example', 2) })).status).toBe(201);
      // The v1 watcher cannot convert that event: its watch ends with an InternalError; the v2 one carries on.
      const error = await w1.next();
      expect(error).toMatchObject({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', code: 500, reason: 'InternalError', message: `Internal error occurred: ${fromV2}` } });
      await w1.ended;
      expect(await w2.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'during' }, spec: { host: 'd.example', port: 2 } } });
      // A new v1 watch whose initial events need the webhook ends the same way.
      const initial = await openWatch(api, inSpace('v1'), { resourceVersion: '0' });
      try {
        expect(initial.status).toBe(200);
        expect(await initial.next()).toMatchObject({ type: 'ERROR', object: { code: 500, reason: 'InternalError', message: expect.stringContaining(post) } });
        await initial.ended;
      } finally {
        initial.close();
      }

      // Other resources are served as ever.
      const cm = await api.request('POST', `/api/v1/namespaces/${space}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'still' }, data: { a: 'b' } } });
      expect(cm.status).toBe(201);
      expect((await api.request('GET', `/api/v1/namespaces/${space}/configmaps/still`)).json().data).toEqual({ a: 'b' });
      const crd = (await api.request('GET', `/apis/apiextensions.platform.io/v1/customresourcedefinitions/widgets.${group}`)).json();
      expect(conditionOf(crd, 'Established')).toMatchObject({ status: 'True' });
      expect(conditionOf(crd, 'NamesAccepted')).toMatchObject({ status: 'True' });
    } finally {
      w1.close();
      w2.close();
      await hook.restart();
    }

    // Back up: nothing failed was remembered.
    expect((await api.request('GET', inSpace('v1', 'steady'))).json()).toMatchObject({ apiVersion: `${group}/v1`, spec: { hostPort: 's.example:1' } });
    const list = (await api.request('GET', inSpace('v1'), { query: { resourceVersion: '0' } })).json();
    expect(list.items.map((o: Json) => o.spec.hostPort)).toEqual(['d.example:2', 's.example:1']);
    expect((await api.request('POST', inSpace('v1'), { body: v1Widget('later', 'l.example:3') })).status).toBe(201);
    expect((await stored('later', space))!.spec).toEqual({ host: 'l.example', port: 3, replicas: 2 });
  });

  it('the webhook is verified with caBundle: another CA fails that resource until the bundle is right again', async () => {
    const crdPath = `/apis/apiextensions.platform.io/v1/customresourcedefinitions/widgets.${group}`;
    expect((await api.request('POST', path('v2'), { body: v2Widget('tls', 't.example', 443) })).status).toBe(201);
    const other = await generateCa('not-the-webhooks-ca');
    const setBundle = (caBundle: string) =>
      api.request('PATCH', crdPath, { body: { spec: { conversion: { webhook: { clientConfig: { caBundle } } } } } });
    expect((await setBundle(Buffer.from(other.certPem).toString('base64'))).status).toBe(200);
    const unknownAuthority = `Post "https://127.0.0.1:${hook.port}/convert?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`;
    let last: ApiResponse | undefined;
    await eventually(async () => {
      last = await api.request('GET', path('v1', 'tls'));
      return last.status === 500;
    }, 'the new caBundle in use', 10_000);
    expect(conversionFailure(last!)).toBe(`conversion for ${group}/v2, Kind=Widget failed: conversion webhook for /, Kind= failed: ${unknownAuthority}`);
    expect((await api.request('GET', path('v2', 'tls'))).status).toBe(200);
    expect((await setBundle(hook.clientConfig.caBundle)).status).toBe(200);
    await eventually(async () => (await api.request('GET', path('v1', 'tls'))).status === 200, 'the right caBundle in use again', 10_000);
    expect((await api.request('GET', path('v1', 'tls'))).json().spec).toEqual({ hostPort: 't.example:443', replicas: 1 });
  });

  describe('garbage answers fail the request with Kubernetes\' message; the next good answer serves again', () => {
    const webhookFailed = (): string => `conversion for ${group}/v2, Kind=Widget failed: conversion webhook for /, Kind= failed: `;
    beforeAll(async () => {
      expect((await api.request('POST', path('v2'), { body: v2Widget('g', 'g.example', 7) })).status).toBe(201);
    });
    /** GET in v1 (from the store: converted afresh each time) with the webhook answering per `respond`. */
    const getV1 = () => api.request('GET', path('v1', 'g'));
    afterEach(async () => {
      hook.respond = convertingResponder;
      expect((await getV1()).json().spec).toEqual({ hostPort: 'g.example:7', replicas: 1 });
    });

    it('invalid JSON', async () => {
      hook.respond = (_review, reply) => reply(200, '{"kind": "ConversionReview", ');
      expect(conversionFailure(await getV1())).toBe(`${webhookFailed()}couldn't get version/kind; json parse error: unexpected end of JSON input`);
    });

    it('a response for another uid', async () => {
      hook.respond = (review, reply) => {
        const answer = convertedReview(review);
        answer.response.uid = 'not-the-request-uid';
        reply(200, answer);
      };
      const message = conversionFailure(await getV1());
      const uid = hook.reviews.at(-1)!.review.request.uid as string;
      expect(message).toBe(`${webhookFailed()}expected response.uid="${uid}", got "not-the-request-uid"`);
    });

    it('a Failed result with a message', async () => {
      hook.respond = (review, reply) => reply(200, { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'widgets cannot be converted today' } } });
      expect(conversionFailure(await getV1())).toBe(`${webhookFailed()}widgets cannot be converted today`);
    });

    it('a Failed result without a message', async () => {
      hook.respond = (review, reply) => reply(200, { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure' } } });
      expect(conversionFailure(await getV1())).toBe(`${webhookFailed()}response.result.status was 'Failure', not 'Success'`);
    });

    it('the wrong number of objects', async () => {
      hook.respond = (review, reply) => {
        const answer = convertedReview(review);
        answer.response.convertedObjects = [];
        reply(200, answer);
      };
      expect(conversionFailure(await getV1())).toBe(`conversion for ${group}/v2, Kind=Widget returned 0 objects, expected 1`);
    });

    it('an object in the wrong version', async () => {
      hook.respond = (review, reply) => {
        const answer = convertedReview(review);
        answer.response.convertedObjects[0].apiVersion = `${group}/v2`;
        reply(200, answer);
      };
      expect(conversionFailure(await getV1())).toBe(
        `conversion for ${group}/v2, Kind=Widget returned invalid converted object at index 1: invalid groupVersion (expected ${group}/v1, received ${group}/v2)`,
      );
    });

    it('an error answer without a Status', async () => {
      hook.respond = (_review, reply) => reply(500, 'converter crashed', 'text/plain');
      expect(conversionFailure(await getV1())).toBe(`${webhookFailed()}an error on the server ("converter crashed") has prevented the request from succeeding`);
    });
  });

  it('a deprecated version answers with its Warning header; the others with none', async () => {
    const created = await api.request('POST', path('v1beta1'), { body: { apiVersion: `${group}/v1beta1`, kind: 'Widget', metadata: { name: 'old' }, spec: { hostPort: 'o.example:1' } } });
    expect(created.status).toBe(201);
    expect(created.warnings()).toEqual([`299 - "${DEPRECATION}"`]);
    expect(created.json()).toMatchObject({ apiVersion: `${group}/v1beta1`, spec: { hostPort: 'o.example:1' } });
    expect((await stored('old'))).toMatchObject({ apiVersion: `${group}/v2`, spec: { host: 'o.example', port: 1 } });
    for (const p of [path('v1beta1', 'old'), path('v1beta1')]) {
      const res = await api.request('GET', p);
      expect(res.status).toBe(200);
      expect(res.warnings()).toEqual([`299 - "${DEPRECATION}"`]);
    }
    const w = await openWatch(api, path('v1beta1'), { resourceVersion: created.json().metadata.resourceVersion });
    expect(w.headers.warning).toBe(`299 - "${DEPRECATION}"`);
    w.close();
    for (const v of ['v1', 'v2']) expect((await api.request('GET', path(v, 'old'))).warnings()).toEqual([]);
  });

  describe('k8s.io mode with kubectl', () => {
    const k8sGroup = `${uniqueName('cwk')}.example.com`;
    let k8s: TestApi;
    let space: string;
    let home: string;
    beforeAll(async () => {
      k8s = await b.start({ groupDomain: 'k8s.io' });
      space = await createNamespace(k8s);
      await establish(k8s, 'k8s.io', k8sGroup);
      home = mkdtempSync(join(tmpdir(), 'conversion-kubectl-'));
    });
    afterAll(() => rmSync(home, { recursive: true, force: true }));
    const kubectlGet = (args: readonly string[]) => kubectl(['--kubeconfig', k8s.server.kubeconfigPath!, '-n', space, 'get', ...args], home);

    it('kubectl get <plural>.v1.<group> and .v2. print either shape, converted by the webhook', async () => {
      const created = await k8s.request('POST', `/apis/${k8sGroup}/v1/namespaces/${space}/widgets`, {
        body: { apiVersion: `${k8sGroup}/v1`, kind: 'Widget', metadata: { name: 'k' }, spec: { hostPort: 'k.example:6443', replicas: 2 } },
      });
      expect(created.status).toBe(201);
      const mark = hook.reviews.length;

      const v1 = await kubectlGet([`widgets.v1.${k8sGroup}`, '-o', 'json']);
      expect(v1).toMatchObject({ status: 0, stderr: '' });
      expect(JSON.parse(v1.stdout).items.map((o: Json) => [o.apiVersion, o.spec])).toEqual([[`${k8sGroup}/v1`, { hostPort: 'k.example:6443', replicas: 2 }]]);
      const v2 = await kubectlGet([`widgets.v2.${k8sGroup}`, '-o', 'json']);
      expect(v2).toMatchObject({ status: 0, stderr: '' });
      expect(JSON.parse(v2.stdout).items.map((o: Json) => [o.apiVersion, o.spec])).toEqual([[`${k8sGroup}/v2`, { host: 'k.example', port: 6443, replicas: 2 }]]);

      const table1 = await kubectlGet([`widgets.v1.${k8sGroup}`]);
      expect(table1.status).toBe(0);
      expect(table1.stdout.split('\n').map((l) => l.trim().split(/\s+/))).toEqual([['NAME', 'HOSTPORT'], ['k', 'k.example:6443'], ['']]);
      const table2 = await kubectlGet([`widgets.v2.${k8sGroup}`, 'k']);
      expect(table2.status).toBe(0);
      expect(table2.stdout.split('\n').map((l) => l.trim().split(/\s+/))).toEqual([['NAME', 'HOST', 'PORT'], ['k', 'k.example', '6443'], ['']]);

      // The v1 reads went through the webhook (object stored as v2), in the v1 review of apiextensions.k8s.io.
      const seen = hook.reviews.slice(mark).filter((r) => r.review.request.desiredAPIVersion.startsWith(`${k8sGroup}/`));
      expect(seen.length).toBeGreaterThan(0);
      for (const r of seen) {
        expect(r.review).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { desiredAPIVersion: `${k8sGroup}/v1` } });
        expect(r.review.request.objects).toEqual([expect.objectContaining({ apiVersion: `${k8sGroup}/v2`, spec: { host: 'k.example', port: 6443, replicas: 2 } })]);
      }

      const deprecated = await kubectlGet([`widgets.v1beta1.${k8sGroup}`, 'k', '-o', 'jsonpath={.spec.hostPort}']);
      expect(deprecated).toMatchObject({ status: 0, stdout: 'k.example:6443' });
      expect(deprecated.stderr).toContain(`Warning: ${DEPRECATION}`);
    }, 60_000);

    it('kubectl reports a stopped webhook as the server\'s error for that resource only', async () => {
      await hook.stop();
      try {
        const failed = await kubectlGet([`widgets.v1.${k8sGroup}`, 'k']);
        expect(failed.status).not.toBe(0);
        expect(failed.stderr).toContain(`Error from server: conversion for ${k8sGroup}/v2, Kind=Widget failed: conversion webhook for /, Kind= failed: Post "https://127.0.0.1:${hook.port}/convert?timeout=30s"`);
        const fine = await kubectlGet([`widgets.v2.${k8sGroup}`, 'k', '-o', 'jsonpath={.spec.host}']);
        expect(fine).toMatchObject({ status: 0, stdout: 'k.example' });
      } finally {
        await hook.restart();
      }
    }, 60_000);
  });
});
