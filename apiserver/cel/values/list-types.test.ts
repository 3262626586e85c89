/**
 * Kubernetes list types decided by the left operand (list-types.ts): set union, map-list merge and their
 * equality, the canonical keys that make them linear, and large inputs.
 */
import { performance } from 'node:perf_hooks';
import { EntryMap } from './entry-map.js';
import { celEquals } from './equality.js';
import { canonicalKey, concatLists, listEquals } from './list-types.js';
import { CelType, CelUint, Duration, listTypeOf, tagList, Timestamp, type CelList, type CelValue } from './value.js';

const set = (...items: CelValue[]): CelList => tagList(items, { type: 'set' });
const item = (name: string, port: bigint): CelValue => EntryMap.of([['name', name], ['port', port]]);
const mapList = (...items: CelValue[]): CelList => tagList(items, { type: 'map', keys: ['name'] });
const ports = (l: CelList): string[] => l.map((x) => `${String((x as EntryMap).get('name'))}:${String((x as EntryMap).get('port'))}`);

describe('canonicalKey', () => {
  test('equal exactly when CEL equality holds, for scalars', () => {
    expect(canonicalKey(1n)).toBe(canonicalKey(1.0));
    expect(canonicalKey(1n)).toBe(canonicalKey(new CelUint(1n)));
    expect(canonicalKey(-0)).toBe(canonicalKey(0n));
    expect(canonicalKey(1.5)).not.toBe(canonicalKey(1n));
    expect(canonicalKey('1')).not.toBe(canonicalKey(1n));
    expect(canonicalKey(true)).not.toBe(canonicalKey('T'));
    expect(canonicalKey(null)).not.toBe(canonicalKey('N'));
    expect(canonicalKey(new Uint8Array([1, 2]))).toBe(canonicalKey(new Uint8Array([1, 2])));
    expect(canonicalKey(new Timestamp(1n, 2))).not.toBe(canonicalKey(new Duration(1n, 2)));
    expect(canonicalKey(new CelType('int'))).toBe(canonicalKey(new CelType('int')));
  });

  test('none for NaN and aggregates (compared by scanning)', () => {
    expect(canonicalKey(Number.NaN)).toBeUndefined();
    expect(canonicalKey([1n])).toBeUndefined();
  });
});

describe('concatenation by the left operand', () => {
  test('a set on the left: union in the left order, new right items once', () => {
    const out = concatLists(set('c', 'b', 'a'), ['a', 'd', 'd']);
    expect([...out]).toEqual(['c', 'b', 'a', 'd']);
    expect(listTypeOf(out).type).toBe('set');
  });

  test('an atomic or literal list on the left: plain concatenation, an atomic result', () => {
    const out = concatLists(['d', 'a'], set('a', 'b'));
    expect([...out]).toEqual(['d', 'a', 'a', 'b']);
    expect(listTypeOf(out).type).toBe('atomic');
  });

  test('a map list on the left: right items replace equal keys in place, others are appended', () => {
    const out = concatLists(mapList(item('http', 80n), item('https', 443n)), [item('https', 8443n), item('metrics', 9090n)]);
    expect(ports(out)).toEqual(['http:80', 'https:8443', 'metrics:9090']);
    expect(listTypeOf(out)).toEqual({ type: 'map', keys: ['name'] });
  });

  test('heterogeneous numeric keys match (1 and 1.0 are one key)', () => {
    expect([...concatLists(set(1n, 2n), [1.0, 3n])]).toEqual([1n, 2n, 3n]);
  });

  test('items without a canonical key are compared by CEL equality', () => {
    expect(concatLists(set([1n], [2n]), [[1.0], [3n]]).length).toBe(3);
    // NaN equals nothing, itself included: every NaN is new.
    expect(concatLists(set(Number.NaN), [Number.NaN]).length).toBe(2);
  });
});

describe('large inputs are linear (hashing by canonical key)', () => {
  // A quadratic union of 50,000 + 50,000 items is 2.5e9 comparisons, far beyond the timeout below.
  const N = 50_000;
  const left = set(...Array.from({ length: N }, (_, i) => `k${i}`));
  const right = Array.from({ length: N }, (_, i) => `k${i + N / 2}`);

  test(
    `set union, map merge and unordered equality of ${N} items`,
    () => {
      const t0 = performance.now();
      const union = concatLists(left, right);
      expect(union.length).toBe(N + N / 2);
      expect(listEquals(left, [...left].reverse())).toBe(true);
      const ml = mapList(...Array.from({ length: N }, (_, i) => item(`p${i}`, BigInt(i))));
      const merged = concatLists(
        ml,
        Array.from({ length: N }, (_, i) => item(`p${i + N / 2}`, 0n)),
      );
      expect(merged.length).toBe(N + N / 2);
      expect(celEquals((merged[N - 1] as EntryMap).get('port')!, 0n)).toBe(true);
      expect(listEquals(ml, [...ml].reverse())).toBe(true);
      console.log(`list types: union, merge and equality of ${N} items in ${(performance.now() - t0).toFixed(0)} ms`);
    },
    20_000,
  );
});
