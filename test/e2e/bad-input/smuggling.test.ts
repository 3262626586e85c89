/**
 * Issue 18 acceptance, request smuggling basics: over TLS, raw bytes a front proxy and the server could
 * frame differently are refused by the server's HTTP parser (llhttp in strict mode) with a 400 and the
 * connection closed, so no second request hides in the first one's body: duplicate or conflicting
 * Content-Length, Transfer-Encoding together with Content-Length, a Transfer-Encoding that does not end in
 * chunked, obfuscated Transfer-Encoding, and malformed chunked framing. The smuggled request (a
 * ConfigMap create) never runs.
 */
import { memoryBackend } from './fixtures.js';
import { rawExchange, type Target } from './raw-client.js';
import { createNamespace, type TestApi } from '../../http/helpers.js';

const b = memoryBackend();
afterAll(() => b.stop());

let api: TestApi;
let ns: string;
beforeAll(async () => {
  api = await b.start();
  ns = await createNamespace(api);
});

const target = (): Target => api;

/** A complete second request, which a server that framed the first body wrongly would run. */
const smuggled = (name: string) => {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  return `POST /api/v1/namespaces/${ns}/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};
const head = (headers: string) => `POST /api/v1/namespaces/${ns}/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.token}\r\nContent-Type: application/json\r\n${headers}\r\n`;

const cases: [string, (name: string) => string][] = [
  ['two different Content-Lengths', (n) => head('Content-Length: 2\r\nContent-Length: 100\r\n') + '{}' + smuggled(n)],
  ['two equal Content-Lengths', (n) => head('Content-Length: 2\r\nContent-Length: 2\r\n') + '{}' + smuggled(n)],
  ['a Content-Length list', (n) => head('Content-Length: 2, 2\r\n') + '{}' + smuggled(n)],
  ['a signed Content-Length', (n) => head('Content-Length: +2\r\n') + '{}' + smuggled(n)],
  ['Transfer-Encoding: chunked with a Content-Length (TE.CL)', (n) => head('Transfer-Encoding: chunked\r\nContent-Length: 4\r\n') + '2\r\n{}\r\n0\r\n\r\n' + smuggled(n)],
  ['Content-Length before Transfer-Encoding (CL.TE)', (n) => head('Content-Length: 4\r\nTransfer-Encoding: chunked\r\n') + '0\r\n\r\n' + smuggled(n)],
  ['Transfer-Encoding not ending in chunked', (n) => head('Transfer-Encoding: chunked, identity\r\n') + '2\r\n{}\r\n0\r\n\r\n' + smuggled(n)],
  ['an unknown Transfer-Encoding', (n) => head('Transfer-Encoding: xchunked\r\n') + '2\r\n{}\r\n0\r\n\r\n' + smuggled(n)],
  ['obfuscated Transfer-Encoding (space before the colon)', (n) => head('Transfer-Encoding : chunked\r\nContent-Length: 4\r\n') + '0\r\n\r\n' + smuggled(n)],
  ['two Transfer-Encoding headers with Content-Length', (n) => head('Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\nContent-Length: 4\r\n') + '0\r\n\r\n' + smuggled(n)],
  ['a chunk size that is not hex', (n) => head('Transfer-Encoding: chunked\r\n') + 'zz\r\n{}\r\n0\r\n\r\n' + smuggled(n)],
  ['a chunk longer than its size', (n) => head('Transfer-Encoding: chunked\r\n') + '1\r\n{}\r\n0\r\n\r\n' + smuggled(n)],
  ['a chunk size overflowing 64 bits', (n) => head('Transfer-Encoding: chunked\r\n') + 'fffffffffffffffff2\r\n{}\r\n0\r\n\r\n' + smuggled(n)],
  ['a bare LF in the chunk framing', (n) => head('Transfer-Encoding: chunked\r\n') + '2\n{}\n0\n\n' + smuggled(n)],
  ['a header line folded onto the next (obs-fold)', (n) => head('X-A: 1\r\n Transfer-Encoding: chunked\r\nContent-Length: 2\r\n') + '{}' + smuggled(n)],
  ['a space inside a header name', (n) => head('Content Length: 2\r\n') + '{}' + smuggled(n)],
];

describe.each(cases)('%s', (_what, make) => {
  it('is refused with 400 and the connection closed; the smuggled request never runs', async () => {
    const name = `smuggled-${cases.findIndex((c) => c[1] === make)}`;
    const res = await rawExchange(target(), make(name));
    expect(res.status).toBe(400);
    // Exactly one response: nothing after the first request ran.
    expect(res.text.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`)).status).toBe(404);
  });
});

it('a well-framed chunked request and a pipelined second one are both served (the parser is not just refusing everything)', async () => {
  const res = await rawExchange(target(), head('Transfer-Encoding: chunked\r\n') + `${(2).toString(16)}\r\n{}\r\n0\r\n\r\n` + smuggled('pipelined').replace('Host: x\r\n', 'Host: x\r\nConnection: close\r\n'));
  const statuses = (res.text.match(/HTTP\/1\.1 (\d{3})/g) ?? []).map((s) => s.slice(9));
  expect(statuses).toEqual(['422', '201']); // `{}` is a ConfigMap without a name (422); the second is created
  expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/pipelined`)).status).toBe(200);
});
