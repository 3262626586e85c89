/**
 * The admission policy kinds in protobuf: a policy and a binding encoded by the server's schema-driven
 * codec are read back by protobufjs with an independent description of the admissionregistration/v1
 * messages (written below from generated.proto's numbers), including NamedRuleWithOperations' Go embedded
 * structs nested two deep (RuleWithOperations = 2, its Rule = 2), and round-trip through the server's
 * decoder unchanged.
 */
import protobuf from 'protobufjs';
import { decodeProtobuf, encodeMessage, objectProtobuf } from '../../../codec/protobuf/protobuf-codec.js';
import type { KubeObject } from '../../../api/object.js';
import { validatingAdmissionPolicyBindings as bindings } from './validating-admission-policy-binding.js';
import { validatingAdmissionPolicies as policies } from './validating-admission-policy.js';
import { createAs } from './testing.js';

const PROTO = `
syntax = "proto2";
package ar;
message LabelSelectorRequirement { optional string key = 1; optional string operator = 2; repeated string values = 3; }
message LabelSelector { map<string, string> matchLabels = 1; repeated LabelSelectorRequirement matchExpressions = 2; }
message Rule { repeated string apiGroups = 1; repeated string apiVersions = 2; repeated string resources = 3; optional string scope = 4; }
message RuleWithOperations { repeated string operations = 1; optional Rule rule = 2; }
message NamedRuleWithOperations { repeated string resourceNames = 1; optional RuleWithOperations ruleWithOperations = 2; }
message MatchResources {
  optional LabelSelector namespaceSelector = 1; optional LabelSelector objectSelector = 2;
  repeated NamedRuleWithOperations resourceRules = 3; repeated NamedRuleWithOperations excludeResourceRules = 4; optional string matchPolicy = 7;
}
message ParamKind { optional string apiVersion = 1; optional string kind = 2; }
message Validation { optional string Expression = 1; optional string message = 2; optional string reason = 3; optional string messageExpression = 4; }
message AuditAnnotation { optional string key = 1; optional string valueExpression = 2; }
message MatchCondition { optional string name = 1; optional string expression = 2; }
message Variable { optional string Name = 1; optional string Expression = 2; }
message Spec {
  optional ParamKind paramKind = 1; optional MatchResources matchConstraints = 2; repeated Validation validations = 3;
  optional string failurePolicy = 4; repeated AuditAnnotation auditAnnotations = 5; repeated MatchCondition matchConditions = 6;
  repeated Variable variables = 7;
}
message ExpressionWarning { optional string fieldRef = 2; optional string warning = 3; }
message TypeChecking { repeated ExpressionWarning expressionWarnings = 1; }
message Status { optional int64 observedGeneration = 1; optional TypeChecking typeChecking = 2; }
message Policy { optional Spec spec = 2; optional Status status = 3; }
message ParamRef { optional string name = 1; optional string namespace = 2; optional LabelSelector selector = 3; optional string parameterNotFoundAction = 4; }
message BindingSpec { optional string policyName = 1; optional ParamRef paramRef = 2; optional MatchResources matchResources = 3; repeated string validationActions = 4; }
message Binding { optional BindingSpec spec = 2; }
`;
const root = protobuf.parse(PROTO).root;
const read = (name: string, bytes: Uint8Array): Record<string, unknown> => {
  const t = root.lookupType(`ar.${name}`);
  return t.toObject(t.decode(bytes), { longs: Number, defaults: false }) as Record<string, unknown>;
};

const policy: KubeObject = createAs(policies, {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'p' },
  spec: {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      resourceRules: [{ resourceNames: ['web'], operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'deployments/scale'], scope: 'Namespaced' }],
      excludeResourceRules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['*'], resources: ['pods'] }],
      objectSelector: { matchLabels: { a: 'b' } },
    },
    validations: [{ expression: 'true', message: 'm', reason: 'Forbidden', messageExpression: "'x'" }],
    auditAnnotations: [{ key: 'k', valueExpression: "'v'" }],
    matchConditions: [{ name: 'n', expression: 'true' }],
    variables: [{ name: 'v', expression: '1' }],
  },
}).obj;

test('a policy reads back from the independent description, rules nested as Go embeds them', () => {
  const msg = read('Policy', encodeMessage(policies.schema, { ...policy, status: { observedGeneration: 3, typeChecking: { expressionWarnings: [{ fieldRef: 'f', warning: 'w' }] } } }));
  expect(msg.spec).toEqual({
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      namespaceSelector: {},
      objectSelector: { matchLabels: { a: 'b' } },
      resourceRules: [
        {
          resourceNames: ['web'],
          ruleWithOperations: { operations: ['CREATE'], rule: { apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments', 'deployments/scale'], scope: 'Namespaced' } },
        },
      ],
      excludeResourceRules: [{ ruleWithOperations: { operations: ['*'], rule: { apiGroups: [''], apiVersions: ['*'], resources: ['pods'], scope: '*' } } }],
      matchPolicy: 'Equivalent',
    },
    validations: [{ Expression: 'true', message: 'm', reason: 'Forbidden', messageExpression: "'x'" }],
    failurePolicy: 'Fail',
    auditAnnotations: [{ key: 'k', valueExpression: "'v'" }],
    matchConditions: [{ name: 'n', expression: 'true' }],
    variables: [{ Name: 'v', Expression: '1' }],
  });
  expect(msg.status).toEqual({ observedGeneration: 3, typeChecking: { expressionWarnings: [{ fieldRef: 'f', warning: 'w' }] } });
});

test('a policy and a binding round-trip through the server codec unchanged', () => {
  const decoded = decodeProtobuf(objectProtobuf(policies.schema, policy, undefined).bytes, policies.schema);
  expect(decoded.unknown).toEqual([]);
  expect({ apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value }).toEqual(policy);

  const binding = createAs(bindings, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'b' },
    spec: {
      policyName: 'p',
      paramRef: { selector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] }, namespace: 'ns', parameterNotFoundAction: 'Deny' },
      matchResources: { resourceRules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['*/scale'] }] },
      validationActions: ['Warn', 'Audit'],
    },
  }).obj;
  const b = decodeProtobuf(objectProtobuf(bindings.schema, binding, undefined).bytes, bindings.schema);
  expect({ apiVersion: b.apiVersion, kind: b.kind, ...b.value }).toEqual(binding);
  expect(read('Binding', encodeMessage(bindings.schema, binding)).spec).toMatchObject({
    policyName: 'p',
    paramRef: { namespace: 'ns', parameterNotFoundAction: 'Deny', selector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] } },
    matchResources: { resourceRules: [{ ruleWithOperations: { operations: ['UPDATE'], rule: { resources: ['*/scale'], scope: '*' } } }] },
    validationActions: ['Warn', 'Audit'],
  });
});
