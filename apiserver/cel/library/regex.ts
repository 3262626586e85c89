/**
 * Kubernetes' regex library (`kubernetes.regex`, every version): `string.find(regex)` (the first match,
 * '' when none) and `string.findAll(regex[, limit])` (all matches, at most `limit` when >= 0), with RE2
 * semantics (re2.ts). A pattern RE2 rejects is the runtime error `Illegal regex: <Go's parse error>`;
 * for literal patterns the environment refuses it at compile time (`validateRe2`, as cel-go's regex
 * optimization does when the program is planned).
 *
 * Cost (k8s cost.go): `ceil((1 + size(string)) * 0.1) * ceil(size(regex) * 0.25)`, sizes in code points.
 */
import { CelEvalError } from '../errors.js';
import type { CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { compileRe2, re2Find, re2FindAll, validateRe2, type Re2 } from './re2.js';
import { REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR, actualSize, int, str } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

function compile(pattern: string): Re2 {
  const err = validateRe2(pattern);
  if (err !== undefined) throw new CelEvalError(`Illegal regex: ${err}`);
  return compileRe2(pattern);
}

const cost = (args: readonly CelValue[]): number =>
  Math.ceil((1 + actualSize(args[0]!)) * STRING_TRAVERSAL_COST_FACTOR) * Math.ceil(actualSize(args[1]!) * REGEX_STRING_LENGTH_COST_FACTOR);

/** Go's `FindAllString(s, int(n))`: n < 0 all; limits beyond 2^31 behave as "all". */
function limitOf(n: bigint): number {
  return n < 0n ? -1 : n > 2_147_483_647n ? -1 : Number(n);
}

const overloads: Overload[] = [
  { signature: 'string.find(string): string', impl: (s, re) => re2Find(compile(str(re)), str(s)), cost },
  { signature: 'string.findAll(string): list<string>', impl: (s, re) => re2FindAll(compile(str(re)), str(s), -1), cost },
  {
    signature: 'string.findAll(string, int): list<string>',
    impl: (s, re, n) => re2FindAll(compile(str(re)), str(s), limitOf(int(n))),
    cost,
  },
];

export const regexLibrary: CelLibrary = {
  name: 'kubernetes.regex',
  since: 0,
  overloads: withKubernetesEstimates(overloads),
};
