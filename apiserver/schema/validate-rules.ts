/**
 * The CEL validation rules of a schema (`x-kubernetes-validations`; `x-platform-validations` for a schema
 * spelled with platform.io's extension names, `extensionPrefix`), evaluated over an object and, on an
 * update, its old version: the schema engine's step after validate.ts, for built-in kinds and custom
 * resources alike (Kubernetes' apiextensions `cel.Validator`, v1.32).
 *
 * The walk: every node with rules is evaluated with `self` = its value (null and absent values are never
 * evaluated: a rule on the parent checks presence). Old values follow the new ones through object
 * properties, map keys and lists of type `map` by key (rule-correlation.ts); a transition rule (one that
 * mentions `oldSelf`) is skipped without an old value unless it sets `optionalOldSelf`, where `oldSelf` is
 * `optional.none()`. Rules inside `allOf` branches are evaluated against the node they sit on. Property
 * subtrees the CEL types cannot see (no DeclType: untyped preserve-unknown-fields data) are not walked; at
 * a resource root (and in embedded resources) only `metadata.name` and `metadata.generateName` are.
 *
 * Errors, word for word as Kubernetes': a failed rule is `Invalid value: "<schema type>": <message>` at the
 * node's path (plus the rule's `fieldPath`, resolved against the node, when it resolves), the message being
 * the messageExpression's result (trimmed; when it fails, is empty, over 5 KiB or multi-line: `message`),
 * else `message` (trimmed), else `failed rule: <rule>`; `reason` picks Forbidden, Required, Duplicate (the
 * value only) or Invalid. Runtime errors read `<error> evaluating rule: <rule or message>`.
 *
 * Budget: one CostBudget per object (10M; a caller may pass its own). An evaluation past the per-call limit
 * or the remaining budget stops the whole walk with Kubernetes' message; errors found so far are kept.
 *
 * Ratcheting (CRDValidationRatcheting, on by default in 1.32): on an update, a rule that does not use
 * `oldSelf` and fails on a node whose value is unchanged (or, for a node that cannot be correlated, whose
 * nearest correlatable ancestor is unchanged) does not fail the write: its error becomes a warning.
 *
 * `blocksRules` / `validateRulesAfter`: when schema validation already found a type, required, enum,
 * length or count error, the rules are not evaluated (their `self` would not fit its type) and one cause
 * says so instead.
 */
import { CelCostError, CelEvalError } from '../cel/errors.js';
import { CostBudget, CostBudgetExceededError } from '../cel/cost/budget.js';
import { RUNTIME_CEL_COST_BUDGET } from '../cel/cost/limits.js';
import { callCostExceededDetail, MESSAGE_EXPRESSION_OUT_OF_BUDGET, OUT_OF_BUDGET } from '../cel/cost/messages.js';
import type { BaseEnvironmentOptions, ExpressionMode } from '../cel/environment/base.js';
import { compileRuleIn, ruleActivation, schemaRuleEnvironment, type CompiledRule, type ValidationRule } from '../cel/environment/schema-rules.js';
import { KUBERNETES_EXTENSIONS, SchemaView, type SchemaNode } from '../cel/types/schema-node.js';
import { duplicate, errorString, forbidden, invalidValue, required, type FieldError, type FieldErrorType, type FieldPath } from '../validation/field-error.js';
import { Correlation, MapListLookup } from './rule-correlation.js';
import { normalizeRuleFieldPath } from './rule-field-path.js';
import { isObject } from '../api/json.js';

export interface RuleValidationOptions extends BaseEnvironmentOptions {
  /** The object before the update; undefined on create. */
  readonly old?: unknown;
  /** Prefix of every error path (`FieldPath.root('spec')`); default the root. */
  readonly path?: FieldPath;
  /** The object's shared runtime budget; default a new one of 10M (`RuntimeCELCostBudget`). */
  readonly budget?: CostBudget;
  /** CRDValidationRatcheting; default true. Only applies with `old`. */
  readonly ratcheting?: boolean;
  /** The schema's extension spelling; default `x-kubernetes-` (the server's own schemas). */
  readonly extensionPrefix?: string;
  /** The schema is a resource's root (apiVersion, kind, metadata.name/generateName visible); default true. */
  readonly resourceRoot?: boolean;
  /** Rules are compiled as stored expressions (default), as Kubernetes evaluates persisted rules. */
  readonly mode?: ExpressionMode;
}

export interface RuleValidationResult {
  readonly errors: FieldError[];
  /** Ratcheted failures (`<field>: <message>`), for Warning headers. */
  readonly warnings: string[];
}

/** The cause added instead of the rules' errors when schema validation already failed (`blocksRules`). */
export const RULES_NOT_CHECKED = 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/** Kubernetes' bound of an evaluated messageExpression (`MaxEvaluatedMessageExpressionSizeBytes`). */
export const MAX_EVALUATED_MESSAGE_BYTES = 5 * 1024;

const BLOCKING = new Set<FieldErrorType>(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/** Whether `errors` hold one of the types that make Kubernetes skip the rules. */
export function blocksRules(errors: readonly FieldError[]): boolean {
  return errors.some((e) => BLOCKING.has(e.type));
}

/**
 * The step after schema (and ObjectMeta) validation: appends to `errors` either the rules' errors or, when
 * `errors` already block them, the RULES_NOT_CHECKED cause (only if the schema has rules). Returns the
 * ratcheting warnings.
 */
export function validateRulesAfter(errors: FieldError[], value: unknown, schema: SchemaNode, options: RuleValidationOptions = {}): string[] {
  if (!hasValidationRules(schema, options.extensionPrefix)) return [];
  if (blocksRules(errors)) {
    // Kubernetes' field.Invalid(nil, nil, ...): a nil path prints as "<nil>" (the cause's field and the
    // message's prefix), a nil value as "null".
    errors.push(invalidValue('<nil>', 'null', RULES_NOT_CHECKED));
    return [];
  }
  const res = validateRules(value, schema, options);
  errors.push(...res.errors);
  return res.warnings;
}

/** Evaluates every rule of `schema` over `value` (and `options.old`). Never throws for bad data or rules. */
export function validateRules(value: unknown, schema: SchemaNode, options: RuleValidationOptions = {}): RuleValidationResult {
  const prefix = options.extensionPrefix ?? KUBERNETES_EXTENSIONS;
  const out: RuleValidationResult = { errors: [], warnings: [] };
  if (!hasValidationRules(schema, prefix)) return out;
  const view = viewOf(prefix);
  const hasOld = options.old !== undefined && options.old !== null;
  const ratchet: Ratchet =
    hasOld && options.ratcheting !== false ? { current: new Correlation(value, options.old, schema, view), nearest: null } : NO_RATCHET;
  const walker = new RuleWalker(view, options, options.budget ?? new CostBudget(RUNTIME_CEL_COST_BUDGET), out);
  walker.visit(schema, schema, options.path?.toString() ?? '', value, hasOld ? options.old : undefined, ratchet, options.resourceRoot !== false);
  return out;
}

// ---- per-node data, cached on the schema objects ---------------------------------------------------

const views = new Map<string, SchemaView>();
const viewOf = (prefix: string): SchemaView => {
  let v = views.get(prefix);
  if (v === undefined) views.set(prefix, (v = new SchemaView(prefix)));
  return v;
};

const hasRulesCache = new Map<string, WeakMap<object, boolean>>();

/** Whether the schema or anything below it (properties, items, map values, allOf branches) carries rules. */
export function hasValidationRules(schema: SchemaNode, prefix: string = KUBERNETES_EXTENSIONS): boolean {
  let cache = hasRulesCache.get(prefix);
  if (cache === undefined) hasRulesCache.set(prefix, (cache = new WeakMap()));
  return hasRulesIn(schema, viewOf(prefix), cache);
}

function hasRulesIn(node: SchemaNode, view: SchemaView, cache: WeakMap<object, boolean>): boolean {
  const hit = cache.get(node);
  if (hit !== undefined) return hit;
  cache.set(node, false); // a (malformed) cyclic schema terminates
  const rules = view.ext(node, 'validations');
  let has = Array.isArray(rules) && rules.length > 0;
  const props = view.properties(node);
  if (!has && props !== undefined) has = Object.values(props).some((p) => hasRulesIn(p, view, cache));
  const items = view.items(node);
  if (!has && items !== undefined) has = hasRulesIn(items, view, cache);
  const ap = view.additionalProperties(node);
  if (!has && ap !== undefined) has = hasRulesIn(ap, view, cache);
  const allOf = (node as { allOf?: unknown }).allOf;
  if (!has && Array.isArray(allOf)) has = allOf.some((b) => b !== null && typeof b === 'object' && hasRulesIn(b as SchemaNode, view, cache));
  cache.set(node, has);
  return has;
}

const typedCache = new Map<string, WeakMap<object, boolean>>();

/** Whether the node has a CEL DeclType (types/decl-type.ts `schemaDeclType` !== undefined), without building it. */
function isTyped(node: SchemaNode, view: SchemaView): boolean {
  let cache = typedCache.get(view.prefix);
  if (cache === undefined) typedCache.set(view.prefix, (cache = new WeakMap()));
  const hit = cache.get(node);
  if (hit !== undefined) return hit;
  cache.set(node, false);
  let typed: boolean;
  if (view.intOrString(node) || view.embeddedResource(node)) typed = true;
  else {
    switch (view.type(node)) {
      case 'array': {
        const items = view.items(node);
        typed = items !== undefined && isTyped(items, view);
        break;
      }
      case 'object': {
        const ap = view.additionalProperties(node);
        typed = ap === undefined || isTyped(ap, view);
        break;
      }
      case 'string':
      case 'boolean':
      case 'number':
      case 'integer':
        typed = true;
        break;
      default:
        typed = false;
    }
  }
  cache.set(node, typed);
  return typed;
}

interface NodeRule {
  readonly compiled: CompiledRule;
  /** The rule's fieldPath resolved against its node, in error notation; undefined when absent or unresolvable. */
  readonly fieldPath: string | undefined;
}

/** Compiled rules by rule node, then type node (they differ for allOf branches), then environment key. */
const compiledCache = new WeakMap<object, WeakMap<object, Map<string, readonly NodeRule[]>>>();

// ---- the walk ---------------------------------------------------------------------------------------

/** Ratcheting state: the node's correlation, else the nearest correlatable ancestor's. */
interface Ratchet {
  readonly current: Correlation | null;
  readonly nearest: Correlation | null;
}

const NO_RATCHET: Ratchet = { current: null, nearest: null };

function ratchetKey(r: Ratchet, field: string): Ratchet {
  if (r.current === null) return r;
  // apiVersion and kind of the root are never ratcheted: both sides are converted to the served version.
  if (r.nearest === null && (field === 'apiVersion' || field === 'kind')) return NO_RATCHET;
  return { current: r.current.key(field), nearest: r.current };
}

function ratchetIndex(r: Ratchet, i: number): Ratchet {
  return r.current === null ? r : { current: r.current.index(i), nearest: r.current };
}

function shouldRatchet(r: Ratchet): boolean {
  if (r.current !== null) return r.current.unchanged();
  return r.nearest !== null && r.nearest.unchanged();
}

const hasOwn = Object.prototype.hasOwnProperty;
const RESOURCE_ROOT_METADATA = new Set(['name', 'generateName']);

class RuleWalker {
  private stopped = false;
  private readonly envKey: string;

  constructor(
    private readonly view: SchemaView,
    private readonly options: RuleValidationOptions,
    private readonly budget: CostBudget,
    private readonly out: RuleValidationResult,
  ) {
    this.envKey = `${options.mode ?? 'stored'}|${options.compatibilityVersion ?? ''}|${options.authorizeWithSelectors ?? ''}`;
  }

  /**
   * `ruleNode` holds the rules, `typeNode` the types (the same node except under allOf). `old` is the
   * correlated old value (undefined: none).
   */
  visit(ruleNode: SchemaNode, typeNode: SchemaNode, path: string, value: unknown, old: unknown, ratchet: Ratchet, resourceRoot: boolean): void {
    if (this.stopped || value === null || value === undefined) return;
    this.expressions(ruleNode, typeNode, path, value, old, ratchet, resourceRoot);
    if (this.stopped) return;

    const allOf = (ruleNode as { allOf?: unknown }).allOf;
    if (Array.isArray(allOf)) {
      // allOf errors are not ratcheted on their own node (Kubernetes mirrors schema ratcheting here).
      const branchRatchet: Ratchet = { current: null, nearest: ratchet.nearest };
      for (const b of allOf) {
        if (b === null || typeof b !== 'object' || !this.has(b as SchemaNode)) continue;
        this.visit(b as SchemaNode, typeNode, path, value, old, branchRatchet, resourceRoot);
        if (this.stopped) return;
      }
    }

    const v = this.view;
    if (Array.isArray(value)) {
      const itemsRule = v.items(ruleNode);
      const itemsType = v.items(typeNode);
      if (itemsRule === undefined || itemsType === undefined || !this.has(itemsRule)) return;
      // oldSelf of list elements: only lists of type map correlate (by key).
      const oldItems = MapListLookup.of(typeNode, old, v);
      const embedded = v.embeddedResource(itemsType);
      for (let i = 0; i < value.length; i++) {
        const el: unknown = value[i];
        this.visit(itemsRule, itemsType, `${path}[${i}]`, el, oldItems?.get(el), ratchetIndex(ratchet, i), embedded);
        if (this.stopped) return;
      }
      return;
    }
    if (!isObject(value)) return;
    const oldObj = isObject(old) ? old : undefined;

    const apRule = v.additionalProperties(ruleNode);
    const apType = v.additionalProperties(typeNode);
    if (apRule !== undefined && apType !== undefined && this.has(apRule) && this.typed(apType)) {
      const embedded = v.embeddedResource(apType);
      for (const k of Object.keys(value)) {
        this.visit(apRule, apType, `${path}[${k}]`, value[k], oldObj?.[k], ratchetKey(ratchet, k), embedded);
        if (this.stopped) return;
      }
    }

    const propsRule = v.properties(ruleNode);
    const propsType = v.properties(typeNode);
    if (propsRule === undefined || propsType === undefined) return;
    for (const k of Object.keys(value)) {
      if (!hasOwn.call(propsRule, k) || !hasOwn.call(propsType, k)) continue;
      const childRule = propsRule[k]!;
      const childType = propsType[k]!;
      if (!this.has(childRule) || !this.typed(childType)) continue;
      const childPath = path === '' ? k : `${path}.${k}`;
      if (resourceRoot && k === 'metadata') {
        this.metadata(childRule, childType, childPath, value[k], oldObj?.[k], ratchetKey(ratchet, k));
      } else {
        this.visit(childRule, childType, childPath, value[k], oldObj?.[k], ratchetKey(ratchet, k), v.embeddedResource(childType));
      }
      if (this.stopped) return;
    }
  }

  /** A resource's metadata: CEL sees only name and generateName, so only their rules run. */
  private metadata(ruleNode: SchemaNode, typeNode: SchemaNode, path: string, value: unknown, old: unknown, ratchet: Ratchet): void {
    if (!isObject(value)) return;
    this.expressions(ruleNode, typeNode, path, value, old, ratchet, false);
    const propsRule = this.view.properties(ruleNode);
    const propsType = this.view.properties(typeNode);
    if (propsRule === undefined || propsType === undefined) return;
    const oldObj = isObject(old) ? old : undefined;
    for (const k of RESOURCE_ROOT_METADATA) {
      if (this.stopped) return;
      if (!hasOwn.call(propsRule, k) || !hasOwn.call(propsType, k)) continue;
      this.visit(propsRule[k]!, propsType[k]!, `${path}.${k}`, value[k], oldObj?.[k], ratchetKey(ratchet, k), false);
    }
  }

  private has(node: SchemaNode): boolean {
    return hasValidationRules(node, this.view.prefix);
  }

  /** Whether CEL has a type for the node (untyped preserved data is invisible to rules, and not walked). */
  private typed(node: SchemaNode): boolean {
    return isTyped(node, this.view);
  }

  private compileOptions(resourceRoot: boolean): Parameters<typeof schemaRuleEnvironment>[1] {
    const o = this.options;
    return {
      mode: o.mode ?? 'stored',
      extensionPrefix: this.view.prefix,
      resourceRoot,
      ...(o.compatibilityVersion !== undefined ? { compatibilityVersion: o.compatibilityVersion } : {}),
      ...(o.authorizeWithSelectors !== undefined ? { authorizeWithSelectors: o.authorizeWithSelectors } : {}),
    };
  }

  private rulesOf(ruleNode: SchemaNode, typeNode: SchemaNode, resourceRoot: boolean): readonly NodeRule[] {
    const raw = this.view.ext(ruleNode, 'validations');
    if (!Array.isArray(raw) || raw.length === 0) return [];
    let byType = compiledCache.get(ruleNode);
    if (byType === undefined) compiledCache.set(ruleNode, (byType = new WeakMap()));
    let byKey = byType.get(typeNode);
    if (byKey === undefined) byType.set(typeNode, (byKey = new Map()));
    const key = `${this.envKey}|${this.view.prefix}|${resourceRoot}`;
    let rules = byKey.get(key);
    if (rules === undefined) {
      const env = schemaRuleEnvironment(typeNode, this.compileOptions(resourceRoot));
      rules = (raw as ValidationRule[]).map((r) => ({
        compiled: compileRuleIn(env, r),
        fieldPath: typeof r.fieldPath === 'string' && r.fieldPath !== '' ? normalizeRuleFieldPath(r.fieldPath, typeNode, this.view) : undefined,
      }));
      byKey.set(key, rules);
    }
    return rules;
  }

  private stop(): void {
    this.stopped = true;
  }

  private expressions(ruleNode: SchemaNode, typeNode: SchemaNode, path: string, value: unknown, old: unknown, ratchet: Ratchet, resourceRoot: boolean): void {
    const rules = this.rulesOf(ruleNode, typeNode, resourceRoot);
    if (rules.length === 0) return;
    const type = this.view.type(typeNode) ?? '';
    const errors = this.out.errors;
    if (this.budget.remaining <= 0) {
      errors.push(invalidValue(path, type, OUT_OF_BUDGET));
      return this.stop();
    }
    const hasOld = old !== undefined && old !== null;
    for (const { compiled: rule, fieldPath } of rules) {
      if (rule.error !== undefined) {
        errors.push(invalidValue(path, type, `rule compile error: ${rule.error.detail}`));
        continue;
      }
      if (rule.compiled === undefined) continue; // a blank rule
      const activation = ruleActivation(rule, { self: value, oldSelf: hasOld ? old : undefined, hasOldSelf: hasOld });
      if (activation === undefined) continue; // a transition rule without an old value
      const shown = ruleErrorString(rule.rule);

      let result: unknown;
      try {
        result = this.budget.evaluate(rule.compiled.program, activation);
      } catch (e) {
        if (e instanceof CostBudgetExceededError) {
          errors.push(invalidValue(path, type, OUT_OF_BUDGET));
          return this.stop();
        }
        if (e instanceof CelCostError) {
          errors.push(invalidValue(path, type, callCostExceededDetail(shown)));
          return this.stop();
        }
        const msg = e instanceof CelEvalError || e instanceof Error ? e.message : String(e);
        errors.push(
          invalidValue(
            path,
            type,
            msg.startsWith('no such overload')
              ? `'${msg}': call arguments did not match a supported operator, function or macro signature for rule: ${shown}`
              : `${msg} evaluating rule: ${shown}`,
          ),
        );
        continue;
      }
      if (result === true) continue;

      const at = fieldPath === undefined ? path : path === '' ? fieldPath : `${path}.${fieldPath}`;
      const ratcheted = !rule.usesOldSelf && shouldRatchet(ratchet);
      const add = (e: FieldError): void => {
        if (ratcheted) this.out.warnings.push(errorString(e));
        else errors.push(e);
      };

      let detail: string | undefined;
      if (rule.messageExpression !== undefined) {
        try {
          const m = this.budget.evaluate(rule.messageExpression.program, activation);
          detail = usableMessage(m);
        } catch (e) {
          if (e instanceof CostBudgetExceededError) {
            add(invalidValue(at, type, MESSAGE_EXPRESSION_OUT_OF_BUDGET));
            return this.stop();
          }
          if (e instanceof CelCostError) {
            add(invalidValue(at, type, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(rule.rule.messageExpression)}`));
            return this.stop();
          }
          // Any other failure of the message falls back to the static message (Kubernetes only logs it).
        }
      }
      add(fieldErrorForReason(at, type, detail ?? ruleMessageOrDefault(rule.rule), rule.rule.reason));
    }
  }
}

/** A messageExpression result Kubernetes shows: trimmed, non-empty, at most 5 KiB, one line. */
function usableMessage(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = v.trim();
  if (m === '' || m.includes('\n') || Buffer.byteLength(m, 'utf8') > MAX_EVALUATED_MESSAGE_BYTES) return undefined;
  return m;
}

function ruleMessageOrDefault(rule: ValidationRule): string {
  return rule.message !== undefined && rule.message !== '' ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
}

/** How errors name a rule: its message when it has one, else its expression. */
function ruleErrorString(rule: ValidationRule): string {
  return rule.message !== undefined && rule.message !== '' ? rule.message.trim() : rule.rule.trim();
}

function fieldErrorForReason(path: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, type);
    default:
      return invalidValue(path, type, detail);
  }
}
