import { CelEvalError } from '../errors.js';
import { CelUint, Duration, Timestamp, type CelValue } from '../values/value.js';
import { listsLibrary } from './lists.js';
import { regexLibrary } from './regex.js';
import { setsLibrary } from './sets.js';
import type { CelLibrary } from './library.js';

function call(lib: CelLibrary, signature: string, ...args: CelValue[]): CelValue {
  const o = lib.overloads.find((x) => x.signature === signature);
  if (!o) throw new Error(`no overload ${signature}`);
  return o.impl(...args);
}
const cost = (lib: CelLibrary, signature: string, ...args: CelValue[]) => lib.overloads.find((x) => x.signature === signature)!.cost!(args);
type Want = CelValue | { error: string };
const isErr = (w: Want): w is { error: string } => w !== null && typeof w === 'object' && !Array.isArray(w) && 'error' in (w as object);

function check(lib: CelLibrary, sig: string, args: CelValue[], want: Want): void {
  if (isErr(want)) expect(() => call(lib, sig, ...args)).toThrow(new CelEvalError(want.error));
  else expect(call(lib, sig, ...args)).toEqual(want);
}

const D = (s: bigint, n = 0) => new Duration(s, n);

describe('lists library', () => {
  // Sources: Kubernetes' lists.go doc examples unless noted.
  const rows: Array<[string, CelValue[], Want]> = [
    ['list<int>.isSorted(): bool', [[1n, 2n, 3n]], true],
    ['list<string>.isSorted(): bool', [['a', 'b', 'b', 'c']], true],
    ['list<double>.isSorted(): bool', [[2.0, 1.0]], false],
    ['list<int>.isSorted(): bool', [[]], true],
    ['list<string>.isSorted(): bool', [['\uffff', '😀']], true], // code point order (UTF-16 order would say false)
    ['list<int>.sum(): int', [[1n, 3n]], 4n],
    ['list<double>.sum(): double', [[1.0, 3.0]], 4.0],
    ['list<int>.sum(): int', [[]], 0n], // emptyIntList.sum()
    ['list<uint>.sum(): uint', [[]], new CelUint(0n)],
    ['list<google.protobuf.Duration>.sum(): google.protobuf.Duration', [[D(60n), D(1n)]], D(61n)], // ['1m','1s'] -> 1m1s
    ['list<int>.sum(): int', [[2n ** 63n - 1n, 1n]], { error: 'integer overflow' }], // int64 overflow (cel-go)
    ['list<uint>.sum(): uint', [[new CelUint(2n ** 64n - 1n), new CelUint(1n)]], { error: 'unsigned integer overflow' }],
    ['list<int>.min(): int', [[1n, 3n]], 1n],
    ['list<int>.max(): int', [[1n, 3n]], 3n],
    ['list<int>.min(): int', [[]], { error: 'min called on empty list' }], // [].min() // error
    ['list<int>.max(): int', [[]], { error: 'max called on empty list' }],
    ['list<bytes>.max(): bytes', [[new Uint8Array([1]), new Uint8Array([1, 0])]], new Uint8Array([1, 0])],
    ['list<google.protobuf.Timestamp>.min(): google.protobuf.Timestamp', [[new Timestamp(5n, 0), new Timestamp(5n, -0 + 1)].reverse()], new Timestamp(5n, 0)],
    ['list<A>.indexOf(A): int', [[1n, 2n, 2n, 3n], 2n], 1n],
    ['list<A>.lastIndexOf(A): int', [['a', 'b', 'b', 'c'], 'b'], 2n],
    ['list<A>.indexOf(A): int', [[1.0], 1.1], -1n],
    ['list<A>.indexOf(A): int', [[], 'string'], -1n],
    ['list<A>.indexOf(A): int', [[1.0, 2n], 1n], 0n], // heterogeneous numeric equality through dyn (CEL spec)
    ['list<A>.indexOf(A): int', [[[1n], [2n]], [2n]], 1n], // deep equality
  ];
  it.each(rows)('%s %p', (sig, args, want) => check(listsLibrary, sig, args, want));

  it('costs one traversal of the list (k8s cost.go)', () => {
    expect(cost(listsLibrary, 'list<int>.sum(): int', [1n, 2n, 3n])).toBe(3);
    expect(cost(listsLibrary, 'list<string>.isSorted(): bool', ['a'.repeat(25), 'b'.repeat(5)])).toBe(2); // floor(2.5) + floor(0.5)
  });
});

describe('regex library', () => {
  // Sources: Kubernetes' regex.go doc examples; RE2 refusals as Go's regexp reports them.
  const rows: Array<[string, CelValue[], Want]> = [
    ['string.find(string): string', ['abc 123', '[0-9]+'], '123'],
    ['string.find(string): string', ['abc 123', 'xyz'], ''],
    ['string.findAll(string): list<string>', ['123 abc 456', '[0-9]+'], ['123', '456']],
    ['string.findAll(string, int): list<string>', ['123 abc 456', '[0-9]+', 1n], ['123']],
    ['string.findAll(string): list<string>', ['123 abc 456', 'xyz'], []],
    ['string.find(string): string', ['abc', 'a(?=b)'], { error: 'Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`' }],
    ['string.findAll(string): list<string>', ['aa', '(a)\\1'], { error: 'Illegal regex: error parsing regexp: invalid escape sequence: `\\1`' }],
    ['string.find(string): string', ['😀x', '.x'], '😀x'], // a code point, not a UTF-16 unit
  ];
  it.each(rows)('%s %p', (sig, args, want) => check(regexLibrary, sig, args, want));

  it('costs ceil((1 + size) * 0.1) * ceil(size(regex) * 0.25)', () => {
    expect(cost(regexLibrary, 'string.find(string): string', 'a'.repeat(19), '[0-9]+')).toBe(2 * 2);
  });
});

describe('sets library', () => {
  // Sources: cel-go ext/sets.go doc examples.
  const rows: Array<[string, CelValue[], Want]> = [
    ['sets.contains(list<T>, list<T>): bool', [[], []], true],
    ['sets.contains(list<T>, list<T>): bool', [[1n, 2n, 3n, 4n], [2n, 3n]], true],
    ['sets.contains(list<T>, list<T>): bool', [[1n, 2n, 3n], [3n, 4n]], false],
    ['sets.contains(list<T>, list<T>): bool', [[1n], [1.0, 1n]], true], // numbers compare across types
    ['sets.equivalent(list<T>, list<T>): bool', [[1n, 2n, 3n], [3n, 2n, 1n, 1n]], true],
    ['sets.equivalent(list<T>, list<T>): bool', [[1n, 2n], [2n, 2n, 2n]], false],
    ['sets.intersects(list<T>, list<T>): bool', [[1n], []], false],
    ['sets.intersects(list<T>, list<T>): bool', [[1n, 2n], [2n, 3n]], true],
  ];
  it.each(rows)('%s %p', (sig, args, want) => check(setsLibrary, sig, args, want));

  it('costs 1 + m*n (twice for equivalent)', () => {
    expect(cost(setsLibrary, 'sets.contains(list<T>, list<T>): bool', [1n, 2n], [1n, 2n, 3n])).toBe(7);
    expect(cost(setsLibrary, 'sets.equivalent(list<T>, list<T>): bool', [1n, 2n], [1n, 2n, 3n])).toBe(13);
  });
});
