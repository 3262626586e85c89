/**
 * The environments the expression table and the fuzz test evaluate in, built on the environment layer
 * as the server builds its own (environment/base.ts, compile.ts):
 *  - the base environment for NEW expressions at the default compatibility version (1.31 on this 1.32
 *    server: every library of 1.32 — strings v2 with format/quote, lists, regex, url, quantity, sets, ip,
 *    cidr, format, authorizer with selectors — plus optionals, cross-type numeric comparisons and the
 *    literal validators). Every group uses it, except the rows marked `mode: 'stored'` (the
 *    stored-expression environment: what 1.32 itself introduces, two-variable comprehensions, which a
 *    1.32 server accepts only in expressions already stored; see the table's `macros / std` group);
 *  - extended with a few plain variables (`s` string, `i` int, `d` double, `u` uint, `b` bool, `l`
 *    list<int>, `ls` list<string>, `m` map<string, int>, `x` dyn, `authorizer`), and
 *  - a schema-typed `self` and `oldSelf` declared as environment/schema-rules.ts declares them: the
 *    reference schema below through `schemaDeclType` (a custom resource root), `registerSchemaVariable`
 *    and `declareNullEquality` through the environment's `configureChecker` hook; data adapted with
 *    `adaptValue` (set/map list tags, escaped property names, int-or-string, int64 beyond 2^53,
 *    date-time/duration formats).
 * Expressions compile with `compileIn` (the AST passes: field checks, literal validators, homogeneous
 * literals, format checks, planning failures), so compile errors are Kubernetes' `CelExpressionError`s
 * (`compilation failed: ERROR: <input>:1:6: ...`, `program instantiation failed: ...`).
 */
import type { CelEnvironment } from '../interpreter/environment.js';
import { baseEnvironment, DEFAULT_COMPATIBILITY_VERSION, type ExpressionMode } from '../environment/base.js';
import { compileIn, declareNullEquality, type CompiledExpression, type ExpressionEnvironment } from '../environment/compile.js';
import { CelAuthorizer } from '../library/authz.js';
import { adaptValue } from '../types/adapt.js';
import { schemaDeclType, type DeclType, type ObjectDecl } from '../types/decl-type.js';
import { registerSchemaVariable } from '../types/register.js';
import type { SchemaNode } from '../types/schema-node.js';
import type { CelValue } from '../values/value.js';

/** Plain variables of the table's environment (cel-js type syntax). */
export const PLAIN_VARIABLES: Readonly<Record<string, string>> = {
  s: 'string',
  i: 'int',
  d: 'double',
  u: 'uint',
  b: 'bool',
  l: 'list<int>',
  ls: 'list<string>',
  m: 'map<string, int>',
  x: 'dyn',
  authorizer: 'kubernetes.authorization.Authorizer',
};

/** The reference schema of `self`: one property per mapping row the table exercises. */
export const SELF_SCHEMA: SchemaNode = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    maxReplicas: { type: 'integer' },
    big: { type: 'integer', format: 'int64' },
    ratio: { type: 'number' },
    name: { type: 'string' },
    flag: { type: 'boolean' },
    port: { 'x-kubernetes-int-or-string': true },
    data: { type: 'string', format: 'byte' },
    created: { type: 'string', format: 'date-time' },
    day: { type: 'string', format: 'date' },
    timeout: { type: 'string', format: 'duration' },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    otherTags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    atomicTags: { type: 'array', items: { type: 'string' } },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } }, required: ['name'] },
    },
    otherPorts: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } }, required: ['name'] },
    },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    'dash-name': { type: 'string' },
    'dot.name': { type: 'string' },
    'slash/name': { type: 'string' },
    'double__under': { type: 'string' },
    namespace: { type: 'string' },
    in: { type: 'string' },
    'x-kubernetes-thing': { type: 'string' },
    'has space': { type: 'string' },
    '-name': { type: 'string' },
    '__dunder': { type: 'string' },
    'a._a': { type: 'string' },
    inline: { type: 'string' },
    '1st': { type: 'string' },
    metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    nested: { type: 'object', properties: { inner: { type: 'object', properties: { value: { type: 'string' } } } } },
    optionalField: { type: 'string' },
  },
};

/** The data of `self` (an object that passed the schema). `big` is beyond 2^53, as a lossless JSON parser gives it. */
export const SELF_DATA = {
  replicas: 3,
  maxReplicas: 5,
  big: 9007199254740993n,
  ratio: 0.5,
  name: 'web',
  flag: true,
  port: 'http',
  data: 'aGVsbG8=',
  created: '2024-01-02T03:04:05.123456789Z',
  day: '2024-02-29',
  timeout: '1m30s',
  tags: ['a', 'b', 'c'],
  otherTags: ['c', 'a', 'b'],
  atomicTags: ['a', 'b', 'c'],
  ports: [
    { name: 'http', port: 80 },
    { name: 'https', port: 443 },
  ],
  otherPorts: [
    { name: 'https', port: 8443 },
    { name: 'metrics', port: 9090 },
  ],
  labels: { app: 'web', tier: 'front' },
  'dash-name': 'dash',
  'dot.name': 'dot',
  'slash/name': 'slash',
  double__under: 'under',
  namespace: 'ns',
  in: 'keyword',
  'x-kubernetes-thing': 'ext',
  'has space': 'invisible',
  '-name': 'leading dash',
  __dunder: 'dunder',
  'a._a': 'dot underscore',
  inline: 'not a keyword',
  '1st': 'digit',
  metadata: { name: 'web-1', generateName: 'web-' },
  nested: { inner: { value: 'deep' } },
};

/** `oldSelf` for the table: the same object with a numeric port (int-or-string) and reordered lists. */
export const OLD_SELF_DATA = {
  ...SELF_DATA,
  port: 8080,
  tags: ['c', 'b', 'a'],
  ports: [
    { name: 'https', port: 443 },
    { name: 'http', port: 80 },
  ],
};

let selfDecl: DeclType | undefined;

/** The DeclType of `SELF_SCHEMA` (a custom resource's root, so apiVersion/kind/metadata are declared too). */
export function selfDeclType(): DeclType {
  selfDecl ??= schemaDeclType(SELF_SCHEMA, { resourceRoot: true })!;
  return selfDecl;
}

const tableEnvs = new Map<ExpressionMode, ExpressionEnvironment>();

/**
 * The table's compile environment (built once per mode): the base environment for new expressions at the
 * default compatibility version (or, for `stored`, the stored-expression environment: everything this
 * server knows), the plain variables, and a schema-typed `self` / `oldSelf`.
 */
export function tableExpressionEnvironment(mode: ExpressionMode = 'new'): ExpressionEnvironment {
  const hit = tableEnvs.get(mode);
  if (hit !== undefined) return hit;
  const base = baseEnvironment(mode, { compatibilityVersion: DEFAULT_COMPATIBILITY_VERSION });
  const decl = selfDeclType();
  let objectTypes: Map<string, ObjectDecl> = new Map();
  const env = base.env.extend({
    variables: PLAIN_VARIABLES,
    configureChecker: (checker) => {
      objectTypes = registerSchemaVariable(checker, 'self', decl);
      declareNullEquality(checker, objectTypes.keys());
      checker.registerVariable('oldSelf', decl.celType);
    },
  });
  const built: ExpressionEnvironment = { env, base, objectTypes };
  tableEnvs.set(mode, built);
  return built;
}

/** Compiles a table expression; throws CelExpressionError (Kubernetes' wording) when it does not compile. */
export function compileTableExpression(expression: string, mode: ExpressionMode = 'new'): CompiledExpression {
  return compileIn(tableExpressionEnvironment(mode), expression);
}

/**
 * The table environment's interpreter environment, for callers that compile without the environment
 * layer's passes (the fuzz test: only the interpreter's compile errors and runtime errors).
 */
export function tableEnvironment(): CelEnvironment {
  return tableExpressionEnvironment().env;
}

/** A fixed authorizer: allows `pods` (any verb), denies everything else with a reason naming the check. */
export const TABLE_AUTHORIZER = new CelAuthorizer(
  { authorize: (a) => ({ decision: a.resource === 'pods' || a.path === '/healthz' ? 'allow' : 'deny', reason: `asked ${a.verb} ${a.isResourceRequest ? a.resource : a.path}` }) },
  { name: 'alice', uid: '', groups: [] },
);

/** The default activation of the table (rows may override variables). */
export function tableActivation(): Record<string, CelValue> {
  const decl = selfDeclType();
  return {
    s: 'hello',
    i: 42n,
    d: 2.5,
    b: true,
    l: [1n, 2n, 3n],
    ls: ['x', 'y'],
    x: 'dynamic',
    self: adaptValue(SELF_DATA, decl),
    oldSelf: adaptValue(OLD_SELF_DATA, decl),
    authorizer: TABLE_AUTHORIZER,
  };
}
