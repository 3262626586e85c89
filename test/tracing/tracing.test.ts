/**
 * Tracing end to end: servers started with a TracingConfiguration export over OTLP/HTTP to a receiver in
 * this test (otlp-receiver.ts decodes the protobuf against its own description of OTLP). Each case closes
 * its server before looking: spans still queued in the batch processor (5 s delay) must be flushed by
 * close().
 */
import { randomBytes } from 'node:crypto';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type Backend } from '../http/helpers.js';
import { memoryLogger } from '../server/helpers.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

const SERVER = 2;
const INTERNAL = 1;
const ERROR = 2;
const MS = 1_000_000n;

const all = backends();
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await stopBackends(all);
  await receiver.close();
});

/** The spans of one request (its `audit-id`, given as X-Request-Id). */
const spansOf = (requestId: string): ReceivedSpan[] => receiver.spans().filter((s) => s.attributes['audit-id'] === requestId);
const rid = (): string => uniqueName('req');
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

describeBackends(all, (b: Backend) => {
  const storeName = (verb: string): string => `${verb} ${b.name === 'etcd' ? 'etcd3' : 'embedded'}`;

  it('traces every request at a rate of one million per million: the request span and its children', async () => {
    const api = await b.start({ tracing: { url: `${receiver.url}/v1/traces`, samplingRatePerMillion: 1_000_000 } });
    const ns = await createNamespace(api);
    const create = rid();
    const created = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: configMap('traced'),
      headers: { 'X-Request-Id': create, 'User-Agent': 'tracing-test/1.0' },
    });
    expect(created.status).toBe(201);
    const get = rid();
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/traced`, { headers: { 'X-Request-Id': get } })).status).toBe(200);
    const missing = rid();
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/missing`, { headers: { 'X-Request-Id': missing } })).status).toBe(404);
    const version = rid();
    expect((await api.request('GET', '/version', { headers: { 'X-Request-Id': version } })).status).toBe(200);
    // Still queued in the batch processor (5 s, 1,024 spans): close() must flush them.
    expect(spansOf(create)).toEqual([]);
    await api.server.close();

    // The create: a root server span named after kube's route, with otelhttp's and kube's attributes.
    const spans = spansOf(create);
    const root = spans.find((s) => s.kind === SERVER)!;
    expect(root).toBeDefined();
    expect(root.name).toBe('POST /api/v1/namespaces/{:namespace}/configmaps');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes).toMatchObject({
      'http.method': 'POST',
      'http.scheme': 'https',
      'http.target': `/api/v1/namespaces/${ns}/configmaps`,
      'http.status_code': 201,
      'user_agent.original': 'tracing-test/1.0',
      'net.host.name': '127.0.0.1',
      'net.host.port': api.server.port,
      'net.sock.peer.addr': '127.0.0.1',
      'net.protocol.version': '1.1',
    });
    expect(root.statusCode).not.toBe(ERROR);
    expect(root.resource).toMatchObject({ 'service.name': 'apiserver' });
    expect(String(root.resource['service.instance.id'])).toMatch(/^apiserver-[0-9a-f-]{36}$/);

    // Its children: both admission phases, the store write, the response encoding; all in its trace.
    const children = spans.filter((s) => s !== root);
    for (const c of children) {
      expect(c.traceId).toBe(root.traceId);
      expect(c.kind).toBe(INTERNAL);
      // Within the request's span (the SDK anchors each span's clock to Date.now(): 1 ms apart at most).
      expect(c.startNanos >= root.startNanos - MS && c.endNanos <= root.endNanos + MS).toBe(true);
    }
    const byName = (name: string): ReceivedSpan => {
      const found = children.find((s) => s.name === name);
      if (found === undefined) throw new Error(`no span ${name} among ${children.map((s) => s.name).join(', ')}`);
      return found;
    };
    const mutating = byName('Admission mutating');
    expect(mutating.parentSpanId).toBe(root.spanId);
    expect(mutating.attributes).toMatchObject({ operation: 'CREATE', resource: 'configmaps', namespace: ns, name: 'traced', dryRun: false });
    expect(byName('Admission validating').parentSpanId).toBe(root.spanId);
    const write = byName(storeName('Create'));
    expect(write.parentSpanId).toBe(root.spanId);
    expect(write.attributes).toMatchObject({ operation: 'create', resource: 'configmaps' });
    expect(String(write.attributes.key)).toMatch(new RegExp(`/configmaps/${ns}/traced$`));
    const encode = byName('SerializeObject');
    expect(encode.parentSpanId).toBe(root.spanId);
    expect(encode.attributes).toMatchObject({ method: 'POST', url: `/api/v1/namespaces/${ns}/configmaps`, mediaType: 'application/json', protocol: 'HTTP/1.1' });

    // A get of a named object; a 404 is not an error span (only 5xx are), its store read is an answer.
    const getRoot = spansOf(get).find((s) => s.kind === SERVER)!;
    expect(getRoot.name).toBe('GET /api/v1/namespaces/{:namespace}/configmaps/{:name}');
    expect(spansOf(get).some((s) => s.name === storeName('Get') && s.parentSpanId === getRoot.spanId)).toBe(true);
    const missingRoot = spansOf(missing).find((s) => s.kind === SERVER)!;
    expect(missingRoot.attributes['http.status_code']).toBe(404);
    expect(missingRoot.statusCode).not.toBe(ERROR);
    // A request that is no resource request is named after its method.
    expect(spansOf(version).map((s) => s.name)).toEqual(['GET']);
    // Every request is its own trace.
    expect(new Set([create, get, missing, version].map((r) => spansOf(r)[0]!.traceId)).size).toBe(4);
  });

  it('continues an incoming W3C trace (traceparent, tracestate) and honours its sampled flag at rate 0', async () => {
    const api = await b.start({ tracing: { url: `${receiver.url}/v1/traces`, samplingRatePerMillion: 0 } });
    const ns = await createNamespace(api);
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const sampled = rid();
    const res = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: configMap('child'),
      headers: { 'X-Request-Id': sampled, traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'vendor=opaque' },
    });
    expect(res.status).toBe(201);
    // Not traced: no parent at rate 0, a parent that is not sampled, a malformed traceparent.
    const plain = rid();
    const notSampled = rid();
    const malformed = rid();
    await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/child`, { headers: { 'X-Request-Id': plain } });
    await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/child`, {
      headers: { 'X-Request-Id': notSampled, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' },
    });
    await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/child`, { headers: { 'X-Request-Id': malformed, traceparent: '00-zz-01' } });
    await api.server.close();

    const spans = spansOf(sampled);
    const root = spans.find((s) => s.kind === SERVER)!;
    expect(root.traceId).toBe(traceId);
    expect(root.parentSpanId).toBe(parentId);
    expect(root.traceState).toBe('vendor=opaque');
    expect(root.name).toBe('POST /api/v1/namespaces/{:namespace}/configmaps');
    expect(spans.length).toBeGreaterThanOrEqual(4);
    for (const c of spans.filter((s) => s !== root)) {
      expect(c.traceId).toBe(traceId);
      expect(c.parentSpanId).toBe(root.spanId);
    }
    expect(spansOf(plain)).toEqual([]);
    expect(spansOf(notSampled)).toEqual([]);
    expect(spansOf(malformed)).toEqual([]);
    // Nothing else of this server was traced (the namespace create had no parent either).
    expect(receiver.spans().filter((s) => s.traceId === traceId)).toHaveLength(spans.length);
    expect(receiver.exports().every((e) => e.path === '/v1/traces' && e.contentType === 'application/x-protobuf')).toBe(true);
  });
});

describe('export failures', () => {
  const memory = backends().filter((b) => b.name === 'memory');
  afterAll(() => stopBackends(memory));

  it('are logged (once a minute) and do not fail requests', async () => {
    // A port nothing listens on: every export is refused.
    const { logger, lines } = memoryLogger('warn');
    const api = await memory[0]!.start({ tracing: { url: 'http://127.0.0.1:9/v1/traces', samplingRatePerMillion: 1_000_000 } }, { logger });
    expect((await api.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
    await api.server.close();
    const failures = lines().map((l) => JSON.parse(l)).filter((l) => l.msg === 'tracing: span export failed');
    expect(failures).toHaveLength(1);
    expect(failures[0].err).toMatch(/^exporting \d+ span\(s\) failed: /);
  });
});
