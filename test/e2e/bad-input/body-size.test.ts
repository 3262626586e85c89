/**
 * Issue 18 item 2: a request body over 3 MiB (kube-apiserver's limit) is a 413 Status on every path that
 * reads a body, whether the size is declared (refused by the Content-Length alone, before any body is
 * read) or the body comes chunked without a length (refused while it is read), and nothing is stored.
 */
import { maxRequestBodyBytes } from '../../../apiserver/request/limits.js';
import { sendLargeBody } from './raw-client.js';
import { memoryBackend, snapshot, startWorld, type World } from './fixtures.js';

const b = memoryBackend();
afterAll(() => b.stop());

let w: World;
beforeAll(async () => {
  w = await startWorld(b);
}, 60_000);

const JSON_TYPE = 'application/json';
const paths = (): [string, string, string][] => {
  const core = `/api/v1/namespaces/${w.ns}`;
  return [
    ['POST', `${core}/configmaps`, JSON_TYPE],
    ['POST', `${core}/configmaps`, 'application/yaml'],
    ['POST', `${core}/configmaps`, 'application/vnd.platform.protobuf'],
    ['PUT', `${core}/configmaps/cm1`, JSON_TYPE],
    ['PATCH', `${core}/configmaps/cm1`, 'application/json-patch+json'],
    ['PATCH', `${core}/configmaps/cm1`, 'application/merge-patch+json'],
    ['PATCH', `${core}/configmaps/cm1`, 'application/strategic-merge-patch+json'],
    ['PATCH', `${core}/configmaps/cm1`, 'application/apply-patch+yaml'],
    ['DELETE', `${core}/configmaps/cm1`, JSON_TYPE],
    ['DELETE', `${core}/configmaps`, JSON_TYPE],
    ['DELETE', `${core}/configmaps/cm1`, 'application/vnd.platform.protobuf'],
    ['PUT', `${core}/pods/p1/status`, JSON_TYPE],
    ['PATCH', `${core}/pods/p1/status`, 'application/merge-patch+json'],
    ['POST', `${core}/pods/p1/binding`, JSON_TYPE],
    ['PUT', `${core}/replicationcontrollers/rc1/scale`, JSON_TYPE],
    ['PATCH', `${core}/replicationcontrollers/rc1/scale`, 'application/json-patch+json'],
    ['PATCH', `${core}/replicationcontrollers/rc1/scale`, 'application/apply-patch+yaml'],
    ['POST', `${core}/serviceaccounts/sa1/token`, JSON_TYPE],
    ['POST', '/api/v1/namespaces', JSON_TYPE],
    ['POST', '/apis/authorization.platform.io/v1/selfsubjectaccessreviews', JSON_TYPE],
    ['POST', w.gadgets, JSON_TYPE],
    ['PUT', `${w.gadgets}/g1`, JSON_TYPE],
    ['PATCH', `${w.gadgets}/g1`, 'application/merge-patch+json'],
    ['PATCH', `${w.gadgets}/g1`, 'application/apply-patch+yaml'],
    ['PUT', `${w.gadgets}/g1/status`, JSON_TYPE],
    ['PUT', `${w.gadgets}/g1/scale`, JSON_TYPE],
    ['PATCH', `${w.gadgets}/g1/scale`, 'application/merge-patch+json'],
  ];
};

const tooLarge = { kind: 'Status', status: 'Failure', reason: 'RequestEntityTooLarge', code: 413, message: `Request entity too large: limit is ${maxRequestBodyBytes}` };

describe.each([
  ['declared by Content-Length', true],
  ['chunked, no Content-Length', false],
])('a body one byte over 3 MiB, %s', (_what, declared) => {
  it('is a 413 Status on every body path, and nothing changes', async () => {
    const before = await snapshot(w);
    const answers: string[] = [];
    for (const [method, path, type] of paths()) {
      const query = type.startsWith('application/apply-patch') ? '?fieldManager=t' : '';
      const res = await sendLargeBody(w.api, method, path + query, type, maxRequestBodyBytes + 1, { declared, prefix: '{"a":"' });
      answers.push(`${method} ${path.replace(w.ns, 'NS').replace(w.group, 'G')} ${type}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      if (process.env.BAD_INPUT_DEBUG) console.log(answers.at(-1));
      expect([`${method} ${path} ${type}`, res.body]).toEqual([`${method} ${path} ${type}`, expect.objectContaining(tooLarge)]);
    }
    expect(answers.every((a) => a.includes(': 413 '))).toBe(true);
    expect(await snapshot(w)).toEqual(before);
  }, 120_000);
});

it('a body of exactly 3 MiB is read and decoded (here: 400, not JSON), not refused for its size', async () => {
  const res = await sendLargeBody(w.api, 'POST', `/api/v1/namespaces/${w.ns}/configmaps`, JSON_TYPE, maxRequestBodyBytes, { declared: false, prefix: '{"a":"' });
  expect([res.status, res.body.reason]).toEqual([400, 'BadRequest']);
});

it('a 1 MiB ConfigMap is stored', async () => {
  const res = await w.api.request('POST', `/api/v1/namespaces/${w.ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(1 << 20) } } });
  expect(res.status).toBe(201);
});
