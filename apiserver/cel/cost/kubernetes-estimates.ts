/**
 * Kubernetes' static call estimates (k8s.io/apiserver/pkg/cel/library/cost.go `EstimateCallCost`, 1.32),
 * as `estimate` hooks for library overloads. Kubernetes chooses the estimate by FUNCTION NAME, whatever
 * library declares it (so `indexOf` of the strings extension and of the lists library share one rule);
 * `withKubernetesEstimates` attaches the hook of an overload's name. The cel-go sets extension brings its
 * own estimator (`sets.contains` & co.), also here.
 *
 * cel-go v0.22 passes a (non-nil) target to the estimator for global functions too, so the global
 * functions' rules (`isIP`, `ip`, `cidr`, `quantity`, `ip.isCanonical`...) apply to their first argument:
 * Kubernetes' own tests expect `ip.isCanonical('192.168.0.1')` to estimate 3 (= ceil(11 x 0.2)).
 */
import type { Overload } from '../library/library.js';
import type { CallEstimate, EstimateContext, EstimateNode } from './call-estimate.js';
import { AUTHZ_CHECK_COST, REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR } from './limits.js';
import { add, addU64, fixed, mulFactor, mulFactorU64, multiply, mulU64, ONE, UINT64_MAX, type SizeEstimate } from './units.js';

type Hook = (ctx: EstimateContext) => CallEstimate | undefined;

const F = STRING_TRAVERSAL_COST_FACTOR;
const nominal: Hook = () => ({ cost: ONE });

/** isSorted, sum, max, min, indexOf, lastIndexOf: 1 per element (+ traversal of string/bytes elements); on a string, a traversal. */
const listTraversal: Hook = (ctx) => {
  if (ctx.target === undefined) return undefined;
  const el = ctx.elementNode(ctx.target);
  if (el !== undefined) {
    let elCost = fixed(1);
    if (el.type === 'string' || el.type === 'bytes') elCost = add(elCost, mulFactor(ctx.size(el), F));
    return { cost: multiply(ctx.size(ctx.target), elCost) };
  }
  return { cost: mulFactor(ctx.size(ctx.target), F) };
};

const targetTraversal: Hook = (ctx) => {
  if (ctx.target === undefined) return undefined;
  const sz = ctx.size(ctx.target);
  return { cost: mulFactor(sz, F), resultSize: sz };
};

/** The first argument traversed (url, isIP, ip, cidr, isCIDR, quantity, isQuantity). */
const argTraversal =
  (factor: number): Hook =>
  (ctx) => {
    const a = ctx.args[0];
    if (a === undefined) return undefined;
    return { cost: mulFactor(ctx.size(a), factor) };
  };

const replace: Hook = (ctx) => {
  if (ctx.target === undefined || ctx.args.length < 2) return undefined;
  const sz = ctx.size(ctx.target);
  const toReplace = ctx.size(ctx.args[0]!);
  const replaceWith = ctx.size(ctx.args[1]!);
  let countMax: bigint;
  let countMin: bigint;
  let retainedMax = 0n;
  let retainedMin = 0n;
  if (toReplace.min === 0n) {
    countMax = sz.max < UINT64_MAX ? sz.max + 1n : sz.max;
    retainedMax = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    countMax = 0n;
    retainedMax = sz.max;
  } else {
    countMax = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
  }
  if (toReplace.max === 0n) {
    countMin = sz.min < UINT64_MAX ? sz.min + 1n : sz.min;
    retainedMin = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    countMin = 0n;
    retainedMin = sz.min;
  } else {
    countMin = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
  }
  const size: SizeEstimate = {
    min: addU64(mulU64(countMin, replaceWith.min), retainedMin),
    max: addU64(mulU64(countMax, replaceWith.max), retainedMax),
  };
  return { cost: mulFactor(sz, 2 * F), resultSize: size };
};

const split: Hook = (ctx) => {
  if (ctx.target === undefined) return undefined;
  const sz = ctx.size(ctx.target);
  let max = sz.max;
  const limit = ctx.args[1]?.literal;
  if (typeof limit === 'bigint' && limit >= 0n) max = limit;
  return { cost: mulFactor(sz, 2 * F), resultSize: { min: 0n, max } };
};

const join: Hook = (ctx) => {
  if (ctx.target === undefined) return undefined;
  let sz: SizeEstimate = { min: 0n, max: 0n };
  const listSize = ctx.size(ctx.target);
  const el = ctx.elementNode(ctx.target);
  if (el !== undefined) {
    const e = ctx.size(el);
    sz = multiply(listSize, e);
  }
  const sep = ctx.args[0];
  if (sep !== undefined) {
    const sepSize = ctx.size(sep);
    const minSep = listSize.min > 0n ? listSize.min - 1n : 0n;
    const maxSep = listSize.max > 0n ? listSize.max - 1n : 0n;
    sz = add(sz, multiply(sepSize, { min: minSep, max: maxSep }));
  }
  return { cost: mulFactor(sz, F), resultSize: sz };
};

const find: Hook = (ctx) => {
  if (ctx.target === undefined || ctx.args.length < 1) return undefined;
  const sz = ctx.size(ctx.target);
  const strCost = mulFactor(add(sz, fixed(1)), F);
  const regexCost = mulFactor(ctx.size(ctx.args[0]!), REGEX_STRING_LENGTH_COST_FACTOR);
  return { cost: multiply(strCost, regexCost), resultSize: { min: 0n, max: sz.max } };
};

/** `ip` is both the global parser and `CIDR.ip()` (a field access). */
const ip: Hook = (ctx) => {
  if (ctx.target !== undefined && ctx.args.length === 0) return { cost: ONE };
  return argTraversal(F)(ctx);
};

const IP_BYTES: SizeEstimate = { min: 4n, max: 16n };
const containsIP: Hook = (ctx) => {
  if (ctx.target === undefined || ctx.args.length < 1) return undefined;
  let c = mulFactor(add(IP_BYTES, IP_BYTES), F);
  if (ctx.args[0]!.type === 'string') c = add(c, mulFactor(ctx.size(ctx.args[0]!), F));
  return { cost: c };
};
const containsCIDR: Hook = (ctx) => {
  if (ctx.target === undefined || ctx.args.length < 1) return undefined;
  let c = mulFactor(add(IP_BYTES, IP_BYTES), F);
  c = add(add(c, mulFactor(IP_BYTES, F)), ONE);
  if (ctx.args[0]!.type === 'string') c = add(c, mulFactor(ctx.size(ctx.args[0]!), F));
  return { cost: c };
};

/** cel-go ext sets: `1 + ceil(factor x size(a) x size(b))` with sizes computed, by schema, or unknown. */
const setsCost =
  (factor: number): Hook =>
  (ctx) => {
    if (ctx.args.length !== 2) return undefined;
    const a = ctx.size(ctx.args[0]!);
    const b = ctx.size(ctx.args[1]!);
    const p = multiply(a, b);
    return { cost: add({ min: mulFactorU64(p.min, factor), max: mulFactorU64(p.max, factor) }, ONE) };
  };

/** Hooks by function name (namespaced global functions by their full CEL name). */
export const KUBERNETES_ESTIMATES: Readonly<Record<string, Hook>> = {
  check: () => ({ cost: fixed(AUTHZ_CHECK_COST) }),
  serviceAccount: nominal,
  path: nominal,
  group: nominal,
  resource: nominal,
  subresource: nominal,
  namespace: nominal,
  name: nominal,
  allowed: nominal,
  reason: nominal,
  error: nominal,
  errored: nominal,
  isSorted: listTraversal,
  sum: listTraversal,
  max: listTraversal,
  min: listTraversal,
  indexOf: listTraversal,
  lastIndexOf: listTraversal,
  url: argTraversal(F),
  lowerAscii: targetTraversal,
  upperAscii: targetTraversal,
  substring: targetTraversal,
  trim: targetTraversal,
  replace,
  split,
  join,
  find,
  findAll: find,
  cidr: argTraversal(F),
  isIP: argTraversal(F),
  isCIDR: argTraversal(F),
  ip,
  'ip.isCanonical': argTraversal(2 * F),
  masked: nominal,
  prefixLength: nominal,
  family: nominal,
  isUnspecified: nominal,
  isLoopback: nominal,
  isLinkLocalMulticast: nominal,
  isLinkLocalUnicast: nominal,
  containsIP,
  containsCIDR,
  quantity: argTraversal(F),
  isQuantity: argTraversal(F),
  sign: nominal,
  asInteger: nominal,
  isInteger: nominal,
  asApproximateFloat: nominal,
  isGreaterThan: nominal,
  isLessThan: nominal,
  compareTo: nominal,
  add: nominal,
  sub: nominal,
  'sets.contains': setsCost(1),
  'sets.intersects': setsCost(1),
  'sets.equivalent': setsCost(2), // both directions of containment
};

const NAME = /^\s*(?:([A-Za-z0-9_.<>]+)\.)?(\w+)\(/;

/**
 * The overloads with Kubernetes' estimate of their function name attached (an overload that already
 * has an `estimate` keeps it). `namespaces` are the library's namespaces (`sets`, `ip`...): a global
 * function `ip.isCanonical` is looked up by its full name.
 */
export function withKubernetesEstimates(overloads: readonly Overload[], namespaces: readonly string[] = []): Overload[] {
  return overloads.map((o) => {
    if (o.estimate !== undefined) return o;
    const m = NAME.exec(o.signature);
    if (m === null) return o;
    const full = m[1] !== undefined && namespaces.includes(m[1]) ? `${m[1]}.${m[2]}` : m[2]!;
    const hook = KUBERNETES_ESTIMATES[full];
    return hook === undefined ? o : { ...o, estimate: hook };
  });
}

export type { EstimateNode };
