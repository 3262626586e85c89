/**
 * The admissionregistration v1 shapes the plugin reads: ValidatingAdmissionPolicy and
 * ValidatingAdmissionPolicyBinding as plain Kubernetes JSON (exactly v1's field names), whatever serves
 * them. Every field is optional here: the kinds validate and default what they store, and the plugin
 * treats what is still missing the way Kubernetes' admission code treats a nil field.
 */
import type { KubeObject } from '../../api/object.js';
import type { LabelSelectorObject } from '../../selectors/label-selector-object.js';

export type FailurePolicy = 'Fail' | 'Ignore';
export type ValidationAction = 'Deny' | 'Warn' | 'Audit';
export type RuleScope = 'Cluster' | 'Namespaced' | '*';

export interface NamedRuleWithOperations {
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  /** `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`. */
  readonly operations?: readonly string[];
  readonly scope?: RuleScope;
  readonly resourceNames?: readonly string[];
}

export interface MatchResources {
  readonly namespaceSelector?: LabelSelectorObject | null;
  readonly objectSelector?: LabelSelectorObject | null;
  readonly resourceRules?: readonly NamedRuleWithOperations[];
  readonly excludeResourceRules?: readonly NamedRuleWithOperations[];
  /** Default (the API's) `Equivalent`. */
  readonly matchPolicy?: 'Exact' | 'Equivalent';
}

export interface ParamKind {
  /** `group/version`, or `v1` for the core group. */
  readonly apiVersion?: string;
  readonly kind?: string;
}

export interface Validation {
  readonly expression?: string;
  readonly message?: string;
  /** `Unauthorized`, `Forbidden`, `Invalid` (default), `RequestEntityTooLarge`. */
  readonly reason?: string;
  readonly messageExpression?: string;
}

export interface AuditAnnotation {
  readonly key?: string;
  readonly valueExpression?: string;
}

export interface MatchCondition {
  readonly name?: string;
  readonly expression?: string;
}

export interface Variable {
  readonly name?: string;
  readonly expression?: string;
}

export interface ValidatingAdmissionPolicySpec {
  readonly paramKind?: ParamKind | null;
  readonly matchConstraints?: MatchResources | null;
  readonly validations?: readonly Validation[];
  readonly failurePolicy?: FailurePolicy;
  readonly auditAnnotations?: readonly AuditAnnotation[];
  readonly matchConditions?: readonly MatchCondition[];
  readonly variables?: readonly Variable[];
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  readonly spec?: ValidatingAdmissionPolicySpec;
}

export interface ParamRef {
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: LabelSelectorObject | null;
  /** `Allow` or `Deny`; the API requires it (unset behaves as Allow). */
  readonly parameterNotFoundAction?: 'Allow' | 'Deny';
}

export interface ValidatingAdmissionPolicyBindingSpec {
  readonly policyName?: string;
  readonly paramRef?: ParamRef | null;
  readonly matchResources?: MatchResources | null;
  readonly validationActions?: readonly ValidationAction[];
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  readonly spec?: ValidatingAdmissionPolicyBindingSpec;
}
