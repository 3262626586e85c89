/**
 * The admission policy scope (ValidatingAdmissionPolicy; Kubernetes' admission/plugin/cel compile.go and
 * composition.go): gradual typing over the request.
 *
 * | variable                     | type                                                                |
 * |------------------------------|---------------------------------------------------------------------|
 * | `object`, `oldObject`        | dyn (null for DELETE / CREATE)                                      |
 * | `params`                     | dyn, only when the policy has a paramKind (null without a paramRef) |
 * | `request`                    | `kubernetes.AdmissionRequest` (below): an unknown field is a        |
 * |                              | compile error, where `object.anything` checks                       |
 * | `namespaceObject`            | `kubernetes.Namespace` (as Kubernetes: metadata, spec, status);     |
 * |                              | null for cluster-scoped resources                                   |
 * | `authorizer`                 | `kubernetes.authorization.Authorizer` (library/authz.ts)            |
 * | `authorizer.requestResource` | `kubernetes.authorization.ResourceCheck` of the request's resource  |
 * | `variables`                  | `kubernetes.variables`: one field per policy variable, of its       |
 * |                              | compiled type; evaluated lazily, once per evaluation; a variable    |
 * |                              | sees only the variables before it; not in matchConditions          |
 *
 * `kubernetes.AdmissionRequest`: kind and requestKind `{group, version, kind}`
 * (`kubernetes.GroupVersionKind`), resource and requestResource `{group, version, resource}`
 * (`kubernetes.GroupVersionResource`), subResource, requestSubResource, name, namespace, operation
 * (strings), userInfo `{username, uid, groups: list<string>, extra: map<string, list<string>>}`
 * (`kubernetes.UserInfo`), dryRun (bool), options (dyn).
 *
 * Result types and Kubernetes' wording when they do not fit: validations and matchConditions `bool`,
 * messageExpression `string`, auditAnnotations valueExpression `string` or `null_type` (and `dyn`, which
 * is what a conditional of a string and null checks to here), variables anything:
 * `must evaluate to bool but got string`, `must evaluate to one of [string null_type] but got int`.
 * Compile errors: `compilation failed: ERROR: <input>:1:9: undefined field 'nope'` (with cel-go's
 * snippet).
 */
import { CelEvalError } from '../errors.js';
import type { CostTracker } from '../interpreter/plan.js';
import { CelAuthorizer, CelGroupCheck, CelResourceCheck } from '../library/authz.js';
import { adaptUntyped, adaptValue, SchemaObject } from '../types/adapt.js';
import {
  MAX_DATETIME_SIZE_JSON,
  MAX_REQUEST_SIZE_BYTES,
  MIN_BOOL_SIZE,
  MIN_DATETIME_SIZE_JSON,
  MIN_NUMBER_SIZE,
  MIN_STRING_SIZE,
  type DeclField,
  type DeclType,
  type ObjectDecl,
} from '../types/decl-type.js';
import { registerDeclTypes } from '../types/register.js';
import type { CelObject, CelValue } from '../values/value.js';
import { baseEnvironment, type BaseEnvironmentOptions, type ExpressionMode } from './base.js';
import { celGoTypeString, compileIn, declareNullEquality, type CompiledExpression, type ExpressionEnvironment } from './compile.js';
import { CelExpressionError } from './errors.js';

export const OBJECT = 'object';
export const OLD_OBJECT = 'oldObject';
export const PARAMS = 'params';
export const REQUEST = 'request';
export const NAMESPACE_OBJECT = 'namespaceObject';
export const AUTHORIZER = 'authorizer';
export const REQUEST_RESOURCE_AUTHORIZER = 'authorizer.requestResource';
export const VARIABLES = 'variables';

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const VARIABLES_TYPE = 'kubernetes.variables';

// ---- declared types --------------------------------------------------------------------------------

const STRING: DeclType = { kind: 'string', celType: 'string', maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: MIN_STRING_SIZE, nullable: false };
const BOOL: DeclType = { kind: 'bool', celType: 'bool', maxElements: 0, minSerializedSize: MIN_BOOL_SIZE, nullable: false };
const INT: DeclType = { kind: 'int', celType: 'int', maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE, nullable: false };
const TIMESTAMP: DeclType = {
  kind: 'timestamp',
  format: 'date-time',
  celType: 'google.protobuf.Timestamp',
  maxElements: MAX_DATETIME_SIZE_JSON,
  minSerializedSize: MIN_DATETIME_SIZE_JSON,
  nullable: false,
};
/** A dyn field (adapted untyped by `RequestObject`); the checker sees `dyn`. */
const DYN: DeclType = { kind: 'int-or-string', celType: 'dyn', maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: 1, nullable: false };

const listOf = (elem: DeclType): DeclType => ({
  kind: 'list',
  celType: `list<${elem.celType}>`,
  elem,
  listType: { type: 'atomic' },
  maxElements: Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1)),
  minSerializedSize: 2,
  nullable: false,
});
const mapOf = (elem: DeclType): DeclType => ({
  kind: 'map',
  celType: `map<string, ${elem.celType}>`,
  elem,
  maxElements: Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 6)),
  minSerializedSize: 2,
  nullable: false,
});

/** An object type with Kubernetes' name; fields are [type, required]. */
function objectDecl(name: string, spec: Readonly<Record<string, readonly [DeclType, boolean]>>): ObjectDecl {
  const fields = new Map<string, DeclField>();
  let minSerializedSize = 2;
  for (const [field, [type, required]] of Object.entries(spec)) {
    fields.set(field, { name: field, property: field, type, required });
    if (required) minSerializedSize += field.length + type.minSerializedSize + 4;
  }
  return { kind: 'object', celType: name, name, fields, properties: fields, embeddedResource: false, preserveUnknownFields: false, maxElements: 0, minSerializedSize, nullable: false };
}

/** Kubernetes' `BuildRequestType` (uid, object and oldObject are not part of it). */
export const REQUEST_TYPE: ObjectDecl = (() => {
  const gvk = objectDecl('kubernetes.GroupVersionKind', { group: [STRING, true], version: [STRING, true], kind: [STRING, true] });
  const gvr = objectDecl('kubernetes.GroupVersionResource', { group: [STRING, true], version: [STRING, true], resource: [STRING, true] });
  const userInfo = objectDecl('kubernetes.UserInfo', {
    username: [STRING, false],
    uid: [STRING, false],
    groups: [listOf(STRING), false],
    extra: [mapOf(listOf(STRING)), false],
  });
  return objectDecl('kubernetes.AdmissionRequest', {
    kind: [gvk, true],
    resource: [gvr, true],
    subResource: [STRING, false],
    requestKind: [gvk, true],
    requestResource: [gvr, true],
    requestSubResource: [STRING, false],
    name: [STRING, true],
    namespace: [STRING, false],
    operation: [STRING, true],
    userInfo: [userInfo, true],
    dryRun: [BOOL, false],
    options: [DYN, false],
  });
})();

/** Kubernetes' `BuildNamespaceType` (its metadata declares `UID`, as Kubernetes does, not `uid`). */
export const NAMESPACE_TYPE: ObjectDecl = (() => {
  const strings = listOf(STRING);
  const spec = objectDecl('kubernetes.NamespaceSpec', { finalizers: [strings, true] });
  const condition = objectDecl('kubernetes.NamespaceCondition', {
    status: [STRING, true],
    type: [STRING, true],
    lastTransitionTime: [TIMESTAMP, true],
    message: [STRING, true],
    reason: [STRING, true],
  });
  const status = objectDecl('kubernetes.NamespaceStatus', { conditions: [listOf(condition), true], phase: [STRING, true] });
  const metadata = objectDecl('kubernetes.NamespaceMetadata', {
    name: [STRING, true],
    generateName: [STRING, true],
    namespace: [STRING, true],
    labels: [mapOf(STRING), true],
    annotations: [mapOf(STRING), true],
    UID: [STRING, true],
    creationTimestamp: [TIMESTAMP, true],
    deletionGracePeriodSeconds: [INT, true],
    deletionTimestamp: [TIMESTAMP, true],
    generation: [INT, true],
    resourceVersion: [STRING, true],
    finalizers: [strings, true],
  });
  return objectDecl('kubernetes.Namespace', { metadata: [metadata, true], spec: [spec, true], status: [status, true] });
})();

// ---- environments ------------------------------------------------------------------------------------

export interface AdmissionEnvironmentOptions extends BaseEnvironmentOptions {
  /** `new` (default) for expressions being written, `stored` for persisted ones and for admission. */
  readonly mode?: ExpressionMode;
  /** The policy has a paramKind: `params` is declared. */
  readonly hasParams?: boolean;
  /** `authorizer` and `authorizer.requestResource` are declared (Kubernetes: always for policies). */
  readonly hasAuthorizer?: boolean;
}

export interface AdmissionEnvironment extends ExpressionEnvironment {
  readonly hasParams: boolean;
  readonly hasAuthorizer: boolean;
  /** A key unique to this environment. */
  readonly key: string;
}

const QUALIFIED = new Set([REQUEST_RESOURCE_AUTHORIZER]);
const admissionEnvironments = new Map<string, AdmissionEnvironment>();

/** The admission environment without `variables` (matchConditions compile here), cached. */
export function admissionEnvironment(options: AdmissionEnvironmentOptions = {}): AdmissionEnvironment {
  const base = baseEnvironment(options.mode ?? 'new', options);
  const hasParams = options.hasParams ?? false;
  const hasAuthorizer = options.hasAuthorizer ?? true;
  const key = `${base.key}|params=${hasParams}|authz=${hasAuthorizer}`;
  const hit = admissionEnvironments.get(key);
  if (hit !== undefined) return hit;
  const objectTypes = new Map<string, ObjectDecl>();
  const variables: Record<string, string> = { [OBJECT]: 'dyn', [OLD_OBJECT]: 'dyn', [REQUEST]: REQUEST_TYPE.celType, [NAMESPACE_OBJECT]: NAMESPACE_TYPE.celType };
  if (hasParams) variables[PARAMS] = 'dyn';
  const opaque: string[] = [];
  if (hasAuthorizer) {
    variables[AUTHORIZER] = AUTHORIZER_TYPE;
    variables[REQUEST_RESOURCE_AUTHORIZER] = RESOURCE_CHECK_TYPE;
    // Before 1.27 the authorizer library is not in a new-expression environment, but the variables
    // still have their types (Kubernetes declares them whatever the libraries).
    for (const t of [AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE]) if (!base.env.typeNames.has(t)) opaque.push(t);
  }
  const env = base.env.extend({
    types: opaque.map((name) => ({ name })),
    configureChecker: (checker) => {
      for (const t of [REQUEST_TYPE, NAMESPACE_TYPE]) for (const [name, o] of registerDeclTypes(checker, t)) objectTypes.set(name, o);
      declareNullEquality(checker, objectTypes.keys());
      for (const [name, type] of Object.entries(variables)) checker.registerVariable(name, type);
    },
  });
  const built: AdmissionEnvironment = { env, base, objectTypes, qualifiedVariables: QUALIFIED, hasParams, hasAuthorizer, key };
  admissionEnvironments.set(key, built);
  return built;
}

// ---- compilation -------------------------------------------------------------------------------------

/** What an expression must evaluate to. `any`: anything (variables). */
export type ReturnTypes = readonly string[] | 'any';

export interface AdmissionCompilation {
  readonly expression: string;
  readonly compiled?: CompiledExpression;
  readonly error?: CelExpressionError;
  /** The checked result type (cel-js spelling); `dyn` when compilation failed. */
  readonly outputType: string;
}

/** Compiles an expression and checks its result type (Kubernetes' `CompileCELExpression`); never throws for a bad expression. */
export function compileAdmissionExpression(env: ExpressionEnvironment, expression: string, returnTypes: ReturnTypes): AdmissionCompilation {
  let compiled: CompiledExpression;
  try {
    compiled = compileIn(env, expression);
  } catch (e) {
    const error = e instanceof CelExpressionError ? e : new CelExpressionError(`unexpected compilation error: ${String(e)}`, 'Internal');
    return { expression, error, outputType: 'dyn' };
  }
  if (returnTypes !== 'any' && !returnTypes.includes(compiled.type)) {
    const got = celGoTypeString(compiled.type);
    const wanted = returnTypes.filter((t) => t !== 'dyn').map(celGoTypeString);
    const reason = wanted.length === 1 ? `must evaluate to ${wanted[0]} but got ${got}` : `must evaluate to one of [${wanted.join(' ')}] but got ${got}`;
    return { expression, error: new CelExpressionError(reason), outputType: compiled.type };
  }
  return { expression, compiled, outputType: compiled.type };
}

export const VALIDATION_RETURN: ReturnTypes = ['bool'];
export const MESSAGE_EXPRESSION_RETURN: ReturnTypes = ['string'];
export const MATCH_CONDITION_RETURN: ReturnTypes = ['bool'];
/** string or null (`dyn` as well: a conditional `c ? 'x' : null` checks to dyn here). */
export const AUDIT_ANNOTATION_RETURN: ReturnTypes = ['string', 'null', 'dyn'];

/** A validation's `expression` (bool), in the environment with the policy's variables. */
export const compileValidation = (env: ExpressionEnvironment, expression: string): AdmissionCompilation => compileAdmissionExpression(env, expression, VALIDATION_RETURN);
/** A validation's `messageExpression` (string), in the environment with the policy's variables. */
export const compileMessageExpression = (env: ExpressionEnvironment, expression: string): AdmissionCompilation =>
  compileAdmissionExpression(env, expression, MESSAGE_EXPRESSION_RETURN);
/** A `matchConditions[].expression` (bool): in the environment without variables. */
export const compileMatchCondition = (env: AdmissionEnvironment, expression: string): AdmissionCompilation => compileAdmissionExpression(env, expression, MATCH_CONDITION_RETURN);
/** An `auditAnnotations[].valueExpression` (string or null), in the environment with the policy's variables. */
export const compileAuditAnnotation = (env: ExpressionEnvironment, expression: string): AdmissionCompilation =>
  compileAdmissionExpression(env, expression, AUDIT_ANNOTATION_RETURN);

// ---- variables ---------------------------------------------------------------------------------------

export interface PolicyVariable {
  readonly name: string;
  readonly expression: string;
}

export interface CompiledVariable extends AdmissionCompilation {
  readonly name: string;
}

/** A policy's variables compiled in order, and the environment the policy's other expressions use. */
export interface VariableComposition {
  readonly variables: readonly CompiledVariable[];
  /** `variables` with every variable: validations, messageExpressions and auditAnnotations compile here. */
  readonly environment: ExpressionEnvironment;
  readonly base: AdmissionEnvironment;
}

const compositions = new WeakMap<readonly PolicyVariable[], Map<string, VariableComposition>>();

/**
 * Compiles a policy's variables: each in the environment whose `variables` has the ones before it (a
 * variable that failed to compile is declared `dyn`, so later expressions still check; evaluating it is
 * an error). Cached per variables array and environment.
 */
export function composeVariables(env: AdmissionEnvironment, variables: readonly PolicyVariable[]): VariableComposition {
  let perList = compositions.get(variables);
  if (perList === undefined) compositions.set(variables, (perList = new Map()));
  const hit = perList.get(env.key);
  if (hit !== undefined) return hit;
  const compiled: CompiledVariable[] = [];
  for (const v of variables) {
    const scope = withVariables(env, compiled);
    compiled.push({ name: v.name, ...compileAdmissionExpression(scope, v.expression, 'any') });
  }
  const composition: VariableComposition = { variables: compiled, environment: withVariables(env, compiled), base: env };
  perList.set(env.key, composition);
  return composition;
}

/** The environment with a `variables` object of the given variables' types. */
function withVariables(env: AdmissionEnvironment, vars: readonly CompiledVariable[]): ExpressionEnvironment {
  const fieldTypes: Record<string, string> = {};
  const fields = new Map<string, DeclField>();
  for (const v of vars) {
    fieldTypes[v.name] = v.outputType;
    fields.set(v.name, { name: v.name, property: v.name, type: declOfType(v.outputType, env.objectTypes), required: true });
  }
  const decl: ObjectDecl = {
    kind: 'object',
    celType: VARIABLES_TYPE,
    name: VARIABLES_TYPE,
    fields,
    properties: fields,
    embeddedResource: false,
    preserveUnknownFields: false,
    maxElements: 0,
    minSerializedSize: 2,
    nullable: false,
  };
  const extended = env.env.extend({
    configureChecker: (checker) => {
      checker.registerType(VARIABLES_TYPE, { fields: fieldTypes });
      checker.registerVariable(VARIABLES, VARIABLES_TYPE);
    },
  });
  const objectTypes = new Map(env.objectTypes).set(VARIABLES_TYPE, decl);
  return { env: extended, base: env.base, objectTypes, qualifiedVariables: QUALIFIED };
}

/**
 * A DeclType standing for a variable's checked type, as far as field checks read it (`has(variables.x.y)`):
 * the declared object types, maps and `dyn` keep their meaning; any other type only its name.
 */
function declOfType(t: string, known: ReadonlyMap<string, ObjectDecl>): DeclType {
  const o = known.get(t);
  if (o !== undefined) return o;
  if (t === 'dyn') return DYN;
  if (t.startsWith('map<')) return mapOf(DYN);
  return { kind: 'string', celType: t, maxElements: 0, minSerializedSize: 1, nullable: false };
}

// ---- evaluation --------------------------------------------------------------------------------------

/** The data of one admission evaluation, as JSON (objects) and library values (authorizer). */
export interface AdmissionInput {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly params?: unknown;
  /** The AdmissionRequest as JSON (`kind`, `resource`, `userInfo`...). */
  readonly request: unknown;
  /** The namespace object as JSON, null for cluster-scoped resources. */
  readonly namespaceObject?: unknown;
  readonly authorizer?: CelAuthorizer;
  /** `authorizer.requestResource`; built from `authorizer` and the request when absent (`requestResourceCheck`). */
  readonly requestResourceAuthorizer?: CelResourceCheck;
}

/** The request as a typed object: `options` is dyn, adapted untyped. */
class RequestObject extends SchemaObject {
  override field(name: string): CelValue | undefined {
    if (name !== 'options') return super.field(name);
    const raw = (this.json as Record<string, unknown>).options;
    return raw === null || raw === undefined ? undefined : adaptUntyped(raw);
  }
}

/** `authorizer.requestResource`: a resource check of the request's resource, subresource, namespace and name. */
export function requestResourceCheck(authorizer: CelAuthorizer, request: unknown): CelResourceCheck {
  const r = (request ?? {}) as Record<string, unknown>;
  const gvr = (r.resource ?? {}) as Record<string, unknown>;
  const s = (v: unknown): string => (typeof v === 'string' ? v : '');
  return new CelResourceCheck(new CelGroupCheck(authorizer, s(gvr.group)), {
    resource: s(gvr.resource),
    subresource: s(r.subResource),
    namespace: s(r.namespace),
    name: s(r.name),
  });
}

/**
 * The activation of an admission expression. `composition` adds `variables`: each variable is evaluated
 * on first access with this activation (and `tracker`), once; its error is kept and thrown at every
 * access.
 */
export function admissionActivation(input: AdmissionInput, composition?: VariableComposition, tracker?: CostTracker): Record<string, CelValue> {
  const act: Record<string, CelValue> = {
    [OBJECT]: adaptUntyped(input.object ?? null),
    [OLD_OBJECT]: adaptUntyped(input.oldObject ?? null),
    [REQUEST]: input.request === null || input.request === undefined ? null : new RequestObject(input.request as Record<string, unknown>, REQUEST_TYPE),
    [NAMESPACE_OBJECT]: input.namespaceObject === null || input.namespaceObject === undefined ? null : adaptValue(input.namespaceObject, NAMESPACE_TYPE),
  };
  if (input.params !== undefined) act[PARAMS] = adaptUntyped(input.params);
  if (input.authorizer !== undefined) {
    act[AUTHORIZER] = input.authorizer;
    act[REQUEST_RESOURCE_AUTHORIZER] = input.requestResourceAuthorizer ?? requestResourceCheck(input.authorizer, input.request);
  }
  if (composition !== undefined) act[VARIABLES] = new LazyVariables(composition, act, chargedTo(tracker));
  return act;
}

/**
 * How one variable is computed on first read: its value, or the error every read of it then throws. The
 * default (admissionActivation's) charges the activation's tracker; the policy plugin gives each variable a
 * tracker of its own and Kubernetes' policy wording (admission/policy/expression-evaluation.ts).
 */
export type VariableEvaluator = (variable: CompiledVariable, act: Record<string, CelValue>) => CelValue | CelEvalError;

/** `variables`: a CEL object whose fields are computed on first access, once each. */
export class LazyVariables implements CelObject {
  readonly kind = 'object' as const;
  readonly typeName = VARIABLES_TYPE;
  private readonly results = new Map<string, CelValue | CelEvalError>();
  private readonly byName: ReadonlyMap<string, CompiledVariable>;

  constructor(
    composition: VariableComposition,
    private readonly act: Record<string, CelValue>,
    private readonly evaluate: VariableEvaluator,
  ) {
    this.byName = new Map(composition.variables.map((v) => [v.name, v]));
  }

  field(name: string): CelValue | undefined {
    let r = this.results.get(name);
    if (r === undefined) {
      const v = this.byName.get(name);
      if (v === undefined) return undefined;
      r = this.evaluate(v, this.act);
      this.results.set(name, r);
    }
    if (r instanceof CelEvalError) throw r;
    return r;
  }

  hasField(name: string): boolean {
    return this.byName.has(name);
  }

  *fieldNames(): Iterable<string> {
    yield* this.byName.keys();
  }
}

/** The default evaluator: charged to `tracker` (shared by the whole evaluation). */
const chargedTo = (tracker: CostTracker | undefined): VariableEvaluator => (v, act) => {
  if (v.compiled === undefined) return new CelEvalError(`variable '${v.name}' failed to compile: ${v.error?.detail ?? 'unknown error'}`);
  try {
    return v.compiled.program.evaluate(act, tracker);
  } catch (e) {
    return e instanceof CelEvalError ? e : new CelEvalError(String(e));
  }
};

/** Evaluates a compiled admission expression (throws CelEvalError, CelCostError past the limit). */
export function evaluateAdmission(compiled: AdmissionCompilation, activation: Record<string, CelValue>, tracker?: CostTracker): CelValue {
  if (compiled.compiled === undefined) throw new CelEvalError(compiled.error?.detail ?? 'expression did not compile');
  return compiled.compiled.program.evaluate(activation, tracker);
}

