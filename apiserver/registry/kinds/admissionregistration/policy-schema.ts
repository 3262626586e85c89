/**
 * The schema of ValidatingAdmissionPolicy (`admissionregistration.<domain>/v1`), shaped as Kubernetes
 * v1.32 serves it, with the field numbers of `k8s.io/api/admissionregistration/v1/generated.proto` beside
 * every message (spec = 2, status = 3; `metadata` = 1 comes from `kindSchema`).
 *
 * Defaults: `spec.failurePolicy` Fail (SetDefaults_ValidatingAdmissionPolicySpec); MatchResources and its
 * rules as match-resources-schema.ts says. Strings Go always writes (a Validation's `expression`, a
 * Variable's `name`...) default to "" so that a missing one fails the kind's validation with Kubernetes'
 * message rather than the schema's.
 *
 * `status.conditions` are metav1.Condition.
 */
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr, type Schema } from '../../../schema/schema.js';
import { atomicList, int64, keyedList, obj, requiredStr, str, struct, time } from '../shared/schema-builders.js';
import { matchResourcesSchema } from './match-resources-schema.js';

export const paramKindSchema: Schema = obj(
  'The kind of the parameter objects of a policy.',
  {
    apiVersion: str('The group and version of the kind, as "group/version" ("v1" for the core group).'),
    kind: str('The kind of the parameter objects.'),
  },
  undefined,
  { 'x-kubernetes-map-type': 'atomic', protobuf: { apiVersion: 1, kind: 2 } },
);

export const validationSchema: Schema = obj(
  'One CEL check of a policy: the request is valid when the expression evaluates to true.',
  {
    expression: requiredStr(
      'A CEL expression that evaluates to a bool. Variables: object, oldObject, request, params, namespaceObject, variables, authorizer and authorizer.requestResource.',
    ),
    message: str('The failure message (one line). Without message and messageExpression it is "failed expression: <expression>".'),
    messageExpression: str(
      'A CEL expression that evaluates to the failure message; used instead of message when it evaluates to a non-empty single line. Sees the same variables as expression but the authorizer.',
    ),
    reason: str('The reason of the denial, and with it the HTTP code: Invalid (default, 422), Forbidden (403) or RequestEntityTooLarge (413).'),
  },
  ['expression'],
  { protobuf: { expression: 1, message: 2, reason: ptr(3), messageExpression: 4 } },
);

export const auditAnnotationSchema: Schema = obj(
  'An audit annotation a policy adds to the audit event of a request it matches.',
  {
    key: requiredStr('The key, unique within the policy: a qualified name of at most 63 bytes. The annotation is recorded as "<policy name>/<key>".'),
    valueExpression: requiredStr(
      'A CEL expression that evaluates to a string (the value; empty omits the annotation) or null (omitted). At most 5 KiB; values over 10 KiB are truncated.',
    ),
  },
  ['key', 'valueExpression'],
  { protobuf: { key: 1, valueExpression: 2 } },
);

export const matchConditionSchema: Schema = obj(
  'A CEL condition a request must meet, after the rules and selectors, for the policy to apply.',
  {
    expression: requiredStr('A CEL expression that evaluates to a bool. Variables: object, oldObject, request, params (with a paramKind), authorizer.'),
    name: requiredStr('A unique name: a qualified name with an optional DNS subdomain prefix and "/".'),
  },
  ['name', 'expression'],
  { protobuf: { name: 1, expression: 2 } },
);

export const variableSchema: Schema = obj(
  'A named CEL expression, read by the policy\'s other expressions (but matchConditions) as variables.<name>.',
  {
    expression: requiredStr('The CEL expression; it sees the variables defined before it.'),
    name: requiredStr('A CEL identifier, unique among the variables.'),
  },
  ['name', 'expression'],
  { 'x-kubernetes-map-type': 'atomic', protobuf: { name: 1, expression: 2 } },
);

const expressionWarningSchema: Schema = obj(
  'A type checking warning about one expression.',
  {
    fieldRef: requiredStr('The path of the expression, such as "spec.validations[0].expression".'),
    warning: requiredStr('What the type check found, per checked kind.'),
  },
  ['fieldRef', 'warning'],
  { protobuf: { fieldRef: 2, warning: 3 } },
);

export const typeCheckingSchema: Schema = obj(
  'The results of type checking the expressions of the policy.',
  { expressionWarnings: atomicList({ ...expressionWarningSchema, default: {} }, 'The warnings, per expression.') },
  undefined,
  { protobuf: { expressionWarnings: 1 } },
);

/** metav1.Condition. */
export const conditionSchema: Schema = obj(
  'One aspect of the current state of an object.',
  {
    lastTransitionTime: time('When the condition last changed status.'),
    message: requiredStr('A human readable message about the transition.'),
    observedGeneration: int64('The metadata.generation the condition was set for.'),
    reason: requiredStr('A CamelCase, machine readable reason for the last transition.'),
    status: requiredStr('True, False or Unknown.'),
    type: requiredStr('The type of the condition, in CamelCase or foo.example.com/CamelCase.'),
  },
  // lastTransitionTime is required too, but its absence is the kind's validation's error (`must be set`).
  ['type', 'status', 'reason', 'message'],
  { protobuf: { type: 1, status: 2, observedGeneration: 3, lastTransitionTime: 4, reason: 5, message: 6 } },
);

export const policySpecSchema: Schema = obj(
  'The desired behavior of a ValidatingAdmissionPolicy.',
  {
    auditAnnotations: atomicList({ ...auditAnnotationSchema, default: {} }, 'Audit annotations the policy produces. validations and auditAnnotations may not both be empty.'),
    failurePolicy: str(
      'Ignore or Fail (default): what happens when the policy cannot be evaluated (a compile or run-time error, a missing paramKind or param). It does not govern validations that evaluate to false.',
      { default: 'Fail' },
    ),
    matchConditions: keyedList(matchConditionSchema, 'Conditions a request must meet for the policy to apply (at most 64); any false skips the policy.', ['name']),
    matchConstraints: { ...matchResourcesSchema, description: 'The requests the policy validates (resourceRules required). A policy never matches policies or bindings.' },
    paramKind: { ...paramKindSchema, description: 'The kind of the parameter objects bindings refer to; without it, expressions have no params.' },
    validations: atomicList({ ...validationSchema, default: {} }, 'The CEL checks. validations and auditAnnotations may not both be empty.'),
    variables: keyedList(variableSchema, 'Variables the other expressions of the policy (but matchConditions) use, each seeing the ones before it.', ['name']),
  },
  undefined,
  {
    protobuf: {
      paramKind: ptr(1),
      matchConstraints: ptr(2),
      validations: 3,
      failurePolicy: ptr(4),
      auditAnnotations: 5,
      matchConditions: 6,
      variables: 7,
    },
  },
);

export const policyStatusSchema: Schema = obj(
  'The observed state of a ValidatingAdmissionPolicy, written by the server.',
  {
    // A list-map for apply; strategic merge patch replaces it whole (no patch strategy upstream).
    conditions: {
      type: 'array',
      description: 'The latest observations of the policy\'s state.',
      items: { ...conditionSchema, default: {} },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    },
    observedGeneration: int64('The generation of the policy the status was computed for.'),
    typeChecking: { ...typeCheckingSchema, description: 'The results of type checking; present once the policy was checked.' },
  },
  undefined,
  { protobuf: { observedGeneration: 1, typeChecking: ptr(2), conditions: 3 } },
);

export const policySchema: Schema = kindSchema(
  'A policy that accepts or rejects requests with CEL expressions, without changing them.',
  {
    spec: struct(policySpecSchema, 'The desired behavior of the policy.'),
    status: struct(policyStatusSchema, 'The status of the policy (type checking results), written by the server.'),
  },
  undefined,
  { spec: 2, status: 3 },
);
