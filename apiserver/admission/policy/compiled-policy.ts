/**
 * A policy and a binding compiled completely, once per generation: every CEL program of the policy
 * (matchConditions, variables, validations, messageExpressions, auditAnnotations) and the parsed
 * selectors. The source swaps a compiled policy in only when it is whole, so a request never meets a
 * half-compiled one.
 *
 * As in Kubernetes, an expression that does not compile is kept with its error: the policy stays active
 * and the error is an evaluation error of that expression (`compilation error: compilation failed: ...`)
 * under the policy's failurePolicy. Expressions compile in the stored-expressions environment (a policy
 * written under an older version keeps working). messageExpressions and their variables have no
 * `authorizer` (Kubernetes declares none there).
 */
import {
  admissionEnvironment,
  compileAuditAnnotation,
  compileMatchCondition,
  compileMessageExpression,
  compileValidation,
  composeVariables,
  type AdmissionCompilation,
  type VariableComposition,
} from '../../cel/environment/admission.js';
import type { GroupVersionKind } from '../attributes.js';
import { compileMatchResources, type CompiledMatchResources } from './match-resources.js';
import type { FailurePolicy, ParamRef, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidationAction } from './policy-types.js';

export interface CompiledValidation {
  readonly expression: string;
  readonly message: string;
  readonly reason: string;
  readonly compiled: AdmissionCompilation;
  readonly messageExpression?: AdmissionCompilation;
}

export interface CompiledAuditAnnotation {
  readonly key: string;
  readonly valueExpression: string;
  readonly compiled: AdmissionCompilation;
}

export interface CompiledParamKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly gvk: GroupVersionKind;
}

export interface CompiledPolicy {
  readonly name: string;
  /** What the compilation is valid for: uid and generation (resourceVersion when no generation). */
  readonly identity: string | undefined;
  readonly policy: ValidatingAdmissionPolicy;
  /** As written; unset is `Fail`. Anything else is Kubernetes' `unrecognized failure policy`. */
  readonly failurePolicy: FailurePolicy | string;
  /** Undefined: the policy has none (Kubernetes: `policy contained no match constraints, a required field`). */
  readonly matchConstraints: CompiledMatchResources | undefined;
  readonly paramKind: CompiledParamKind | undefined;
  /** paramKind.apiVersion does not parse: Kubernetes leaves such a policy out entirely. */
  readonly invalidParamKind: boolean;
  readonly matchConditions: readonly { readonly name: string; readonly compiled: AdmissionCompilation }[];
  /** Variables for validations and auditAnnotations (with the authorizer). */
  readonly variables: VariableComposition;
  /** Variables as messageExpressions see them (no authorizer). */
  readonly messageVariables: VariableComposition;
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
}

export interface CompiledBinding {
  readonly name: string;
  readonly identity: string | undefined;
  readonly binding: ValidatingAdmissionPolicyBinding;
  readonly policyName: string;
  readonly paramRef: ParamRef | undefined;
  /** Undefined: the binding narrows nothing. */
  readonly matchResources: CompiledMatchResources | undefined;
  readonly validationActions: readonly ValidationAction[];
}

/** Kubernetes' `schema.ParseGroupVersion`: `v1` is the core group; more than one `/` does not parse. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0]! };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

/** Go's `GroupVersionKind.String()`: `example.com/v1, Kind=Foo` (`/v1, Kind=ConfigMap` for the core group). */
export const gvkString = (k: GroupVersionKind): string => `${k.group}/${k.version}, Kind=${k.kind}`;

/** uid and generation (or resourceVersion); undefined when the object has neither (its compiled form is never reused). */
export function identityOf(o: { metadata: { uid?: string; generation?: number; resourceVersion?: string } }): string | undefined {
  const m = o.metadata;
  if (m.generation === undefined && (m.resourceVersion === undefined || m.resourceVersion === '')) return undefined;
  return `${m.uid ?? ''}/${m.generation ?? `rv${m.resourceVersion}`}`;
}

export function compilePolicy(policy: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = policy.spec ?? {};
  let paramKind: CompiledParamKind | undefined;
  let invalidParamKind = false;
  if (spec.paramKind !== undefined && spec.paramKind !== null) {
    const apiVersion = spec.paramKind.apiVersion ?? '';
    const kind = spec.paramKind.kind ?? '';
    const gv = parseGroupVersion(apiVersion);
    if (gv === undefined) invalidParamKind = true;
    else paramKind = { apiVersion, kind, gvk: { ...gv, kind } };
  }
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  const env = admissionEnvironment({ mode: 'stored', hasParams, hasAuthorizer: true });
  const messageEnv = admissionEnvironment({ mode: 'stored', hasParams, hasAuthorizer: false });
  const vars = (spec.variables ?? []).map((v) => ({ name: v.name ?? '', expression: v.expression ?? '' }));
  const variables = composeVariables(env, vars);
  const messageVariables = composeVariables(messageEnv, vars);
  return {
    name: policy.metadata.name ?? '',
    identity: identityOf(policy),
    policy,
    failurePolicy: spec.failurePolicy ?? 'Fail',
    matchConstraints: spec.matchConstraints === undefined || spec.matchConstraints === null ? undefined : compileMatchResources(spec.matchConstraints),
    paramKind,
    invalidParamKind,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name ?? '', compiled: compileMatchCondition(env, m.expression ?? '') })),
    variables,
    messageVariables,
    validations: (spec.validations ?? []).map((v) => {
      const expression = v.expression ?? '';
      const compiled: CompiledValidation = {
        expression,
        message: v.message ?? '',
        reason: v.reason ?? '',
        compiled: compileValidation(variables.environment, expression),
        ...(v.messageExpression !== undefined && v.messageExpression !== ''
          ? { messageExpression: compileMessageExpression(messageVariables.environment, v.messageExpression) }
          : {}),
      };
      return compiled;
    }),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({
      key: a.key ?? '',
      valueExpression: a.valueExpression ?? '',
      compiled: compileAuditAnnotation(variables.environment, a.valueExpression ?? ''),
    })),
  };
}

export function compileBinding(binding: ValidatingAdmissionPolicyBinding): CompiledBinding {
  const spec = binding.spec ?? {};
  return {
    name: binding.metadata.name ?? '',
    identity: identityOf(binding),
    binding,
    policyName: spec.policyName ?? '',
    paramRef: spec.paramRef ?? undefined,
    matchResources: spec.matchResources === undefined || spec.matchResources === null ? undefined : compileMatchResources(spec.matchResources),
    validationActions: spec.validationActions ?? [],
  };
}
