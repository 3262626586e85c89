/**
 * The value helpers on their own: CEL equality (heterogeneous numbers, NaN, bytes, deep lists and maps,
 * set/map-tagged lists, optionals, types), ordering across numeric kinds, type names, and EntryMap's
 * numeric key rules.
 */
import { CelEvalError } from '../errors.js';
import { celCompare } from './compare.js';
import { EntryMap } from './entry-map.js';
import { celEquals, listContains } from './equality.js';
import { typeNameOf } from './type-of.js';
import { CelOpaque, CelType, CelUint, Duration, Optional, tagList, Timestamp } from './value.js';

class Version extends CelOpaque {
  readonly typeName = 'test.Version';
  constructor(readonly v: string) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other instanceof Version && other.v === this.v;
  }
}

describe('celEquals', () => {
  test('numbers compare by value across int, uint and double', () => {
    expect(celEquals(1n, 1)).toBe(true);
    expect(celEquals(new CelUint(1n), 1n)).toBe(true);
    expect(celEquals(1.0, new CelUint(1n))).toBe(true);
    expect(celEquals(1n, 1.5)).toBe(false);
    expect(celEquals(Number.NaN, Number.NaN)).toBe(false);
    expect(celEquals('1', 1n)).toBe(false);
  });

  test('aggregates compare deeply, with numeric equality inside', () => {
    expect(celEquals([1n, [2n]], [1, [new CelUint(2n)]])).toBe(true);
    expect(celEquals(EntryMap.of([['a', 1n]]), EntryMap.of([['a', 1.0]]))).toBe(true);
    expect(celEquals(EntryMap.of([['a', 1n]]), EntryMap.of([['b', 1n]]))).toBe(false);
    expect(celEquals(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(celEquals(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(listContains([1n, 2n], new CelUint(2n))).toBe(true);
  });

  test('set and map lists on the LEFT ignore order; atomic lists on the left do not (Kubernetes values.go)', () => {
    expect(celEquals(tagList([1n, 2n], { type: 'set' }), [2n, 1n])).toBe(true);
    expect(celEquals([1n, 2n], [2n, 1n])).toBe(false);
    // An atomic (or literal) list on the left compares in order, whatever the right operand is.
    expect(celEquals([2n, 1n], tagList([1n, 2n], { type: 'set' }))).toBe(false);
    expect(celEquals([1n, 2n], tagList([1n, 2n], { type: 'set' }))).toBe(true);
    // A set on the left: same size and every right item is in the set (heterogeneous numbers included).
    expect(celEquals(tagList([1n, 2n], { type: 'set' }), [2.0, new CelUint(1n)])).toBe(true);
    expect(celEquals(tagList([1n, 2n], { type: 'set' }), [2n, 3n])).toBe(false);
    // Kubernetes compares set lists as sets (their items are unique by the schema): malformed data with
    // repeated items is equal when sizes and memberships agree.
    expect(celEquals(tagList([1n, 1n, 2n], { type: 'set' }), tagList([1n, 2n, 2n], { type: 'set' }))).toBe(true);
  });

  test('map lists on the left match items by their keys, then compare the items', () => {
    const item = (name: string, port: bigint) => EntryMap.of([['name', name], ['port', port]]);
    const ml = (...items: ReturnType<typeof item>[]) => tagList(items, { type: 'map', keys: ['name'] });
    expect(celEquals(ml(item('a', 1n), item('b', 2n)), [item('b', 2n), item('a', 1n)])).toBe(true);
    expect(celEquals(ml(item('a', 1n), item('b', 2n)), [item('b', 2n), item('a', 9n)])).toBe(false);
    expect(celEquals(ml(item('a', 1n), item('b', 2n)), [item('b', 2n), item('c', 1n)])).toBe(false);
    expect(celEquals([item('a', 1n), item('b', 2n)], ml(item('b', 2n), item('a', 1n)))).toBe(false);
  });

  test('times, types, optionals and opaque values', () => {
    expect(celEquals(new Timestamp(1n, 5), new Timestamp(1n, 5))).toBe(true);
    expect(celEquals(new Timestamp(1n, 5), new Duration(1n, 5))).toBe(false);
    expect(celEquals(new CelType('int'), new CelType('int'))).toBe(true);
    expect(celEquals(Optional.of(1n), Optional.of(1.0))).toBe(true);
    expect(celEquals(Optional.NONE, Optional.of(1n))).toBe(false);
    expect(celEquals(new Version('1'), new Version('1'))).toBe(true);
    expect(celEquals(new Version('1'), new Version('2'))).toBe(false);
  });
});

describe('celCompare', () => {
  test('numbers order across kinds; NaN is unordered', () => {
    expect(celCompare(1n, 1.5)).toBe(-1);
    expect(celCompare(new CelUint(3n), -1n)).toBe(1);
    expect(celCompare(2.5, new CelUint(2n))).toBe(1);
    expect(celCompare(1n, Number.NaN)).toBeNaN();
  });

  test('strings by code point, bytes lexicographically, times by instant', () => {
    expect(celCompare('\u{FFFF}', '\u{10000}')).toBe(-1); // UTF-16 order would say the opposite
    expect(celCompare(new Uint8Array([1]), new Uint8Array([1, 0]))).toBe(-1);
    expect(celCompare(new Timestamp(1n, 2), new Timestamp(1n, 1))).toBe(1);
    expect(celCompare(false, true)).toBe(-1);
  });

  test('incomparable kinds throw no such overload', () => {
    expect(() => celCompare('a', 1n)).toThrow(CelEvalError);
    expect(() => celCompare([1n], [1n])).toThrow('no such overload');
  });
});

describe('EntryMap', () => {
  test('int, uint and integral double keys find the same entry', () => {
    const m = EntryMap.of([[1n, 'a'], ['1', 'b'], [true, 'c']]);
    expect(m.get(1n)).toBe('a');
    expect(m.get(new CelUint(1n))).toBe('a');
    expect(m.get(1)).toBe('a');
    expect(m.get('1')).toBe('b');
    expect(m.get(true)).toBe('c');
    expect(m.has(1.5)).toBe(false);
    expect([...m.keys()]).toEqual([1n, '1', true]);
  });

  test('repeated keys and unsupported key types are errors', () => {
    expect(() => EntryMap.of([[1n, 'a'], [new CelUint(1n), 'b']])).toThrow('repeated key');
    expect(() => EntryMap.of([[1.5, 'a']])).toThrow('unsupported key type');
    expect(() => EntryMap.of([[null, 'a']])).toThrow(CelEvalError);
  });
});

test('type names', () => {
  expect([1n, new CelUint(1n), 1, 'a', true, null, new Uint8Array(), [], EntryMap.of([]), new Timestamp(0n, 0), new Duration(0n, 0), new CelType('int'), Optional.NONE, new Version('1')].map(typeNameOf)).toEqual([
    'int',
    'uint',
    'double',
    'string',
    'bool',
    'null_type',
    'bytes',
    'list',
    'map',
    'google.protobuf.Timestamp',
    'google.protobuf.Duration',
    'type',
    'optional_type',
    'test.Version',
  ]);
});
