/**
 * The webhook strategy against a real HTTPS conversion webhook in the test (a generated CA and serving
 * certificate), with Kubernetes' error texts for every way a webhook can fail.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateCa, generateServingCert, type CertAndKey } from '../../tls/generate-certs.js';
import { ConversionError, conversionStatus } from './conversion-error.js';
import { converterFor } from './converter-for.js';
import { convertList, convertObject, noneConverter, type CrConverter } from './custom-resource-converter.js';
import type { JsonObject } from './group-version.js';
import { webhookConverter, type WebhookConversion, type WebhookConverterOptions } from './webhook-converter.js';

type Handler = (review: JsonObject, req: IncomingMessage, res: ServerResponse) => void;

let ca: CertAndKey;
let otherCa: CertAndKey;
let server: Server;
let port: number;
let handler: Handler;
const seen: { review: JsonObject; url: string; headers: IncomingMessage['headers'] }[] = [];

const V1 = { group: 'stable.example.com', version: 'v1' };
const V2 = { group: 'stable.example.com', version: 'v2' };

/** v1 has spec.host and spec.port; v2 has spec.address "host:port". */
function convertWidget(obj: JsonObject, desired: string): JsonObject {
  const spec = obj['spec'] as Record<string, unknown>;
  if (desired.endsWith('/v2')) {
    const { host, port: p, ...rest } = spec;
    return { ...obj, apiVersion: desired, spec: { ...rest, address: `${String(host)}:${String(p)}` } };
  }
  const { address, ...rest } = spec;
  const [host, p] = String(address).split(':');
  return { ...obj, apiVersion: desired, spec: { ...rest, host, port: Number(p) } };
}

/** A correct webhook: answers in the review version it got, converting every object. */
const converting: Handler = (review, _req, res) => {
  const request = review['request'] as { uid: string; desiredAPIVersion: string; objects: JsonObject[] };
  reply(res, 200, {
    apiVersion: review['apiVersion'],
    kind: 'ConversionReview',
    response: { uid: request.uid, convertedObjects: request.objects.map((o) => convertWidget(o, request.desiredAPIVersion)), result: { status: 'Success' } },
  });
};

/** A webhook that converts, then lets `edit` spoil the answer. */
function spoiled(edit: (answer: { uid: string; convertedObjects: JsonObject[]; result: JsonObject }) => void): Handler {
  return (review, _req, res) => {
    const request = review['request'] as { uid: string; desiredAPIVersion: string; objects: JsonObject[] };
    const answer = { uid: request.uid, convertedObjects: request.objects.map((o) => convertWidget(o, request.desiredAPIVersion)), result: { status: 'Success' } as JsonObject };
    edit(answer);
    reply(res, 200, { apiVersion: review['apiVersion'], kind: 'ConversionReview', response: answer });
  };
}

function reply(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  res.writeHead(code, { 'Content-Type': contentType });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  ca = await generateCa('conversion-test-ca');
  otherCa = await generateCa('someone-else');
  const serving = await generateServingCert(ca, 'converter', [
    { type: 'dns', value: 'converter.webhooks.svc' },
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
  ]);
  server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject;
      seen.push({ review, url: req.url ?? '', headers: req.headers });
      handler(review, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  handler = converting;
});

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

function urlWebhook(versions: readonly string[] = ['v1', 'v1beta1'], caPem?: string): WebhookConversion {
  return { clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: b64(caPem ?? ca.certPem) }, conversionReviewVersions: versions };
}

function widget(name: string, apiVersion = 'stable.example.com/v1'): JsonObject {
  const spec = apiVersion.endsWith('/v1') ? { host: 'example.org', port: 8080, replicas: 2 } : { address: 'example.org:8080', replicas: 2 };
  return {
    apiVersion,
    kind: 'Widget',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', labels: { app: 'w' } },
    spec,
  };
}

const FIXED_UID = '0b5f1c2e-0000-4000-8000-000000000001';
const fixed: WebhookConverterOptions = { newUid: () => FIXED_UID };

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ConversionError);
    return (e as Error).message;
  }
  throw new Error('expected the conversion to fail');
}

const GVK = 'stable.example.com/v1, Kind=Widget';

describe('webhook conversion: success', () => {
  it('converts v1 -> v2 -> v1 (round trip) with a v1 ConversionReview over HTTPS verified by caBundle', async () => {
    const conv = webhookConverter(urlWebhook());
    const original = widget('w1');
    const v2 = await convertObject(original, V2, conv);
    expect(v2).toEqual({ ...original, apiVersion: 'stable.example.com/v2', spec: { address: 'example.org:8080', replicas: 2 } });
    const back = await convertObject(v2, V1, conv);
    expect(back).toEqual(original);

    expect(seen).toHaveLength(2);
    const { review, url, headers } = seen[0]!;
    expect(url).toBe('/convert?timeout=30s');
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('kube-apiserver-admission');
    expect(review['apiVersion']).toBe('apiextensions.k8s.io/v1');
    expect(review['kind']).toBe('ConversionReview');
    const request = review['request'] as JsonObject;
    expect(request['uid']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(request['desiredAPIVersion']).toBe('stable.example.com/v2');
    expect(request['objects']).toEqual([original]);
    expect((seen[1]!.review['request'] as JsonObject)['uid']).not.toBe(request['uid']);
  });

  it('sends only the list items not already in the target version, and sets the list apiVersion', async () => {
    const conv = webhookConverter(urlWebhook());
    const list = { apiVersion: 'stable.example.com/v1', kind: 'WidgetList', metadata: { resourceVersion: '9' }, items: [widget('a'), widget('b', 'stable.example.com/v2'), widget('c')] };
    const out = await convertList(list, V2, conv);
    expect(out.apiVersion).toBe('stable.example.com/v2');
    expect(out.items.map((i) => (i['metadata'] as JsonObject)['name'])).toEqual(['a', 'b', 'c']);
    expect(out.items.every((i) => i['apiVersion'] === 'stable.example.com/v2' && (i['spec'] as JsonObject)['address'] === 'example.org:8080')).toBe(true);
    expect(seen).toHaveLength(1);
    expect(((seen[0]!.review['request'] as JsonObject)['objects'] as JsonObject[]).map((o) => (o['metadata'] as JsonObject)['name'])).toEqual(['a', 'c']);
    // Nothing to convert: no call.
    await convertList(out, V2, conv);
    expect(seen).toHaveLength(1);
  });

  it('reaches a service reference at https://<name>.<namespace>.svc:<port><path> through the resolver, verifying that name', async () => {
    const resolved: unknown[] = [];
    const conv = webhookConverter(
      { clientConfig: { service: { namespace: 'webhooks', name: 'converter', path: '/convert/', port: 8443 }, caBundle: b64(ca.certPem) }, conversionReviewVersions: ['v1'] },
      {
        resolveService: (svc) => {
          resolved.push(svc);
          return { host: '127.0.0.1', port };
        },
      },
    );
    const v2 = await convertObject(widget('w1'), V2, conv);
    expect(v2['apiVersion']).toBe('stable.example.com/v2');
    expect(resolved).toEqual([{ namespace: 'webhooks', name: 'converter', port: 8443 }]);
    expect(seen[0]!.url).toBe('/convert?timeout=30s');
    expect(seen[0]!.headers['host']).toBe('converter.webhooks.svc:8443');
  });

  it('lets the webhook change labels and annotations, and restores the rest of metadata', async () => {
    handler = spoiled((a) => {
      const meta = a.convertedObjects[0]!['metadata'] as JsonObject;
      meta['labels'] = { app: 'w', converted: 'yes' };
      meta['annotations'] = { note: 'x' };
      meta['resourceVersion'] = '999';
      meta['finalizers'] = ['example.com/f'];
    });
    const out = await convertObject(widget('w1'), V2, webhookConverter(urlWebhook()));
    expect(out['metadata']).toEqual({ name: 'w1', namespace: 'default', uid: 'uid-w1', resourceVersion: '7', labels: { app: 'w', converted: 'yes' }, annotations: { note: 'x' } });
  });

  it('does not call the webhook for an object with only apiVersion and kind (None)', async () => {
    const out = await convertObject({ apiVersion: 'stable.example.com/v1', kind: 'Widget' }, V2, webhookConverter(urlWebhook()));
    expect(out).toEqual({ apiVersion: 'stable.example.com/v2', kind: 'Widget' });
    expect(seen).toHaveLength(0);
  });
});

describe('review version negotiation', () => {
  it('uses v1beta1 when it comes first, and does not check kind or uid of a v1beta1 answer', async () => {
    handler = spoiled((a) => {
      a.uid = 'not-the-request-uid';
    });
    const out = await convertObject(widget('w1'), V2, webhookConverter(urlWebhook(['v1beta1', 'v1'])));
    expect(out['apiVersion']).toBe('stable.example.com/v2');
    expect(seen[0]!.review['apiVersion']).toBe('apiextensions.k8s.io/v1beta1');
  });

  it('uses the first known version (v1 after an unknown one)', async () => {
    await convertObject(widget('w1'), V2, webhookConverter(urlWebhook(['v2', 'v1', 'v1beta1'])));
    expect(seen[0]!.review['apiVersion']).toBe('apiextensions.k8s.io/v1');
  });

  it('fails without a call when no listed version is known', async () => {
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook(['v2']))))).toBe(`conversion for ${GVK} failed: no supported conversion review versions`);
    expect(seen).toHaveLength(0);
  });

  it('refuses a review of the other version', async () => {
    handler = (review, _req, res) => {
      const request = review['request'] as { uid: string };
      reply(res, 200, { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview', response: { uid: request.uid, convertedObjects: [], result: { status: 'Success' } } });
    };
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook(['v1']))))).toBe(
      `conversion for ${GVK} failed: conversion webhook for /, Kind= failed: converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion`,
    );
  });
});

describe('webhook conversion: answers Kubernetes refuses', () => {
  const prefix = `conversion for ${GVK} failed: conversion webhook for /, Kind= failed`;

  it('a wrong uid', async () => {
    handler = spoiled((a) => {
      a.uid = 'wrong';
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook(), fixed)))).toBe(`${prefix}: expected response.uid="${FIXED_UID}", got "wrong"`);
  });

  it('a wrong number of objects', async () => {
    handler = spoiled((a) => {
      a.convertedObjects = [];
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`conversion for ${GVK} returned 0 objects, expected 1`);
    handler = spoiled((a) => {
      a.convertedObjects = [...a.convertedObjects, ...a.convertedObjects];
    });
    const list = { apiVersion: 'stable.example.com/v1', kind: 'WidgetList', items: [widget('a')] };
    expect(await failure(convertList(list, V2, webhookConverter(urlWebhook())))).toBe('conversion for stable.example.com/v1, Kind=WidgetList returned 2 objects, expected 1');
  });

  it('a changed name, namespace or uid', async () => {
    const at = `conversion for ${GVK} returned invalid converted object at index 1`;
    for (const [field, value, word] of [
      ['name', 'other', 'name'],
      ['namespace', 'kube-system', 'namespace'],
      ['uid', 'forged', 'UID'],
    ] as const) {
      handler = spoiled((a) => {
        (a.convertedObjects[0]!['metadata'] as JsonObject)[field] = value;
      });
      const original = widget('w1');
      const was = (original['metadata'] as JsonObject)[field];
      expect(await failure(convertObject(original, V2, webhookConverter(urlWebhook())))).toBe(`${at}: must have the same ${word}: ${String(was)} != ${value}`);
    }
  });

  it('a changed kind or a wrong apiVersion', async () => {
    const at = `conversion for ${GVK} returned invalid converted object at index 1`;
    handler = spoiled((a) => {
      a.convertedObjects[0]!['kind'] = 'Gadget';
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`${at}: invalid kind (expected Widget, received Gadget)`);
    handler = spoiled((a) => {
      a.convertedObjects[0]!['apiVersion'] = 'stable.example.com/v1';
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${at}: invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v1)`,
    );
  });

  it('the index counts from 1 among the objects sent', async () => {
    handler = spoiled((a) => {
      (a.convertedObjects[1]!['metadata'] as JsonObject)['name'] = 'zzz';
    });
    const list = { apiVersion: 'stable.example.com/v1', kind: 'WidgetList', items: [widget('a'), widget('b', 'stable.example.com/v2'), widget('c')] };
    expect(await failure(convertList(list, V2, webhookConverter(urlWebhook())))).toBe(
      'conversion for stable.example.com/v1, Kind=WidgetList returned invalid converted object at index 2: must have the same name: c != zzz',
    );
  });

  it('invalid labels, and an object without kind', async () => {
    handler = spoiled((a) => {
      (a.convertedObjects[0]!['metadata'] as JsonObject)['labels'] = { 'bad key': 'v' };
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `conversion for ${GVK} returned invalid metadata in object at index 1: metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    handler = spoiled((a) => {
      a.convertedObjects = [{ apiVersion: 'stable.example.com/v2' }];
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `conversion for ${GVK} failed: Object 'Kind' is missing in '{"apiVersion":"stable.example.com/v2"}'`,
    );
  });

  it('a failed result: its message, else the status', async () => {
    handler = spoiled((a) => {
      a.result = { status: 'Failure', message: 'cannot convert spec.address' };
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`${prefix}: cannot convert spec.address`);
    handler = spoiled((a) => {
      a.result = {};
    });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`${prefix}: response.result.status was '', not 'Success'`);
  });

  it('no response, or the wrong kind', async () => {
    handler = (_review, _req, res) => reply(res, 200, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`${prefix}: no response provided`);
    handler = (_review, _req, res) => reply(res, 200, { kind: 'ConversionReview', response: {} });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${prefix}: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind=ConversionReview`,
    );
  });

  it('a non-2xx answer', async () => {
    handler = (_review, _req, res) => reply(res, 500, 'boom\n', 'text/plain; charset=utf-8');
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${prefix}: an error on the server ("boom") has prevented the request from succeeding`,
    );
    handler = (_review, _req, res) => reply(res, 400, { error: 'nope' });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`${prefix}: the server rejected our request for an unknown reason`);
    handler = (_review, _req, res) => reply(res, 404, '404 page not found', 'text/plain');
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`${prefix}: the server could not find the requested resource`);
    handler = (_review, _req, res) => reply(res, 403, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'forbidden by the webhook', code: 403 });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(`${prefix}: forbidden by the webhook`);
  });

  it('garbage JSON, text, or nothing', async () => {
    handler = (_review, _req, res) => reply(res, 200, '{garbage');
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${prefix}: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of object key string`,
    );
    handler = (_review, _req, res) => reply(res, 200, '{"kind":"ConversionReview",');
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${prefix}: couldn't get version/kind; json parse error: unexpected end of JSON input`,
    );
    handler = (_review, _req, res) => reply(res, 200, 'all good', 'text/plain');
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${prefix}: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
    handler = (_review, _req, res) => reply(res, 200, '');
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${prefix}: 0-length response with status code: 200 and content type: application/json`,
    );
    handler = (_review, _req, res) => reply(res, 200, { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: 'yes' });
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook())))).toBe(
      `${prefix}: json: cannot unmarshal string into Go struct field ConversionReview.response of type v1.ConversionResponse`,
    );
  });
});

describe('webhook conversion: transport failures', () => {
  it('a timeout', async () => {
    const pending: ServerResponse[] = [];
    handler = (_review, _req, res) => void pending.push(res);
    const message = await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook(), { timeoutMs: 300 })));
    expect(message).toBe(`conversion for ${GVK} failed: conversion webhook for /, Kind= failed: Post "https://127.0.0.1:${port}/convert?timeout=300ms": context deadline exceeded`);
    expect(seen[0]!.url).toBe('/convert?timeout=300ms');
    for (const res of pending) res.destroy();
  });

  it('a certificate from an untrusted CA', async () => {
    expect(await failure(convertObject(widget('w1'), V2, webhookConverter(urlWebhook(['v1'], otherCa.certPem))))).toBe(
      `conversion for ${GVK} failed: conversion webhook for /, Kind= failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
    expect(seen).toHaveLength(0);
  });

  it('a certificate for another name', async () => {
    const conv = webhookConverter(
      { clientConfig: { service: { namespace: 'webhooks', name: 'other' }, caBundle: b64(ca.certPem) }, conversionReviewVersions: ['v1'] },
      { resolveService: () => ({ host: '127.0.0.1', port }) },
    );
    expect(await failure(convertObject(widget('w1'), V2, conv))).toBe(
      `conversion for ${GVK} failed: conversion webhook for /, Kind= failed: Post "https://other.webhooks.svc:443/?timeout=30s": tls: failed to verify certificate: x509: certificate is valid for converter.webhooks.svc, localhost, not other.webhooks.svc`,
    );
  });

  it('a webhook that is down', async () => {
    const down = createServer({});
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const downPort = (down.address() as AddressInfo).port;
    await new Promise<void>((resolve) => down.close(() => resolve()));
    const conv = webhookConverter({ clientConfig: { url: `https://127.0.0.1:${downPort}/convert`, caBundle: b64(ca.certPem) }, conversionReviewVersions: ['v1'] });
    const message = await failure(convertObject(widget('w1'), V2, conv));
    expect(message).toBe(
      `conversion for ${GVK} failed: conversion webhook for /, Kind= failed: Post "https://127.0.0.1:${downPort}/convert?timeout=30s": dial tcp 127.0.0.1:${downPort}: connect: connection refused`,
    );
    // The failure concerns that resource only: its Status is a 500 with Kubernetes' text and no reason.
    const status = conversionStatus(new ConversionError(message));
    expect([status.code, status.reason, status.message]).toEqual([500, '', message]);
  });
});

describe('versions and None', () => {
  it('refuses versions outside the definition', async () => {
    const opts = { group: 'stable.example.com', versions: ['v1', 'v2'] };
    expect(await failure(convertObject(widget('w1'), { group: 'stable.example.com', version: 'v3' }, noneConverter, opts))).toBe(
      'request to convert CR to an invalid group/version: stable.example.com/v3',
    );
    expect(await failure(convertObject(widget('w1', 'other.example.com/v1'), V2, noneConverter, opts))).toBe(
      'request to convert CR from an invalid group/version: other.example.com/v1',
    );
    const list = { apiVersion: 'stable.example.com/v1', kind: 'WidgetList', items: [widget('a'), widget('b', 'stable.example.com/v9')] };
    expect(await failure(convertList(list, V2, noneConverter, opts))).toBe(
      'request to convert CR list failed, list index 1 has invalid group/version: stable.example.com/v9',
    );
  });

  it('None changes only apiVersion, of objects and lists, without touching the input', async () => {
    const original = widget('w1');
    const snapshot = structuredClone(original);
    const out = await convertObject(original, V2, noneConverter);
    expect(out).toEqual({ ...snapshot, apiVersion: 'stable.example.com/v2' });
    expect(original).toEqual(snapshot);
    const same = await convertObject(original, V1, noneConverter);
    expect(same).toBe(original);
    const list = await convertList({ apiVersion: 'stable.example.com/v2', kind: 'WidgetList', items: [widget('a'), widget('b', 'stable.example.com/v2')] }, V1, noneConverter);
    expect(list.apiVersion).toBe('stable.example.com/v1');
    expect(list.items.map((i) => i['apiVersion'])).toEqual(['stable.example.com/v1', 'stable.example.com/v1']);
    expect(list.items[1]!['spec']).toEqual({ address: 'example.org:8080', replicas: 2 });
  });

  it('a strategy that mutates what it is given does not change the input', async () => {
    const mutating: CrConverter = {
      convert: async (request, target) =>
        request.objects.map((o) => {
          (o['metadata'] as JsonObject)['labels'] = { changed: 'yes' };
          return { ...o, apiVersion: `${target.group}/${target.version}` };
        }),
    };
    const original = widget('w1');
    const out = await convertObject(original, V2, mutating);
    expect((out['metadata'] as JsonObject)['labels']).toEqual({ changed: 'yes' });
    expect((original['metadata'] as JsonObject)['labels']).toEqual({ app: 'w' });
  });

  it("picks the definition's strategy", async () => {
    expect(converterFor('widgets.stable.example.com', undefined)).toBe(noneConverter);
    expect(converterFor('widgets.stable.example.com', { strategy: 'None' })).toBe(noneConverter);
    const conv = converterFor('widgets.stable.example.com', { strategy: 'Webhook', webhook: urlWebhook() });
    expect((await convertObject(widget('w1'), V2, conv))['spec']).toEqual({ address: 'example.org:8080', replicas: 2 });
    expect(seen).toHaveLength(1);
    expect(() => converterFor('widgets.stable.example.com', { strategy: 'Magic' })).toThrow('unknown conversion strategy "Magic" for CRD widgets.stable.example.com');
  });
});
