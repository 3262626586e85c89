/**
 * Compiling a ValidatingAdmissionPolicy's expressions at write time, as Kubernetes' validation does, in
 * the admission scope of `cel/environment/admission.ts`:
 *
 * | expression                         | environment                                                    |
 * |------------------------------------|----------------------------------------------------------------|
 * | matchConditions[].expression       | no `variables`; `params` with a paramKind; authorizer          |
 * | variables[].expression             | the variables before it; `params` with a paramKind; authorizer |
 * | validations[].expression           | every variable; `params` with a paramKind; authorizer          |
 * | validations[].messageExpression    | every variable; `params` with a paramKind; no authorizer       |
 * | auditAnnotations[].valueExpression | every variable; `params` with a paramKind; authorizer          |
 *
 * An expression the stored policy already has (same text, same field kind) compiles in the environment
 * for stored expressions, so an update never fails on what is already there (Kubernetes' "preexisting
 * expressions"; variables are looked up among the old validations' expressions, as upstream does).
 * A variable whose expression is blank is left out of `variables` (Kubernetes never compiles it).
 *
 * No estimated-cost check: policies are bounded at run time, per evaluation (upstream has no write-time
 * cost limit for them).
 */
import {
  admissionEnvironment,
  compileAuditAnnotation,
  compileMatchCondition,
  compileMessageExpression,
  compileValidation,
  composeVariables,
  type AdmissionCompilation,
  type CompiledVariable,
  type PolicyVariable,
} from '../../../cel/environment/admission.js';
import type { ExpressionMode } from '../../../cel/environment/base.js';
import type { ExpressionEnvironment } from '../../../cel/environment/compile.js';
import { internalError, invalidValue, type FieldError, type FieldPath } from '../../../validation/field-error.js';

/** The expressions of the stored policy, by field kind (empty on create). */
export interface PreexistingExpressions {
  readonly matchConditions: ReadonlySet<string>;
  readonly validations: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
  readonly auditAnnotations: ReadonlySet<string>;
}

export const NO_PREEXISTING: PreexistingExpressions = Object.freeze({
  matchConditions: new Set<string>(),
  validations: new Set<string>(),
  messageExpressions: new Set<string>(),
  auditAnnotations: new Set<string>(),
});

export class PolicyCompiler {
  private readonly compositions = new Map<string, ReturnType<typeof composeVariables>>();

  constructor(
    private readonly hasParams: boolean,
    /** The policy's variables with a non-blank expression, in order. */
    private readonly variables: readonly PolicyVariable[],
    private readonly preexisting: PreexistingExpressions,
  ) {}

  private modeOf(set: ReadonlySet<string>, expression: string): ExpressionMode {
    return set.has(expression) ? 'stored' : 'new';
  }

  /** The environment with the policy's variables (none declared when the policy has none, as upstream). */
  private environment(mode: ExpressionMode, hasAuthorizer: boolean): ExpressionEnvironment {
    const base = admissionEnvironment({ mode, hasParams: this.hasParams, hasAuthorizer });
    if (this.variables.length === 0) return base;
    return this.composition(mode, hasAuthorizer).environment;
  }

  private composition(mode: ExpressionMode, hasAuthorizer: boolean): ReturnType<typeof composeVariables> {
    const key = `${mode}|${hasAuthorizer}`;
    let c = this.compositions.get(key);
    if (c === undefined) {
      c = composeVariables(admissionEnvironment({ mode, hasParams: this.hasParams, hasAuthorizer }), this.variables);
      this.compositions.set(key, c);
    }
    return c;
  }

  matchCondition(expression: string): AdmissionCompilation {
    const mode = this.modeOf(this.preexisting.matchConditions, expression);
    return compileMatchCondition(admissionEnvironment({ mode, hasParams: this.hasParams, hasAuthorizer: true }), expression);
  }

  /** The compilation of `v`, one of the variables given to the constructor (the same object). */
  variable(v: PolicyVariable): CompiledVariable | undefined {
    const index = this.variables.indexOf(v);
    if (index < 0) return undefined;
    return this.composition(this.modeOf(this.preexisting.validations, v.expression), true).variables[index];
  }

  validation(expression: string): AdmissionCompilation {
    return compileValidation(this.environment(this.modeOf(this.preexisting.validations, expression), true), expression);
  }

  messageExpression(expression: string): AdmissionCompilation {
    return compileMessageExpression(this.environment(this.modeOf(this.preexisting.messageExpressions, expression), false), expression);
  }

  auditAnnotation(expression: string, stored: boolean): AdmissionCompilation {
    return compileAuditAnnotation(this.environment(stored ? 'stored' : 'new', true), expression);
  }
}

/** Kubernetes' field error for a compile failure: Invalid with the expression, or an internal error. */
export function compilationErrors(result: AdmissionCompilation, path: FieldPath, shown = result.expression): FieldError[] {
  if (result.error === undefined) return [];
  if (result.error.type === 'Internal') return [internalError(path, result.error.detail)];
  return [invalidValue(path, shown, result.error.detail)];
}
