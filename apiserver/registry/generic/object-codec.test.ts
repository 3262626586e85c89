import type { KubeObject } from '../../api/object.js';
import { decodeObject, encodeObject, servedJson } from './object-codec.js';

const served = (stored: Uint8Array, rv: number): string => JSON.stringify(decodeObject({ key: 'k', value: stored, createRevision: 1, modRevision: rv }));
const spliced = (stored: Uint8Array | string, rv: number): string | undefined =>
  servedJson(typeof stored === 'string' ? Buffer.from(stored) : stored, rv)?.toString();

describe('servedJson: the served JSON of stored bytes, spliced without decoding', () => {
  const objects: Record<string, KubeObject> = {
    'metadata first': { metadata: { name: 'a', namespace: 'ns' }, apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } } as KubeObject,
    'metadata in the middle, empty': { apiVersion: 'v1', metadata: {}, kind: 'ConfigMap' } as KubeObject,
    'metadata last': { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' }, metadata: { name: 'b' } } as KubeObject,
    'nested metadata before and inside': {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', args: ['{', ']', '"metadata":{'] }] } } },
      metadata: { name: 'd', annotations: { note: 'a}b{c]d[e "quoted" \\ back\\slash\\', 'x\u0000y': '\u2028 ü 字 😀' } },
    } as KubeObject,
    'a resourceVersion read from the client is not stored': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e', resourceVersion: '12', selfLink: '/x' } } as KubeObject,
    'integer-like keys': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f', labels: { '10': 'a', '2': 'b', z: 'c' } }, data: { '3': 'x', '1': 'y' } } as KubeObject,
  };
  for (const [name, object] of Object.entries(objects)) {
    test(`${name}: byte for byte what decoding and stringifying gives`, () => {
      const stored = encodeObject(object);
      expect(spliced(stored, 4711)).toBe(served(stored, 4711));
    });
  }

  test('bytes it cannot splice safely are left to decoding (undefined)', () => {
    for (const stored of [
      '{"apiVersion":"v1","kind":"ConfigMap"}', // no metadata (decoding adds one)
      '{"metadata":null,"kind":"ConfigMap"}',
      '{"metadata":["a"],"kind":"ConfigMap"}',
      '{"metadata":{"name":"a","resourceVersion":"3"}}', // another writer stored a resourceVersion
      '{"metadata":{"labels":{"resourceVersion":"x"}}}', // the name anywhere in metadata: decoded, to stay simple
      '{"metadata":{"name":"a"},"metadata":{"name":"b"}}', // JSON.parse keeps the last
      '{ "metadata": { "name": "a" } }', // another writer's spacing
      '{"metadata":{"name":"a"}} ',
      '{"metadata":{"name":"a"}}{}',
      '{"metadata":{"name":"a\\"}}', // an unterminated string
      'k8s:enc:aescbc:v1:key1:\u0000\u0001binary',
      '[{"metadata":{}}]',
      '',
    ]) {
      expect(spliced(stored, 5)).toBeUndefined();
    }
  });

  test('"resourceVersion" in a value escaped inside metadata is not a member: spliced', () => {
    const stored = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', annotations: { x: '"resourceVersion":"1"' } } } as KubeObject);
    expect(spliced(stored, 9)).toBe(served(stored, 9));
  });
});
