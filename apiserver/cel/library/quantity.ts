/**
 * Kubernetes' quantity library (`kubernetes.quantity`): `isQuantity(string)`, `quantity(string)` and the
 * members of `kubernetes.Quantity`: isInteger, asInteger, asApproximateFloat, sign, add/sub (Quantity or
 * int), isLessThan, isGreaterThan, compareTo.
 *
 * Values are the server's own exact `Quantity` (registry/kinds/shared/quantity.ts: bigint mantissa and
 * decimal scale), so arithmetic never loses precision and never overflows; only the conversion to int
 * does: `isInteger()` is true when the value is whole AND fits int64 (Kubernetes' `AsInt64` succeeds), and
 * `asInteger()` fails otherwise with `cannot convert value to integer`. `quantity('x')` fails with the
 * parser's message (ErrFormatWrong's regular expression, or ErrSuffix for `10Mm`). `==` compares values (`quantity('1') == quantity('1000m')`).
 *
 * Introduced in 1.28 (base environment), i.e. accepted in writes from 1.29 under Kubernetes' n-1
 * compatibility rule (the environment applies it). Cost (k8s cost.go): isQuantity/quantity `ceil(size *
 * 0.1)`; the members 1.
 */
import { CelEvalError } from '../errors.js';
import {
  QUANTITY_FORMAT_ERROR,
  compareQuantity,
  formatQuantity,
  parseQuantity,
  type Quantity,
} from '../../registry/kinds/shared/quantity.js';
import { CelOpaque, INT64_MAX, INT64_MIN, type CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { int, noSuchOverload, str, traversal } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

/** A `kubernetes.Quantity` value. */
export class CelQuantity extends CelOpaque {
  readonly typeName = 'kubernetes.Quantity';
  constructor(readonly q: Quantity) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other instanceof CelQuantity && compareQuantity(this.q, other.q) === 0;
  }
  override toString(): string {
    return formatQuantity(this.q);
  }
}

function toQuantity(v: CelValue): Quantity {
  if (!(v instanceof CelQuantity)) throw noSuchOverload();
  return v.q;
}

/** The exact int64 value, or undefined when not whole or out of range (Kubernetes' `AsInt64`). */
export function quantityAsInt64(q: Quantity): bigint | undefined {
  let v: bigint;
  if (q.scale >= 0) {
    // Avoid materializing huge powers: anything beyond 10^19 is out of range already.
    if (q.mantissa !== 0n && q.scale > 19) return undefined;
    v = q.mantissa * 10n ** BigInt(q.scale);
  } else {
    const d = 10n ** BigInt(-q.scale);
    if (q.mantissa % d !== 0n) return undefined;
    v = q.mantissa / d;
  }
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

/** Kubernetes' `AsApproximateFloat64`: the value as a double (infinite beyond the double range). */
export function quantityAsFloat(q: Quantity): number {
  if (q.mantissa === 0n) return 0;
  // Through the decimal string: exact digits, one rounding.
  return Number(`${q.mantissa}e${q.scale}`);
}

function add(a: Quantity, b: Quantity, sign: 1n | -1n): Quantity {
  const scale = Math.min(a.scale, b.scale);
  const am = a.mantissa * 10n ** BigInt(a.scale - scale);
  const bm = b.mantissa * 10n ** BigInt(b.scale - scale);
  return { mantissa: am + sign * bm, scale, format: a.format };
}

const fromInt = (v: bigint): Quantity => ({ mantissa: v, scale: 0, format: 'DecimalSI' });

/** Kubernetes' ParseQuantity errors (resource.ErrFormatWrong / ErrSuffix), which `quantity()` returns as is. */
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
/** The shape ParseQuantity accepts before it reads the suffix (the text of ErrFormatWrong). */
const QUANTITY_SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const QUANTITY_SUFFIX = /^(?:[KMGTPE]i|[numkMGTPE]|[eE][+-]?\d+)?$/;

/**
 * The error of a string the quantity parser refused, as Kubernetes words it: a string of the right
 * shape whose suffix is not one (`10Mm`, `1Ki5`) is ErrSuffix; anything else ErrFormatWrong.
 */
export function quantityParseError(s: string): string {
  const m = QUANTITY_SHAPE.exec(s);
  if (m !== null && QUANTITY_NUMBER.test(m[1]!) && !QUANTITY_SUFFIX.test(m[2]!)) return QUANTITY_SUFFIX_ERROR;
  return QUANTITY_FORMAT_ERROR;
}

function quantityOf(s: string): CelQuantity {
  const q = parseQuantity(s);
  if (q === undefined) throw new CelEvalError(quantityParseError(s));
  return new CelQuantity(q);
}

const parseCost = (args: readonly CelValue[]): number => traversal(args[0]!);
const Q = 'kubernetes.Quantity';

const overloads: Overload[] = [
  { signature: `quantity(string): ${Q}`, impl: (s) => quantityOf(str(s)), cost: parseCost },
  { signature: 'isQuantity(string): bool', impl: (s) => parseQuantity(str(s)) !== undefined, cost: parseCost },
  { signature: `${Q}.isInteger(): bool`, impl: (q) => quantityAsInt64(toQuantity(q)) !== undefined },
  {
    signature: `${Q}.asInteger(): int`,
    impl: (q) => {
      const v = quantityAsInt64(toQuantity(q));
      if (v === undefined) throw new CelEvalError('cannot convert value to integer');
      return v;
    },
  },
  { signature: `${Q}.asApproximateFloat(): double`, impl: (q) => quantityAsFloat(toQuantity(q)) },
  {
    signature: `${Q}.sign(): int`,
    impl: (q) => {
      const m = toQuantity(q).mantissa;
      return m > 0n ? 1n : m < 0n ? -1n : 0n;
    },
  },
  { signature: `${Q}.add(${Q}): ${Q}`, impl: (a, b) => new CelQuantity(add(toQuantity(a), toQuantity(b), 1n)) },
  { signature: `${Q}.add(int): ${Q}`, impl: (a, b) => new CelQuantity(add(toQuantity(a), fromInt(int(b)), 1n)) },
  { signature: `${Q}.sub(${Q}): ${Q}`, impl: (a, b) => new CelQuantity(add(toQuantity(a), toQuantity(b), -1n)) },
  { signature: `${Q}.sub(int): ${Q}`, impl: (a, b) => new CelQuantity(add(toQuantity(a), fromInt(int(b)), -1n)) },
  { signature: `${Q}.isLessThan(${Q}): bool`, impl: (a, b) => compareQuantity(toQuantity(a), toQuantity(b)) < 0 },
  { signature: `${Q}.isGreaterThan(${Q}): bool`, impl: (a, b) => compareQuantity(toQuantity(a), toQuantity(b)) > 0 },
  { signature: `${Q}.compareTo(${Q}): int`, impl: (a, b) => BigInt(compareQuantity(toQuantity(a), toQuantity(b))) },
];

export const quantityLibrary: CelLibrary = {
  name: 'kubernetes.quantity',
  since: 28,
  overloads: withKubernetesEstimates(overloads),
  types: [Q],
};
