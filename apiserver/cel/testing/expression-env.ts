/**
 * The environments the expression table and the fuzz test evaluate in: Kubernetes 1.32's libraries (every
 * one of `KUBERNETES_LIBRARIES` plus the AuthorizeWithSelectors additions) on the interpreter's standard
 * library, with
 *  - a few plain variables (`s` string, `i` int, `d` double, `u` uint, `b` bool, `l` list<int>,
 *    `m` map<string, int>, `x` dyn, `authorizer`), and
 *  - a schema-typed `self` (and `oldSelf`) built the way the CRD environment will build it: the reference
 *    schema below through `schemaDeclType`, declared to the checker with `registerSchemaVariable`, data
 *    adapted with `adaptValue` (set/map list tags, escaped property names, int-or-string, int64 beyond
 *    2^53, date-time/duration formats).
 *
 * The environment/ folder (another helper's) will own this assembly; until it exists the schema types are
 * declared on the interpreter environment's checker directly (its private `checker` member), exactly as
 * `registerSchemaVariable` does for the CRD checker tests.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelEnvironment } from '../interpreter/environment.js';
import { CelAuthorizer, authzSelectorsLibrary } from '../library/authz.js';
import { KUBERNETES_LIBRARIES } from '../library/libraries.js';
import { adaptValue } from '../types/adapt.js';
import { schemaDeclType, type DeclType } from '../types/decl-type.js';
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

/** A new table environment: all 1.32 libraries, the plain variables, and a schema-typed `self` / `oldSelf`. */
export function tableEnvironment(): CelEnvironment {
  const env = CelEnvironment.create({ libraries: [...KUBERNETES_LIBRARIES, authzSelectorsLibrary], variables: PLAIN_VARIABLES });
  const checker = (env as unknown as { readonly checker: Environment }).checker;
  const decl = selfDeclType();
  registerSchemaVariable(checker, 'self', decl);
  registerSchemaVariable(checker, 'oldSelf', decl);
  return env;
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
