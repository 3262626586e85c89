/**
 * cel-go's strings extension as Kubernetes configures it (`ext.Strings`): charAt, indexOf, lastIndexOf,
 * lowerAscii, upperAscii, replace, split, substring, trim and join. Available in every Kubernetes version
 * (version 0 before 1.29, version 2 from 1.29: version 2 adds `format` and `strings.quote`, see
 * string-format.ts).
 *
 * Indices and sizes count code points, never UTF-16 units: `'ta©o©αT'.indexOf('©', 3) == 4`. Errors carry
 * cel-go's messages (`index out of range: 30`, `invalid substring range. start: 4, end: 3`).
 *
 * cel-js (the checker) already declares lowerAscii, upperAscii, trim, indexOf, lastIndexOf, substring,
 * split and join with these exact signatures, and refuses a second declaration: those overloads are
 * marked `checkerBuiltin` (the environment registers only the implementation; see library.ts). Its own
 * runtime versions are not used (cel-js' lowerAscii is not ASCII-only, for one).
 *
 * Costs (k8s cost.go `CallCost`): lowerAscii/upperAscii/substring/trim `ceil(size * 0.1)`; replace/split
 * `ceil(size * 0.2)`; join `ceil(size(result) * 0.2)`; indexOf/lastIndexOf `floor(bytes * 0.1)` (its
 * traversal cost of the receiver); charAt the default 1.
 */
import { CelEvalError } from '../errors.js';
import type { CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import {
  STRING_TRAVERSAL_COST_FACTOR,
  codePointLength,
  codePoints,
  int,
  list,
  str,
  toIndex,
  traversal,
  traversalCost,
} from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

const outOfRange = (i: bigint): CelEvalError => new CelEvalError(`index out of range: ${i}`);

/** cel-go: `''.charAt(0) == ''`, the index may equal the size (the empty string), not exceed it. */
function charAt(s: string, i: bigint): string {
  const cps = codePoints(s);
  if (i < 0n || i > BigInt(cps.length)) throw outOfRange(i);
  return i === BigInt(cps.length) ? '' : cps[Number(i)]!;
}

/** The code-point index of the first `sub` at or after code point `offset`, or -1. */
function indexOf(s: string, sub: string, offset: bigint): bigint {
  const cps = codePoints(s);
  if (offset < 0n || offset > BigInt(cps.length)) throw outOfRange(offset);
  if (sub === '') return offset;
  const subCps = codePoints(sub);
  for (let i = Number(offset); i + subCps.length <= cps.length; i++) {
    if (matchesAt(cps, subCps, i)) return BigInt(i);
  }
  return -1n;
}

/** The code-point index of the last `sub` starting at or before code point `offset`, or -1. */
function lastIndexOf(s: string, sub: string, offset: bigint | undefined): bigint {
  const cps = codePoints(s);
  const off = offset ?? BigInt(cps.length);
  if (off < 0n || off > BigInt(cps.length)) throw outOfRange(off);
  if (sub === '') return off;
  const subCps = codePoints(sub);
  for (let i = Math.min(Number(off), cps.length - subCps.length); i >= 0; i--) {
    if (matchesAt(cps, subCps, i)) return BigInt(i);
  }
  return -1n;
}

function matchesAt(cps: string[], sub: string[], at: number): boolean {
  for (let j = 0; j < sub.length; j++) if (cps[at + j] !== sub[j]) return false;
  return true;
}

/** ASCII-only case mapping: non-ASCII letters (`Æ`, `α`, `À`) are left unchanged, as Go's loop over bytes A-Z. */
export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function upperAscii(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** Go's `strings.Replace(s, old, new, n)`: n < 0 all; an empty `old` matches before every code point and at the end. */
export function goReplace(s: string, old: string, repl: string, n: bigint): string {
  if (n === 0n || old === repl) return s;
  let remaining = n < 0n ? Infinity : Number(n > 1_000_000_000n ? 1_000_000_000n : n);
  if (old === '') {
    const cps = codePoints(s);
    let out = '';
    for (let i = 0; i <= cps.length; i++) {
      if (remaining > 0) {
        out += repl;
        remaining--;
      }
      if (i < cps.length) out += cps[i];
    }
    return out;
  }
  let out = '';
  let pos = 0;
  while (remaining > 0) {
    const at = s.indexOf(old, pos);
    if (at < 0) break;
    out += s.slice(pos, at) + repl;
    pos = at + old.length;
    remaining--;
  }
  return out + s.slice(pos);
}

/** Go's `strings.SplitN(s, sep, n)`: n == 0 gives [], n < 0 all parts, an empty separator splits code points. */
export function goSplitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const limit = n < 0n ? Infinity : Number(n > 1_000_000_000n ? 1_000_000_000n : n);
  if (sep === '') {
    const cps = codePoints(s);
    if (cps.length <= limit) return cps;
    return [...cps.slice(0, limit - 1), cps.slice(limit - 1).join('')];
  }
  const out: string[] = [];
  let pos = 0;
  while (out.length < limit - 1) {
    const at = s.indexOf(sep, pos);
    if (at < 0) break;
    out.push(s.slice(pos, at));
    pos = at + sep.length;
  }
  out.push(s.slice(pos));
  return out;
}

function substring(s: string, start: bigint, end: bigint | undefined): string {
  const cps = codePoints(s);
  const len = BigInt(cps.length);
  const e = end ?? len;
  if (start < 0n || start > len) throw outOfRange(start);
  if (e < 0n || e > len) throw outOfRange(e);
  if (start > e) throw new CelEvalError(`invalid substring range. start: ${start}, end: ${e}`);
  return cps.slice(Number(start), Number(e)).join('');
}

/** Go's `unicode.IsSpace`: ASCII whitespace, U+0085, U+00A0 and the Unicode White_Space separators. */
const SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM_RE = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, 'g');

/** Go's `strings.TrimSpace` (not JavaScript's trim: U+FEFF and U+180E are not spaces in Go). */
export function goTrimSpace(s: string): string {
  return s.replace(TRIM_RE, '');
}

function join(items: readonly CelValue[], sep: string): string {
  return items.map((v) => str(v)).join(sep);
}

const sizeCost = (factor: number) => (args: readonly CelValue[]): number => traversal(args[0]!, factor);

const overloads: Overload[] = [
  { signature: 'string.charAt(int): string', impl: (s, i) => charAt(str(s), int(i)) },
  {
    signature: 'string.indexOf(string): int',
    checkerBuiltin: true,
    impl: (s, sub) => indexOf(str(s), str(sub), 0n),
    cost: (args) => traversalCost(args[0]!),
  },
  {
    signature: 'string.indexOf(string, int): int',
    checkerBuiltin: true,
    impl: (s, sub, off) => indexOf(str(s), str(sub), int(off)),
    cost: (args) => traversalCost(args[0]!),
  },
  {
    signature: 'string.lastIndexOf(string): int',
    checkerBuiltin: true,
    impl: (s, sub) => lastIndexOf(str(s), str(sub), undefined),
    cost: (args) => traversalCost(args[0]!),
  },
  {
    signature: 'string.lastIndexOf(string, int): int',
    checkerBuiltin: true,
    impl: (s, sub, off) => lastIndexOf(str(s), str(sub), int(off)),
    cost: (args) => traversalCost(args[0]!),
  },
  { signature: 'string.lowerAscii(): string', checkerBuiltin: true, impl: (s) => lowerAscii(str(s)), cost: sizeCost(STRING_TRAVERSAL_COST_FACTOR) },
  { signature: 'string.upperAscii(): string', checkerBuiltin: true, impl: (s) => upperAscii(str(s)), cost: sizeCost(STRING_TRAVERSAL_COST_FACTOR) },
  {
    signature: 'string.replace(string, string): string',
    impl: (s, o, n) => goReplace(str(s), str(o), str(n), -1n),
    cost: sizeCost(2 * STRING_TRAVERSAL_COST_FACTOR),
  },
  {
    signature: 'string.replace(string, string, int): string',
    impl: (s, o, n, count) => goReplace(str(s), str(o), str(n), int(count)),
    cost: sizeCost(2 * STRING_TRAVERSAL_COST_FACTOR),
  },
  {
    signature: 'string.split(string): list<string>',
    checkerBuiltin: true,
    impl: (s, sep) => goSplitN(str(s), str(sep), -1n),
    cost: sizeCost(2 * STRING_TRAVERSAL_COST_FACTOR),
  },
  {
    signature: 'string.split(string, int): list<string>',
    checkerBuiltin: true,
    impl: (s, sep, n) => goSplitN(str(s), str(sep), int(n)),
    cost: sizeCost(2 * STRING_TRAVERSAL_COST_FACTOR),
  },
  {
    signature: 'string.substring(int): string',
    checkerBuiltin: true,
    impl: (s, start) => substring(str(s), int(start), undefined),
    cost: sizeCost(STRING_TRAVERSAL_COST_FACTOR),
  },
  {
    signature: 'string.substring(int, int): string',
    checkerBuiltin: true,
    impl: (s, start, end) => substring(str(s), int(start), int(end)),
    cost: sizeCost(STRING_TRAVERSAL_COST_FACTOR),
  },
  { signature: 'string.trim(): string', checkerBuiltin: true, impl: (s) => goTrimSpace(str(s)), cost: sizeCost(STRING_TRAVERSAL_COST_FACTOR) },
  {
    signature: 'list<string>.join(): string',
    checkerBuiltin: true,
    impl: (l) => join(list(l), ''),
    cost: joinCost,
  },
  {
    signature: 'list<string>.join(string): string',
    checkerBuiltin: true,
    impl: (l, sep) => join(list(l), str(sep)),
    cost: joinCost,
  },
];

/** k8s: `ceil(size(result) * 0.2)`; the result's size is recomputed from the arguments. */
function joinCost(args: readonly CelValue[]): number {
  const items = list(args[0]!);
  const sep = args.length > 1 ? str(args[1]!) : '';
  let size = items.length > 1 ? codePointLength(sep) * (items.length - 1) : 0;
  for (const v of items) size += typeof v === 'string' ? codePointLength(v) : 0;
  return Math.ceil(size * 2 * STRING_TRAVERSAL_COST_FACTOR);
}

export const stringsLibrary: CelLibrary = {
  name: 'cel.lib.ext.strings',
  since: 0,
  overloads: withKubernetesEstimates(overloads),
};

// Exported for the tests and for the interpreter's own string helpers.
export { charAt, indexOf, lastIndexOf, substring, toIndex };
