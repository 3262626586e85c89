/**
 * The CRD validation rule scope (`x-kubernetes-validations` / `x-platform-validations`): compiling the
 * rules of one structural schema node with `self` (and `oldSelf`) typed from the node, as Kubernetes'
 * apiextensions `cel.Compile` does, and evaluating them.
 *
 * - The node's DeclType comes from types/decl-type.ts (`resourceRoot` for the root of a custom resource
 *   and for embedded resources: `apiVersion`, `kind`, `metadata.name`, `metadata.generateName`).
 * - Two environments per node and base environment, built once and cached on the schema object (a
 *   WeakMap: a new definition is a new schema object): `self` and `oldSelf` of the node's type, and the
 *   same with `oldSelf` as `optional<T>` for rules with `optionalOldSelf: true`.
 * - A rule that mentions `oldSelf` is a transition rule: it is skipped when there is no old value
 *   (create; a new list-map entry or map key) unless `optionalOldSelf` is set, where `oldSelf` is then
 *   `optional.none()`.
 * - Results follow Kubernetes' `CompilationResult`: a rule that is only blanks compiles to nothing (no
 *   program, no error); a compile error of the rule and one of its messageExpression are reported apart
 *   (they belong to different fields of the definition).
 *
 * Error details, as Kubernetes': `compilation failed: ERROR: <input>:1:6: ...` (with cel-go's snippet),
 * `cel expression must evaluate to a bool`, `program instantiation failed: ...`, `messageExpression
 * compilation failed: ...`, `messageExpression must evaluate to a string`.
 */
import { CelEvalError } from '../errors.js';
import type { CostTracker } from '../interpreter/plan.js';
import type { Naming } from '../../naming/naming.js';
import { adaptValue } from '../types/adapt.js';
import { MAX_REQUEST_SIZE_BYTES, schemaDeclType, type DeclType, type ObjectDecl } from '../types/decl-type.js';
import { registerSchemaVariable } from '../types/register.js';
import { extensionPrefixOf, KUBERNETES_EXTENSIONS, SchemaView, type SchemaNode } from '../types/schema-node.js';
import { Optional, type CelValue } from '../values/value.js';
import { baseEnvironment, type BaseEnvironment, type BaseEnvironmentOptions, type ExpressionMode } from './base.js';
import { compileIn, declareNullEquality, type CompiledExpression, type ExpressionEnvironment } from './compile.js';
import { CelExpressionError } from './errors.js';

export const SELF = 'self';
export const OLD_SELF = 'oldSelf';

/** One entry of the validations extension. */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

export interface SchemaRuleOptions extends BaseEnvironmentOptions {
  /** `new` (default) for rules being written, `stored` for rules already persisted (see base.ts). */
  readonly mode?: ExpressionMode;
  /** Extension spelling of the schema: a prefix (`x-kubernetes-`, the default, or `x-platform-`)... */
  readonly extensionPrefix?: string;
  /** ...or the naming whose prefix to use. */
  readonly naming?: Naming;
  /** The node is a resource root (the custom resource's schema root). Embedded resources are detected. */
  readonly resourceRoot?: boolean;
}

/** The compile environments of one schema node. */
export interface SchemaRuleEnvironment {
  /** undefined when the node cannot carry rules (see `unsupportedError`). */
  readonly declType: DeclType | undefined;
  readonly base: BaseEnvironment;
  /** `self: T, oldSelf: T`. */
  readonly withOldSelf: ExpressionEnvironment | undefined;
  /** `self: T, oldSelf: optional<T>` (rules with optionalOldSelf), built on first use. */
  readonly withOptionalOldSelf: ExpressionEnvironment | undefined;
  /** Kubernetes' detail when the node has no DeclType. */
  readonly unsupportedError: string | undefined;
}

export interface CompiledRule {
  readonly rule: ValidationRule;
  /** Absent when the rule is blank or failed to compile. */
  readonly compiled?: CompiledExpression;
  readonly error?: CelExpressionError;
  /** The rule mentions `oldSelf` (a transition rule). */
  readonly usesOldSelf: boolean;
  readonly optionalOldSelf: boolean;
  readonly messageExpression?: CompiledExpression;
  readonly messageExpressionError?: CelExpressionError;
  /** The static cost estimator's inputs: the type of `self` (sizes), with the checked ASTs above. */
  readonly declType?: DeclType;
  /**
   * Kubernetes' `maxCardinality(declType.MinSerializedSize)`: how many times data of this node fits in
   * a request, the worst-case repetition of the rule under unbounded lists and maps.
   */
  readonly maxCardinality: number;
}

type EnvCache = Map<string, SchemaRuleEnvironment>;
const environments = new WeakMap<object, EnvCache>();

function prefixOf(options: SchemaRuleOptions): string {
  if (options.extensionPrefix !== undefined) return options.extensionPrefix;
  if (options.naming !== undefined) return extensionPrefixOf(options.naming);
  return KUBERNETES_EXTENSIONS;
}

/** The environments of a schema node (cached on the node object). */
export function schemaRuleEnvironment(schema: SchemaNode, options: SchemaRuleOptions = {}): SchemaRuleEnvironment {
  const base = baseEnvironment(options.mode ?? 'new', options);
  const prefix = prefixOf(options);
  const view = new SchemaView(prefix);
  const resourceRoot = options.resourceRoot === true || view.embeddedResource(schema);
  const key = `${base.key}|${prefix}|${resourceRoot}`;
  let perNode = environments.get(schema);
  if (perNode === undefined) environments.set(schema, (perNode = new Map()));
  const hit = perNode.get(key);
  if (hit !== undefined) return hit;

  const declType = schemaDeclType(schema, { extensionPrefix: prefix, resourceRoot });
  let built: SchemaRuleEnvironment;
  if (declType === undefined) {
    built = {
      declType,
      base,
      withOldSelf: undefined,
      withOptionalOldSelf: undefined,
      unsupportedError: `rule declared on schema that does not support validation rules type: '${view.type(schema) ?? ''}' ${prefix}preserve-unknown-fields: '${view.preserveUnknownFields(schema)}'`,
    };
  } else {
    let optional: ExpressionEnvironment | undefined;
    built = {
      declType,
      base,
      withOldSelf: selfEnvironment(base, declType, declType.celType),
      get withOptionalOldSelf(): ExpressionEnvironment {
        return (optional ??= selfEnvironment(base, declType, `optional<${declType.celType}>`));
      },
      unsupportedError: undefined,
    };
  }
  perNode.set(key, built);
  return built;
}

function selfEnvironment(base: BaseEnvironment, declType: DeclType, oldSelfType: string): ExpressionEnvironment {
  let objectTypes: Map<string, ObjectDecl> = new Map();
  const env = base.env.extend({
    configureChecker: (checker) => {
      objectTypes = registerSchemaVariable(checker, SELF, declType);
      declareNullEquality(checker, objectTypes.keys());
      checker.registerVariable(OLD_SELF, oldSelfType);
    },
  });
  return { env, base, objectTypes };
}

/** Kubernetes' maxCardinality: the request size over the smallest serialization plus a comma. */
export const maxCardinality = (minSerializedSize: number): number => Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1));

/** Compiles one rule of a schema node (never throws for a bad rule: see CompiledRule). */
export function compileSchemaRule(schema: SchemaNode, rule: ValidationRule, options: SchemaRuleOptions = {}): CompiledRule {
  return compileRuleIn(schemaRuleEnvironment(schema, options), rule);
}

/** Compiles every rule of a node's validations extension, in order. */
export function compileSchemaRules(schema: SchemaNode, options: SchemaRuleOptions = {}): CompiledRule[] {
  const prefix = prefixOf(options);
  const raw = (schema as Record<string, unknown>)[`${prefix}validations`];
  if (!Array.isArray(raw) || raw.length === 0) return [];
  const env = schemaRuleEnvironment(schema, options);
  return raw.map((r) => compileRuleIn(env, r as ValidationRule));
}

export function compileRuleIn(env: SchemaRuleEnvironment, rule: ValidationRule): CompiledRule {
  const optionalOldSelf = rule.optionalOldSelf === true;
  const cardinality = env.declType === undefined ? 0 : maxCardinality(env.declType.minSerializedSize);
  const common = { rule, optionalOldSelf, maxCardinality: cardinality, ...(env.declType !== undefined ? { declType: env.declType } : {}) };
  if (typeof rule.rule !== 'string' || rule.rule.trim() === '') return { ...common, usesOldSelf: false };
  const target = optionalOldSelf ? env.withOptionalOldSelf : env.withOldSelf;
  if (target === undefined) return { ...common, usesOldSelf: false, error: new CelExpressionError(env.unsupportedError!) };

  let compiled: CompiledExpression;
  try {
    compiled = compileIn(target, rule.rule);
  } catch (e) {
    return { ...common, usesOldSelf: false, error: asExpressionError(e) };
  }
  if (compiled.type !== 'bool') return { ...common, usesOldSelf: false, error: new CelExpressionError('cel expression must evaluate to a bool') };
  const usesOldSelf = mentions(compiled.ast, OLD_SELF);
  const result = { ...common, usesOldSelf, compiled };

  if (rule.messageExpression === undefined || rule.messageExpression === '') return result;
  let message: CompiledExpression;
  try {
    message = compileIn(target, rule.messageExpression, {
      compilationFailed: 'messageExpression compilation failed: ',
      instantiationFailed: 'messageExpression instantiation failed: ',
    });
  } catch (e) {
    return { ...result, messageExpressionError: asExpressionError(e) };
  }
  if (message.type !== 'string') return { ...result, messageExpressionError: new CelExpressionError('messageExpression must evaluate to a string') };
  return { ...result, messageExpression: message };
}

function asExpressionError(e: unknown): CelExpressionError {
  if (e instanceof CelExpressionError) return e;
  return new CelExpressionError(`unexpected compilation error: ${e instanceof Error ? e.message : String(e)}`, 'Internal');
}

/** Whether the AST references the identifier `name` (Kubernetes reads the checked reference map). */
function mentions(ast: unknown, name: string): boolean {
  const walk = (v: unknown): boolean => {
    if (Array.isArray(v)) return v.some(walk);
    if (v === null || typeof v !== 'object' || !('op' in v)) return false;
    const n = v as { op: string; args: unknown };
    if (n.op === 'id') return n.args === name;
    if (n.op === 'value') return false;
    return walk(n.args);
  };
  return walk(ast);
}

// ---- evaluation --------------------------------------------------------------------------------------

/** The data a rule sees: `self` and, for an update, the correlated old value (`undefined`: none). */
export interface RuleInput {
  readonly self: unknown;
  readonly oldSelf?: unknown;
  /** Whether there is an old value (an update of a correlatable value); default `oldSelf !== undefined`. */
  readonly hasOldSelf?: boolean;
}

/**
 * The activation of a compiled rule: `self` adapted lazily (types/adapt.ts), `oldSelf` likewise, or
 * wrapped in an optional for `optionalOldSelf` rules. undefined when the rule must be skipped (a
 * transition rule without an old value).
 */
export function ruleActivation(rule: CompiledRule, input: RuleInput): Record<string, CelValue> | undefined {
  const decl = rule.declType;
  if (decl === undefined) return undefined;
  const hasOld = input.hasOldSelf ?? input.oldSelf !== undefined;
  if (rule.usesOldSelf && !hasOld && !rule.optionalOldSelf) return undefined;
  const act: Record<string, CelValue> = { [SELF]: adaptValue(input.self, decl) };
  if (rule.optionalOldSelf) act[OLD_SELF] = hasOld ? Optional.of(adaptValue(input.oldSelf, decl)) : Optional.NONE;
  else if (hasOld) act[OLD_SELF] = adaptValue(input.oldSelf, decl);
  return act;
}

/**
 * Evaluates a compiled rule: its boolean result, or undefined when it was skipped (blank, not compiled,
 * or a transition rule without an old value). Throws CelEvalError (CelCostError past the tracker's
 * limit) for a runtime error, including data that does not fit the schema.
 */
export function evaluateSchemaRule(rule: CompiledRule, input: RuleInput, tracker?: CostTracker): boolean | undefined {
  if (rule.compiled === undefined) return undefined;
  const act = ruleActivation(rule, input);
  if (act === undefined) return undefined;
  const v = rule.compiled.program.evaluate(act, tracker);
  if (typeof v !== 'boolean') throw new CelEvalError(`rule evaluated to ${typeof v}, not a bool`);
  return v;
}

/** Evaluates a rule's messageExpression (a string), with the same inputs. */
export function evaluateRuleMessage(rule: CompiledRule, input: RuleInput, tracker?: CostTracker): string | undefined {
  if (rule.messageExpression === undefined) return undefined;
  const act = ruleActivation(rule, input);
  if (act === undefined) return undefined;
  const v = rule.messageExpression.program.evaluate(act, tracker);
  if (typeof v !== 'string') throw new CelEvalError('messageExpression did not evaluate to a string');
  return v;
}
