import type { KubeObject } from '../../api/object.js';
import { configMaps } from '../../registry/kinds/core/configmap.js';
import type { CachedObject } from '../../../storage/cache/types.js';
import { errorEvent, eventEncoder, type EventEncoderOptions } from './event-encoder.js';
import { expired } from '../../errors/constructors.js';
import { cachedObject, storedValue } from '../../../storage/cache/cache-entry.js';
import { decodeObject, encodeObject } from '../../registry/generic/object-codec.js';

const cached = (name: string, revision: number): CachedObject<KubeObject> => ({
  key: `/registry/configmaps/ns/${name}`,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: String(revision) }, data: { a: 'b' } },
  revision,
  memo: new Map(),
});
/** The JSON encoders write text. */
const textEncoder = (o: EventEncoderOptions) => eventEncoder(o) as (...a: Parameters<ReturnType<typeof eventEncoder>>) => string;
const json = () => textEncoder({ strategy: configMaps, apiVersion: 'v1' });

describe('watch event encoder', () => {
  it('writes one JSON line per event, the object encoded once for every watcher', () => {
    const o = cached('x', 7);
    const first = json()({ type: 'ADDED', revision: 7, object: o });
    expect(first).toBe(`{"type":"ADDED","object":${JSON.stringify(o.object)}}\n`);
    // A second watcher's encoder reuses the memoized text: it does not serialize the object again.
    o.memo.set('json', '{"memoized":true}');
    expect(json()({ type: 'MODIFIED', revision: 7, object: o })).toBe('{"type":"MODIFIED","object":{"memoized":true}}\n');
  });

  it('a kind served as stored: an undecoded object\'s line is its served bytes, byte for byte, and it stays undecoded', () => {
    const stored = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y', namespace: 'ns', labels: { a: 'é' } }, data: { q: '"}{' } });
    const kv = { key: '/registry/configmaps/ns/y', value: stored, createRevision: 4, modRevision: 8 };
    const want = (type: string): string => `{"type":"${type}","object":${JSON.stringify(decodeObject(kv))}}\n`;
    const c = cachedObject(kv, decodeObject);
    const bytes = eventEncoder({ strategy: configMaps, apiVersion: 'v1', servedAsStored: true });
    const line = bytes({ type: 'ADDED', revision: 8, object: c });
    expect(Buffer.isBuffer(line)).toBe(true);
    expect(line.toString()).toBe(want('ADDED'));
    expect(storedValue(c)).toBeDefined();
    // A second watcher's line: the same bytes, still undecoded.
    expect(bytes({ type: 'ADDED', revision: 8, object: c }).toString()).toBe(want('ADDED'));
    expect(storedValue(c)).toBeDefined();
    // Not served as stored (a view, a custom resource's conversion): the object is decoded and its JSON memoized.
    const decoded = cachedObject(kv, decodeObject);
    expect(json()({ type: 'MODIFIED', revision: 8, object: decoded })).toBe(want('MODIFIED'));
    expect(storedValue(decoded)).toBeUndefined();
    // A decoded object's memoized text serves the bytes path too.
    expect(bytes({ type: 'DELETED', revision: 8, object: decoded })).toBe(want('DELETED'));
  });

  it('bookmarks carry kind, apiVersion and the revision; the initial-events-end one its annotation', () => {
    const enc = json();
    expect(JSON.parse(enc({ type: 'BOOKMARK', revision: 9 }))).toEqual({
      type: 'BOOKMARK',
      object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '9', creationTimestamp: null } },
    });
    expect(JSON.parse(enc({ type: 'BOOKMARK', revision: 9, initialEventsEnd: true })).object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('Table events: column definitions on the first only; PartialObjectMetadata events keep metadata only', () => {
    const table = textEncoder({ strategy: configMaps, apiVersion: 'v1', target: { kind: 'Table', group: 'meta.k8s.io', version: 'v1' } });
    const a = JSON.parse(table({ type: 'ADDED', revision: 1, object: cached('a', 1) })).object;
    const b = JSON.parse(table({ type: 'ADDED', revision: 2, object: cached('b', 2) })).object;
    expect(a.columnDefinitions.length).toBeGreaterThan(0);
    expect(b.columnDefinitions).toEqual([]);
    expect(b.rows[0].cells[0]).toBe('b');
    const pom = textEncoder({ strategy: configMaps, apiVersion: 'v1', target: { kind: 'PartialObjectMetadata', group: 'meta.k8s.io', version: 'v1' } });
    const p = JSON.parse(pom({ type: 'DELETED', revision: 3, object: cached('c', 3) }));
    expect(p).toEqual({ type: 'DELETED', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'c', namespace: 'ns', resourceVersion: '3' } } });
  });

  it('ERROR events carry the Status', () => {
    const line = errorEvent(expired('too old resource version: 1 (5)'));
    expect(JSON.parse(String(line))).toEqual({
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 1 (5)', reason: 'Expired', code: 410 },
    });
  });
});
