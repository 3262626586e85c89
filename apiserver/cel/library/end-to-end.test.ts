/**
 * A few rows end to end through the interpreter (apiserver/cel/interpreter): parse and check by cel-js
 * with the library declarations, evaluation by our planner dispatching to the library implementations.
 */
import { CelEvalError } from '../errors.js';
import { CelEnvironment } from '../interpreter/environment.js';
import type { CelValue } from '../values/value.js';
import { CelAuthorizer, authzSelectorsLibrary } from './authz.js';
import { KUBERNETES_LIBRARIES } from './libraries.js';

const env = CelEnvironment.create({
  libraries: [...KUBERNETES_LIBRARIES, authzSelectorsLibrary],
  variables: { authorizer: 'kubernetes.authorization.Authorizer' },
});
const authorizer = new CelAuthorizer(
  { authorize: (a) => ({ decision: a.resource === 'pods' ? 'allow' : 'deny', reason: `asked ${a.verb} ${a.resource}` }) },
  { name: 'alice', uid: '', groups: [] },
);
const run = (expr: string): CelValue => env.compile(expr).evaluate({ authorizer });

describe('libraries end to end', () => {
  // [expression, expected] — sources as in the per-library tables (cel-spec string_ext, Kubernetes library docs).
  it.each([
    ["'TacoCÆt'.lowerAscii() == 'tacocÆt'", true], // ASCII-only, not cel-js' own lowerAscii
    ["'ta©o©αT'.indexOf('©', 3)", 4n],
    ["'%d items'.format([3])", '3 items'],
    ["strings.quote('a\\nb')", '"a\\nb"'],
    ['[1, 2, 3].sum() == 6 && [3, 1].min() == 1 && [1, 2].isSorted()', true],
    ["'123 abc 456'.findAll('[0-9]+')", ['123', '456']],
    ["url('https://example.com:80/p').getPort()", '80'],
    ["quantity('1Gi').compareTo(quantity('1024Mi'))", 0n],
    ["quantity('50k').asInteger()", 50000n],
    ['sets.intersects([1, 2], [2, 3])', true],
    ["cidr('10.0.0.0/8').containsIP('10.1.2.3') && ip('::1').isLoopback()", true],
    ["format.dns1123Label().validate('ok-name').hasValue()", false],
    ["authorizer.group('').resource('pods').namespace('n').check('get').allowed()", true],
    ["authorizer.group('').resource('secrets').check('get').reason()", 'asked get secrets'],
  ])('%s', (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it.each([
    ['[1].filter(x, x > 1).min()', 'min called on empty list'],
    ["'abc'.find(['a(?=b)'][0])", 'Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`'], // not a literal: a runtime error
    ["quantity('50m').asInteger()", 'cannot convert value to integer'],
    ["'tacocat'.charAt(30)", 'index out of range: 30'],
  ])('%s fails with %p', (expr, message) => {
    expect(() => run(expr)).toThrow(new CelEvalError(message));
  });

});
