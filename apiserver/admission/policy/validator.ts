/**
 * One evaluation of a compiled policy for one binding and one param object (Kubernetes' validating
 * `validator.Validate`), giving decisions and audit annotations:
 *
 * 1. matchConditions (budget 2.5M, no `variables`): any false skips the policy (no decisions); otherwise
 *    any error (or the budget running out) decides by failurePolicy: `Fail` one deny decision with the
 *    errors (aggregated `[a, b]`), `Ignore` skips;
 * 2. validations (budget 10M): each true admits; false denies with its reason (default Invalid) and
 *    message; an error decides by failurePolicy (`Ignore` admits, `Fail` denies with the error); the budget
 *    running out is one decision by failurePolicy;
 * 3. messageExpressions, every one of them (Kubernetes evaluates them all), on what the validations left
 *    of the budget. The message of a failed validation is the trimmed messageExpression result unless it
 *    is not a string, empty, longer than 5 KiB or has a newline (an error falls back too), then the
 *    trimmed `message`, then `failed expression: <expression>`. When the budget runs out here every
 *    validation decides by failurePolicy with `failed messageExpression: <error>`;
 * 4. auditAnnotations (their own 10M): a trimmed non-empty string is published, empty or null is left
 *    out, another type is an error whatever the failurePolicy; an evaluation error is an error under
 *    `Fail` and left out under `Ignore`; the budget running out replaces every decision with one by
 *    failurePolicy.
 */
import { RUNTIME_CEL_COST_BUDGET, RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from '../../cel/cost/limits.js';
import type { AdmissionCompilation, AdmissionInput } from '../../cel/environment/admission.js';
import { typeNameOf } from '../../cel/values/type-of.js';
import type { CompiledPolicy } from './compiled-policy.js';
import { aggregateMessage, evaluateList } from './expression-evaluation.js';

/** Kubernetes' `MaxEvaluatedMessageExpressionSizeBytes`. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

export interface PolicyDecision {
  readonly action: 'admit' | 'deny';
  readonly evaluation: 'admit' | 'deny' | 'error';
  readonly message: string;
  /** The validation's reason for an `evaluation: 'deny'`; '' otherwise (answered as Invalid). */
  readonly reason: string;
}

export type AuditAnnotationResult =
  | { readonly action: 'publish'; readonly key: string; readonly value: string }
  | { readonly action: 'error'; readonly key: string; readonly error: string }
  | { readonly action: 'exclude'; readonly key: string };

export interface ValidateResult {
  readonly decisions: readonly PolicyDecision[];
  readonly auditAnnotations: readonly AuditAnnotationResult[];
}

const errorDecision = (failurePolicy: string, message: string): PolicyDecision => ({
  action: failurePolicy === 'Ignore' ? 'admit' : 'deny',
  evaluation: 'error',
  message,
  reason: '',
});

const ADMIT: PolicyDecision = Object.freeze({ action: 'admit', evaluation: 'admit', message: '', reason: '' });
const only = (d: PolicyDecision): ValidateResult => ({ decisions: [d], auditAnnotations: [] });
const NOTHING: ValidateResult = Object.freeze({ decisions: [], auditAnnotations: [] });

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/** A policy's expression lists, made once per compiled policy (not per request). */
interface Lists {
  readonly matchConditions: readonly (AdmissionCompilation | undefined)[];
  readonly validations: readonly (AdmissionCompilation | undefined)[];
  readonly messages: readonly (AdmissionCompilation | undefined)[];
  readonly audit: readonly (AdmissionCompilation | undefined)[];
}
const listsOf = new WeakMap<CompiledPolicy, Lists>();
function lists(p: CompiledPolicy): Lists {
  let l = listsOf.get(p);
  if (l === undefined) {
    l = {
      matchConditions: p.matchConditions.map((m) => m.compiled),
      validations: p.validations.map((v) => v.compiled),
      messages: p.validations.map((v) => v.messageExpression),
      audit: p.auditAnnotations.map((a) => a.compiled),
    };
    listsOf.set(p, l);
  }
  return l;
}

/** `input` without `authorizer` is what messageExpressions and auditAnnotations see of it. */
export function validatePolicy(p: CompiledPolicy, input: AdmissionInput): ValidateResult {
  const f = p.failurePolicy;
  const l = lists(p);

  if (p.matchConditions.length > 0) {
    const out = evaluateList(
      l.matchConditions,
      input,
      RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS,
    );
    if (out.outOfBudget !== undefined) return f === 'Ignore' ? NOTHING : only(errorDecision(f, out.outOfBudget));
    const errors: string[] = [];
    for (const r of out.results) {
      if (r === undefined) continue;
      if (r.error !== undefined) errors.push(r.error);
      else if (r.value === false) return NOTHING;
    }
    if (errors.length > 0) return f === 'Ignore' ? NOTHING : only(errorDecision(f, aggregateMessage(errors)));
  }

  const validations = evaluateList(
    l.validations,
    input,
    RUNTIME_CEL_COST_BUDGET,
    p.variables,
  );
  if (validations.outOfBudget !== undefined) return only(errorDecision(f, validations.outOfBudget));
  // Only made when a messageExpression or an audit annotation will read it.
  const needsPlain = p.auditAnnotations.length > 0 || l.messages.some((m) => m !== undefined);
  const withoutAuthorizer: AdmissionInput = needsPlain ? { ...input, authorizer: undefined, requestResourceAuthorizer: undefined } : input;
  // Every messageExpression is evaluated, as Kubernetes does (running out of budget there denies even
  // when every validation passed); a policy without any costs nothing here (evaluateList).
  const messages = evaluateList(l.messages, withoutAuthorizer, validations.remaining, p.messageVariables);

  const decisions: PolicyDecision[] = p.validations.map((v, i) => {
    const r = validations.results[i]!;
    if (r.error !== undefined) return errorDecision(f, r.error);
    if (messages.outOfBudget !== undefined) return errorDecision(f, `failed messageExpression: ${messages.outOfBudget}`);
    if (r.value === true) return ADMIT;
    let message = '';
    const m = messages.results[i];
    if (m !== undefined && m.error === undefined && typeof m.value === 'string') {
      message = m.value.trim();
      if (utf8Length(message) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || message.includes('\n')) message = '';
    }
    if (message === '' && v.message.length > 0) message = v.message.trim();
    if (message === '') message = `failed expression: ${v.expression.trim()}`;
    return { action: 'deny', evaluation: 'deny', message, reason: v.reason === '' ? 'Invalid' : v.reason };
  });

  const audit = evaluateList(
    l.audit,
    withoutAuthorizer,
    RUNTIME_CEL_COST_BUDGET,
    p.variables,
  );
  if (audit.outOfBudget !== undefined) return only(errorDecision(f, audit.outOfBudget));
  const auditAnnotations: AuditAnnotationResult[] = p.auditAnnotations.map((a, i) => {
    const r = audit.results[i]!;
    if (r.error !== undefined) return f === 'Ignore' ? { action: 'exclude', key: a.key } : { action: 'error', key: a.key, error: r.error };
    if (typeof r.value === 'string') {
      const value = r.value.trim();
      return value === '' ? { action: 'exclude', key: a.key } : { action: 'publish', key: a.key, value };
    }
    if (r.value === null) return { action: 'exclude', key: a.key };
    return {
      action: 'error',
      key: a.key,
      error: `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${typeNameOf(r.value)}. Return type must be either string or null.`,
    };
  });
  return { decisions, auditAnnotations };
}
