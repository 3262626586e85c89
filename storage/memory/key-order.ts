/**
 * Key order. etcd orders keys by their UTF-8 bytes, which is Unicode code point order. JavaScript's `<`
 * compares UTF-16 code units, which agrees with code point order except between a surrogate pair
 * (U+10000 and up) and U+E000..U+FFFF. So the native comparison is used until a key with a code unit at or
 * above U+D800 shows up; from then on the (slower) code point comparison is used.
 */

const HIGH_UNIT = /[\uD800-\uFFFF]/;
const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export type KeyCompare = (a: string, b: string) => number;

/** True when `s` has a code unit for which native and code point order can disagree. */
export function hasHighUnits(s: string): boolean {
  return HIGH_UNIT.test(s);
}

/** True when `s` is not valid Unicode (a lone surrogate), so it would not survive a UTF-8 round trip. */
export function hasLoneSurrogate(s: string): boolean {
  return SURROGATE.test(s) && LONE_SURROGATE.test(s);
}

export const compareNative: KeyCompare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

export const compareCodePoints: KeyCompare = (a, b) => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      const xs = x <= 0xdfff;
      const ys = y <= 0xdfff;
      // A surrogate stands for a code point above U+FFFF, so it sorts after U+E000..U+FFFF.
      if (xs !== ys) return xs ? 1 : -1;
    }
    return x - y;
  }
  return a.length - b.length;
};

/** The first index in sorted `keys` whose key is >= `target`. */
export function lowerBound(keys: readonly string[], target: string, cmp: KeyCompare): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(keys[mid]!, target) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
