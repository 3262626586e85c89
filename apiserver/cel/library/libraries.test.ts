/**
 * Every library declaration is accepted by the checker (cel-js 8.0.0) as the environment will register
 * it: opaque types with `registerType`, namespaces as a type plus a constant, `checkerBuiltin` overloads
 * not re-declared. Then one expression per library type-checks to the expected type.
 */
import { Environment } from '@marcbachmann/cel-js';
import { authzSelectorsLibrary } from './authz.js';
import { KUBERNETES_LIBRARIES } from './libraries.js';

function environment(): Environment {
  const env = new Environment({ enableOptionalTypes: true });
  const libs = [...KUBERNETES_LIBRARIES, authzSelectorsLibrary];
  for (const lib of libs) for (const t of lib.types ?? []) env.registerType(t, class {});
  for (const lib of libs) {
    for (const ns of lib.namespaces ?? []) {
      const Ns = class {};
      env.registerType(ns, Ns);
      env.registerConstant(ns, ns, new Ns());
    }
  }
  env.registerVariable('authorizer', 'kubernetes.authorization.Authorizer');
  for (const lib of libs) {
    for (const o of lib.overloads) {
      if (o.checkerBuiltin) continue;
      expect(() => env.registerFunction(o.signature, () => null)).not.toThrow();
    }
  }
  return env;
}

describe('library declarations in cel-js', () => {
  const env = environment();
  it.each([
    ["'abc'.charAt(1)", 'string'],
    ["'ABC'.lowerAscii()", 'string'], // built-in declaration, our implementation
    ["'a,b'.replace(',', ';', 1)", 'string'],
    ["'%s'.format(['x'])", 'string'],
    ["strings.quote('a')", 'string'],
    ['[1, 2].isSorted()', 'bool'],
    ['[1u, 2u].sum()', 'uint'],
    ["[duration('1s')].sum()", 'google.protobuf.Duration'],
    ["[timestamp('2020-01-01T00:00:00Z')].max()", 'google.protobuf.Timestamp'],
    ["['a'].indexOf('a')", 'int'],
    ["'abc'.findAll('[a-z]', 2)", 'list<string>'],
    ["url('https://x').getQuery()", 'map<string, list<string>>'],
    ["quantity('1Gi').add(1).isGreaterThan(quantity('1'))", 'bool'],
    ['sets.contains([1], [1])', 'bool'],
    ["ip('1.2.3.4').family()", 'int'],
    ["ip.isCanonical('::1')", 'bool'],
    ["cidr('10.0.0.0/8').containsIP(ip('10.0.0.1'))", 'bool'],
    ["string(cidr('10.0.0.0/8').masked())", 'string'],
    ["format.dns1123Label().validate('x')", 'optional<list<string>>'],
    ["format.named('uri')", 'optional<kubernetes.NamedFormat>'],
    ["authorizer.group('apps').resource('deployments').namespace('n').check('get').allowed()", 'bool'],
    ["authorizer.serviceAccount('n', 's').path('/x').check('GET').reason()", 'string'],
    ["authorizer.group('').resource('pods').labelSelector('a=b').check('list').errored()", 'bool'],
  ])('%s : %s', (expr, type) => {
    const r = env.check(expr);
    expect(r.error?.message).toBeUndefined();
    expect(r.type).toBe(type);
  });

  it.each([
    ["sets.contains([1], ['a'])"], // list<T> must unify (cel-go: no matching overload)
    ["'a'.charAt('b')"],
    ["['a'].sum()"], // strings are not summable
    ["quantity('1').add('1')"],
  ])('refuses %s', (expr) => {
    expect(env.check(expr).valid).toBe(false);
  });

  it('every library has a since version and unique signatures', () => {
    for (const lib of KUBERNETES_LIBRARIES) {
      expect(lib.since).toBeGreaterThanOrEqual(0);
      const sigs = lib.overloads.map((o) => o.signature);
      expect(new Set(sigs).size).toBe(sigs.length);
    }
  });
});
