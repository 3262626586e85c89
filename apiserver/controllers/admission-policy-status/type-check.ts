/**
 * Type checking of a ValidatingAdmissionPolicy against the schemas of the kinds it matches (Kubernetes'
 * admission/plugin/policy/validating typechecking.go), for `status.typeChecking.expressionWarnings`:
 *
 * - the kinds: every (group, version, resource) of `matchConstraints.resourceRules` with no wildcard group
 *   or version (such a rule is skipped), resources without `*` or `/`, in sorted order, resolved to the
 *   served kinds; at most 10 kinds (counted as they resolve), then sorted by group, version and kind.
 *   Kinds without a schema are skipped;
 * - each kind: `object` and `oldObject` typed by the kind's schema (a resource root: apiVersion, kind,
 *   metadata.name and generateName always declared), `params` typed by the paramKind's schema and
 *   declared only when that schema exists, `request` and `namespaceObject` as at admission, `authorizer`
 *   (but not `authorizer.requestResource`, which upstream's checker does not declare either), `variables`
 *   composed in order with their checked types; the environment for stored expressions;
 * - checked: each validation's `expression` and non-empty `messageExpression` (not matchConditions or
 *   auditAnnotations), with no constraint on the result type;
 * - warning text, per expression: for each kind that fails, `<group>/<version>, Kind=<kind>: ` and cel-go's
 *   issue text (`ERROR: <input>:1:7: undefined field 'replicas'` and the snippet) and a line break, the
 *   kinds' parts joined by a line break; an internal failure reads `...: type checking error: <detail>`.
 *
 * Type checking never changes how a policy is enforced; it only informs.
 */
import {
  AUTHORIZER,
  AUTHORIZER_TYPE,
  NAMESPACE_OBJECT,
  NAMESPACE_TYPE,
  OBJECT,
  OLD_OBJECT,
  PARAMS,
  REQUEST,
  REQUEST_TYPE,
  composeVariables,
  type AdmissionEnvironment,
  type PolicyVariable,
} from '../../cel/environment/admission.js';
import { baseEnvironment } from '../../cel/environment/base.js';
import { compileIn, declareNullEquality } from '../../cel/environment/compile.js';
import { CelExpressionError } from '../../cel/environment/errors.js';
import { schemaDeclType, type DeclType, type ObjectDecl } from '../../cel/types/decl-type.js';
import { registerDeclTypes } from '../../cel/types/register.js';
import type { KubeObject } from '../../api/object.js';
import type { Schema } from '../../schema/schema.js';
import { isObject } from '../../api/json.js';

/** At most this many kinds are checked per policy (upstream's maxTypesToCheck). */
export const MAX_TYPES_TO_CHECK = 10;

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** What the checker needs of the server: the kinds of a resource, the schema of a kind. */
export interface SchemaResolver {
  /** The kinds served as `resource` (plural or singular) in group/version; empty when none. */
  kindsFor(group: string, version: string, resource: string): readonly GroupVersionKind[];
  /** The whole object schema of a kind, or undefined when it is not served. */
  schemaFor(gvk: GroupVersionKind): Schema | undefined;
}

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

type Json = Record<string, unknown>;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Go's `GroupVersionKind.String()`: `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
export const gvkString = (g: GroupVersionKind): string => `${g.group}/${g.version}, Kind=${g.kind}`;

/** The kinds the policy's resource rules name (upstream's typesToCheck). */
export function typesToCheck(policy: KubeObject, resolver: SchemaResolver): GroupVersionKind[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const constraints = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const found = new Map<string, GroupVersionKind>();
  const sorted = (): GroupVersionKind[] =>
    [...found.values()].sort((a, b) => compare(a.group, b.group) || compare(a.version, b.version) || compare(a.kind, b.kind));
  let count = 0;
  for (const rule of Array.isArray(constraints.resourceRules) ? constraints.resourceRules : []) {
    if (!isObject(rule)) continue;
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    if (groups.length === 0 || groups.some((g) => g.includes('*'))) continue;
    if (versions.length === 0 || versions.some((v) => v.includes('*'))) continue;
    const resources = strings(rule.resources).filter((r) => !/[*/]/.test(r));
    if (resources.length === 0) continue;
    for (const group of [...groups].sort(compare)) {
      for (const version of [...versions].sort(compare)) {
        for (const resource of [...resources].sort(compare)) {
          for (const gvk of resolver.kindsFor(group, version, resource)) {
            found.set(gvkString(gvk), gvk);
            if (++count === MAX_TYPES_TO_CHECK) return sorted();
          }
        }
      }
    }
  }
  return sorted();
}

/** The paramKind as a GVK, or undefined (absent, or an apiVersion that does not parse). */
function paramsGvk(spec: Json): GroupVersionKind | undefined {
  if (!isObject(spec.paramKind)) return undefined;
  const apiVersion = typeof spec.paramKind.apiVersion === 'string' ? spec.paramKind.apiVersion : '';
  const kind = typeof spec.paramKind.kind === 'string' ? spec.paramKind.kind : '';
  const parts = apiVersion.split('/');
  if (parts.length > 2) return undefined;
  return parts.length === 1 ? { group: '', version: parts[0]!, kind } : { group: parts[0]!, version: parts[1]!, kind };
}

/** Makes type names and environment keys unique. */
let serial = 0;

/**
 * The admission environment for stored expressions with `object`/`oldObject` (and `params`, when typed)
 * of the given types. Each call builds a new environment with its own type names.
 */
function typedEnvironment(object: DeclType, params: DeclType | undefined): AdmissionEnvironment {
  const base = baseEnvironment('stored');
  const objectTypes = new Map<string, ObjectDecl>();
  const env = base.env.extend({
    configureChecker: (checker) => {
      for (const t of [REQUEST_TYPE, NAMESPACE_TYPE, object, ...(params === undefined ? [] : [params])]) {
        for (const [name, o] of registerDeclTypes(checker, t)) objectTypes.set(name, o);
      }
      declareNullEquality(checker, objectTypes.keys());
      checker.registerVariable(REQUEST, REQUEST_TYPE.celType);
      checker.registerVariable(NAMESPACE_OBJECT, NAMESPACE_TYPE.celType);
      checker.registerVariable(OBJECT, object.celType);
      checker.registerVariable(OLD_OBJECT, object.celType);
      if (params !== undefined) checker.registerVariable(PARAMS, params.celType);
      checker.registerVariable(AUTHORIZER, AUTHORIZER_TYPE);
    },
  });
  return { env, base, objectTypes, hasParams: params !== undefined, hasAuthorizer: true, key: `typecheck-${++serial}` };
}

/** The DeclType of a kind's schema under a type name of its own. */
function declTypeOf(schema: Schema, kind: string): DeclType | undefined {
  return schemaDeclType(schema, { resourceRoot: true, rootName: `typecheck${++serial}.${kind.replace(/\W/g, '')}` });
}

/** One expression in one environment: cel-go's issue text, or undefined when it checks. */
function issuesOf(env: ReturnType<typeof composeVariables>['environment'], expression: string): { invalid: boolean; text: string } | undefined {
  try {
    compileIn(env, expression, { compilationFailed: '' });
    return undefined;
  } catch (e) {
    const err = e instanceof CelExpressionError ? e : new CelExpressionError(String(e), 'Internal');
    // Upstream's checker only compiles: what fails when a program is planned is not its concern.
    if (err.detail.startsWith('program instantiation failed: ')) return undefined;
    return { invalid: err.type === 'Invalid', text: err.detail };
  }
}

/** The warnings of a policy (upstream's TypeChecker.Check); empty when everything checks. */
export function typeCheckPolicy(policy: KubeObject, resolver: SchemaResolver): ExpressionWarning[] {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const validations = (Array.isArray(spec.validations) ? spec.validations : []).filter(isObject);
  if (validations.length === 0) return [];
  const kinds: { gvk: GroupVersionKind; decl: DeclType }[] = [];
  for (const gvk of typesToCheck(policy, resolver)) {
    const schema = resolver.schemaFor(gvk);
    const decl = schema === undefined ? undefined : declTypeOf(schema, gvk.kind);
    if (decl !== undefined) kinds.push({ gvk, decl });
  }
  if (kinds.length === 0) return [];
  const pg = paramsGvk(spec);
  const paramsSchema = pg === undefined ? undefined : resolver.schemaFor(pg);
  const paramsDecl = paramsSchema === undefined || pg === undefined ? undefined : declTypeOf(paramsSchema, pg.kind);
  const variables: PolicyVariable[] = (Array.isArray(spec.variables) ? spec.variables : []).filter(isObject).map((v) => ({
    name: typeof v.name === 'string' ? v.name : '',
    expression: typeof v.expression === 'string' ? v.expression : '',
  }));
  const environments = kinds.map(({ gvk, decl }) => ({ gvk, env: composeVariables(typedEnvironment(decl, paramsDecl), variables).environment }));

  const check = (expression: string): string | undefined => {
    const parts: string[] = [];
    for (const { gvk, env } of environments) {
      const issue = issuesOf(env, expression);
      if (issue !== undefined) parts.push(`${gvkString(gvk)}: ${issue.invalid ? '' : 'type checking error: '}${issue.text}\n`);
    }
    return parts.length === 0 ? undefined : parts.join('\n');
  };

  const warnings: ExpressionWarning[] = [];
  validations.forEach((v, i) => {
    const expression = typeof v.expression === 'string' ? v.expression : '';
    const onExpression = check(expression);
    if (onExpression !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: onExpression });
    const messageExpression = typeof v.messageExpression === 'string' ? v.messageExpression : '';
    if (messageExpression === '') return;
    const onMessage = check(messageExpression);
    if (onMessage !== undefined) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: onMessage });
  });
  return warnings;
}
