/**
 * The string-comparison cost `ceil(0.1 x min(code points))`, around the short-string shortcut: empty,
 * at and past 10 UTF-16 units, and astral characters (two units, one code point) on both sides of it.
 */
import { minSizeCost } from './runtime-costs.js';

const astral = (n: number): string => '😀'.repeat(n);

test.each([
  ['', 'abc', 0],
  ['abc', 'abcdef', 1],
  ['a'.repeat(10), 'b'.repeat(40), 1],
  ['a'.repeat(11), 'b'.repeat(40), 2],
  ['a'.repeat(21), 'b'.repeat(21), 3],
  [astral(10), astral(10), 1], // 20 units, 10 code points
  [astral(11), astral(12), 2], // 22 units, 11 code points
  [astral(5), 'a'.repeat(40), 1],
] as const)('minSizeCost(%j, %j) = %d', (a, b, cost) => {
  expect(minSizeCost(a, b)).toBe(cost);
  expect(minSizeCost(b, a)).toBe(cost);
});
