/**
 * The built-in kinds' protobuf field numbers (schema `protobuf` maps): complete, unique within each
 * message, and matching Kubernetes v1.32's core/v1 generated.proto (and types.go for pointer fields) at
 * spot values, including the Go embedded structs (`inline`) whose fields JSON flattens.
 */
import type { ProtobufField, Schema } from '../../schema/schema.js';
import { servesProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import { builtinKinds } from './index.js';

/** Protobuf's usable field numbers: 1 to 2^29 - 1, without the reserved 19000-19999. */
const validTag = (n: number): boolean => Number.isInteger(n) && n >= 1 && n < 2 ** 29 && !(n >= 19000 && n <= 19999);

const fieldOf = (f: number | ProtobufField | undefined): ProtobufField | undefined => (typeof f === 'number' ? { tag: f } : f);

interface Node {
  readonly path: string;
  readonly schema: Schema;
}

/** Every schema node under `schema`, with a readable path (`spec.containers[].image`). */
function walk(schema: Schema, path: string, out: Node[] = []): Node[] {
  out.push({ path, schema });
  for (const [name, s] of Object.entries(schema.properties ?? {})) walk(s, path === '' ? name : `${path}.${name}`, out);
  if (schema.items !== undefined) walk(schema.items, `${path}[]`, out);
  if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${path}{}`, out);
  for (const list of [schema.allOf, schema.anyOf, schema.oneOf]) list?.forEach((s, i) => walk(s, `${path}<${i}>`, out));
  return out;
}

/** The node at a dotted path; `[]` steps into array items. */
function at(schema: Schema, path: string): Schema {
  let s = schema;
  for (const step of path.split('.')) {
    const name = step.endsWith('[]') ? step.slice(0, -2) : step;
    const next = s.properties?.[name];
    if (next === undefined) throw new Error(`no property ${name} in ${path}`);
    s = step.endsWith('[]') ? next.items! : next;
  }
  return s;
}

const kindSchema = (kind: string): Schema => {
  const k = builtinKinds().find((x) => x.kind === kind);
  if (k === undefined) throw new Error(`no kind ${kind}`);
  return k.schema;
};

/** The field of `property` in the object node at `path` ('' for the kind itself). */
const numberOf = (kind: string, path: string, property: string): ProtobufField | undefined => {
  const node = path === '' ? kindSchema(kind) : at(kindSchema(kind), path);
  return fieldOf(node.protobuf?.[property]);
};

test('every built-in kind is served in protobuf but CustomResourceDefinition (JSONSchemaProps is free-form here, crd-schema.ts)', () => {
  expect(builtinKinds().filter((k) => !servesProtobuf(k.schema)).map((k) => k.kind)).toEqual(['CustomResourceDefinition']);
});

describe.each(builtinKinds().filter((k) => servesProtobuf(k.schema)).map((k) => [k.kind, k.schema] as const))('%s', (_kind, schema) => {
  const objects = walk(schema, '').filter((n) => n.schema.properties !== undefined);

  test('every object node numbers each of its properties, and only those', () => {
    const missing: string[] = [];
    const extra: string[] = [];
    for (const { path, schema: s } of objects) {
      // The top level's apiVersion and kind travel in the runtime.Unknown envelope, never in the message; a
      // nested whole object (a StatefulSet's volumeClaimTemplates) has Go's untagged TypeMeta: JSON only.
      const whole = path === '' || ['apiVersion', 'kind', 'metadata'].every((p) => p in s.properties!);
      const envelope = whole ? new Set(['apiVersion', 'kind']) : new Set<string>();
      for (const name of Object.keys(s.properties!)) {
        const numbered = s.protobuf?.[name] !== undefined;
        if (envelope.has(name) ? numbered : !numbered) (envelope.has(name) ? extra : missing).push(`${path}:${name}`);
      }
      for (const name of Object.keys(s.protobuf ?? {})) if (!(name in s.properties!)) extra.push(`${path}:${name}`);
    }
    expect(missing).toEqual([]);
    expect(extra).toEqual([]);
  });

  test('numbers are valid and unique within each message, embedded messages included', () => {
    const problems: string[] = [];
    for (const { path, schema: s } of objects) {
      // Each message level (the message, or an embedded struct at a path of numbers such as `2.2`) by path.
      const levels = new Map<string, Map<number, string>>([['', new Map()]]);
      for (const [name, raw] of Object.entries(s.protobuf ?? {})) {
        const f = fieldOf(raw)!;
        if (!validTag(f.tag)) problems.push(`${path}:${name} has tag ${f.tag}`);
        const at = f.embedded === undefined ? [] : typeof f.embedded === 'number' ? [f.embedded] : f.embedded;
        if (!at.every(validTag)) problems.push(`${path}:${name} is embedded at ${at.join('.')}`);
        for (let i = 0; i <= at.length; i++) if (!levels.has(at.slice(0, i).join('.'))) levels.set(at.slice(0, i).join('.'), new Map());
        const level = levels.get(at.join('.'))!;
        if (level.has(f.tag)) problems.push(`${path}: ${name} and ${level.get(f.tag)} share ${[...at, f.tag].join('.')}`);
        level.set(f.tag, name);
      }
      // An embedded struct's own field number belongs to no property of the level that holds it.
      for (const key of levels.keys()) {
        if (key === '') continue;
        const steps = key.split('.');
        const parent = levels.get(steps.slice(0, -1).join('.'))!;
        const n = Number(steps[steps.length - 1]);
        if (parent.has(n)) problems.push(`${path}: ${parent.get(n)} uses ${n}, the embedded message's field`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('spot values from core/v1 generated.proto and types.go', () => {
  test('top-level objects: metadata is 1, pointer fields marked', () => {
    expect(numberOf('Secret', '', 'metadata')).toEqual({ tag: 1 });
    expect(numberOf('Secret', '', 'immutable')).toEqual({ tag: 5, pointer: true });
    expect(numberOf('Secret', '', 'data')).toEqual({ tag: 2 });
    expect(numberOf('Secret', '', 'stringData')).toEqual({ tag: 4 });
    expect(numberOf('ConfigMap', '', 'immutable')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('ConfigMap', '', 'binaryData')).toEqual({ tag: 3 });
    expect(numberOf('ServiceAccount', '', 'automountServiceAccountToken')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('ServiceAccount', 'secrets[]', 'fieldPath')).toEqual({ tag: 7 });
    expect(numberOf('Namespace', 'status.conditions[]', 'lastTransitionTime')).toEqual({ tag: 4 });
    expect(numberOf('PodTemplate', '', 'template')).toEqual({ tag: 2 });
  });

  test('Node', () => {
    expect(numberOf('Node', 'spec', 'configSource')).toEqual({ tag: 6, pointer: true });
    expect(numberOf('Node', 'spec', 'podCIDRs')).toEqual({ tag: 7 });
    expect(numberOf('Node', 'spec.taints[]', 'timeAdded')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('Node', 'spec.configSource', 'configMap')).toEqual({ tag: 2, pointer: true });
    expect(numberOf('Node', 'status', 'config')).toEqual({ tag: 11, pointer: true });
    expect(numberOf('Node', 'status', 'features')).toEqual({ tag: 13, pointer: true });
    // The node agent's members in the documents' names (nodeagentEndpoint); the wire numbers are Kubernetes'.
    expect(numberOf('Node', 'status.daemonEndpoints.nodeagentEndpoint', 'Port')).toEqual({ tag: 1 });
    expect(numberOf('Node', 'status.daemonEndpoints', 'nodeagentEndpoint')).toEqual({ tag: 1 });
    expect(numberOf('Node', 'status.nodeInfo', 'nodeagentVersion')).toEqual({ tag: 7 });
    expect(numberOf('Node', 'status.nodeInfo', 'architecture')).toEqual({ tag: 10 });
    expect(numberOf('Node', 'status.runtimeHandlers[].features', 'userNamespaces')).toEqual({ tag: 2, pointer: true });
  });

  test('PodTemplateSpec and PodSpec', () => {
    expect(numberOf('PodTemplate', 'template', 'metadata')).toEqual({ tag: 1 });
    expect(numberOf('PodTemplate', 'template.metadata', 'labels')).toEqual({ tag: 11 });
    expect(numberOf('PodTemplate', 'template.spec', 'containers')).toEqual({ tag: 2 });
    expect(numberOf('PodTemplate', 'template.spec', 'initContainers')).toEqual({ tag: 20 });
    expect(numberOf('PodTemplate', 'template.spec', 'ephemeralContainers')).toEqual({ tag: 34 });
    expect(numberOf('PodTemplate', 'template.spec', 'terminationGracePeriodSeconds')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('PodTemplate', 'template.spec', 'hostNetwork')).toEqual({ tag: 11 });
    expect(numberOf('PodTemplate', 'template.spec', 'hostUsers')).toEqual({ tag: 37, pointer: true });
    expect(numberOf('PodTemplate', 'template.spec', 'resources')).toEqual({ tag: 40, pointer: true });
    expect(numberOf('PodTemplate', 'template.spec.securityContext', 'seLinuxChangePolicy')).toEqual({ tag: 13, pointer: true });
    expect(numberOf('PodTemplate', 'template.spec.securityContext', 'supplementalGroups')).toEqual({ tag: 4 });
    expect(numberOf('PodTemplate', 'template.spec.tolerations[]', 'tolerationSeconds')).toEqual({ tag: 5, pointer: true });
    expect(numberOf('PodTemplate', 'template.spec.topologySpreadConstraints[].labelSelector', 'matchExpressions')).toEqual({ tag: 2 });
    expect(numberOf('PodTemplate', 'template.spec.resourceClaims[]', 'resourceClaimName')).toEqual({ tag: 3, pointer: true });
    expect(numberOf('PodTemplate', 'template.spec.affinity.nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution')).toEqual({
      tag: 1,
      pointer: true,
    });
  });

  test('containers, probes, lifecycle and env', () => {
    const c = 'template.spec.containers[]';
    expect(numberOf('PodTemplate', c, 'name')).toEqual({ tag: 1 });
    expect(numberOf('PodTemplate', c, 'image')).toEqual({ tag: 2 });
    expect(numberOf('PodTemplate', c, 'envFrom')).toEqual({ tag: 19 });
    expect(numberOf('PodTemplate', c, 'restartPolicy')).toEqual({ tag: 24, pointer: true });
    expect(numberOf('PodTemplate', `${c}.ports[]`, 'containerPort')).toEqual({ tag: 3 });
    expect(numberOf('PodTemplate', `${c}.resources`, 'claims')).toEqual({ tag: 3 });
    expect(numberOf('PodTemplate', `${c}.resources.claims[]`, 'request')).toEqual({ tag: 2 });
    expect(numberOf('PodTemplate', `${c}.volumeMounts[]`, 'recursiveReadOnly')).toEqual({ tag: 7, pointer: true });
    expect(numberOf('PodTemplate', `${c}.livenessProbe`, 'initialDelaySeconds')).toEqual({ tag: 2 });
    expect(numberOf('PodTemplate', `${c}.livenessProbe`, 'terminationGracePeriodSeconds')).toEqual({ tag: 7, pointer: true });
    // ProbeHandler is embedded in Probe at field 1.
    expect(numberOf('PodTemplate', `${c}.readinessProbe`, 'httpGet')).toEqual({ tag: 2, pointer: true, embedded: 1 });
    expect(numberOf('PodTemplate', `${c}.startupProbe`, 'grpc')).toEqual({ tag: 4, pointer: true, embedded: 1 });
    expect(numberOf('PodTemplate', `${c}.startupProbe.grpc`, 'service')).toEqual({ tag: 2, pointer: true });
    expect(numberOf('PodTemplate', `${c}.livenessProbe.httpGet`, 'port')).toEqual({ tag: 2 });
    expect(numberOf('PodTemplate', `${c}.lifecycle`, 'preStop')).toEqual({ tag: 2, pointer: true });
    expect(numberOf('PodTemplate', `${c}.lifecycle.preStop`, 'sleep')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('PodTemplate', `${c}.env[]`, 'valueFrom')).toEqual({ tag: 3, pointer: true });
    expect(numberOf('PodTemplate', `${c}.env[].valueFrom`, 'secretKeyRef')).toEqual({ tag: 4, pointer: true });
    // The key selectors' `name` is their embedded LocalObjectReference's.
    expect(numberOf('PodTemplate', `${c}.env[].valueFrom.configMapKeyRef`, 'name')).toEqual({ tag: 1, embedded: 1 });
    expect(numberOf('PodTemplate', `${c}.env[].valueFrom.configMapKeyRef`, 'optional')).toEqual({ tag: 3, pointer: true });
    expect(numberOf('PodTemplate', `${c}.env[].valueFrom.resourceFieldRef`, 'divisor')).toEqual({ tag: 3 });
    expect(numberOf('PodTemplate', `${c}.envFrom[].secretRef`, 'name')).toEqual({ tag: 1, embedded: 1 });
    expect(numberOf('PodTemplate', `${c}.securityContext`, 'windowsOptions')).toEqual({ tag: 10, pointer: true });
    expect(numberOf('PodTemplate', `${c}.securityContext`, 'appArmorProfile')).toEqual({ tag: 12, pointer: true });
  });

  test('ephemeral containers: the Container fields sit in EphemeralContainerCommon = 1', () => {
    const e = 'template.spec.ephemeralContainers[]';
    expect(numberOf('PodTemplate', e, 'image')).toEqual({ tag: 2, embedded: 1 });
    expect(numberOf('PodTemplate', e, 'startupProbe')).toEqual({ tag: 22, pointer: true, embedded: 1 });
    expect(numberOf('PodTemplate', e, 'targetContainerName')).toEqual({ tag: 2 });
  });

  test('volumes: the sources sit in VolumeSource = 2', () => {
    const v = 'template.spec.volumes[]';
    expect(numberOf('PodTemplate', v, 'name')).toEqual({ tag: 1 });
    expect(numberOf('PodTemplate', v, 'configMap')).toEqual({ tag: 19, pointer: true, embedded: 2 });
    expect(numberOf('PodTemplate', v, 'projected')).toEqual({ tag: 26, pointer: true, embedded: 2 });
    expect(numberOf('PodTemplate', v, 'image')).toEqual({ tag: 30, pointer: true, embedded: 2 });
    expect(numberOf('PodTemplate', `${v}.configMap`, 'name')).toEqual({ tag: 1, embedded: 1 });
    expect(numberOf('PodTemplate', `${v}.configMap`, 'defaultMode')).toEqual({ tag: 3, pointer: true });
    expect(numberOf('PodTemplate', `${v}.secret`, 'secretName')).toEqual({ tag: 1 });
    expect(numberOf('PodTemplate', `${v}.emptyDir`, 'sizeLimit')).toEqual({ tag: 2, pointer: true });
    expect(numberOf('PodTemplate', `${v}.hostPath`, 'type')).toEqual({ tag: 2, pointer: true });
    expect(numberOf('PodTemplate', `${v}.projected.sources[]`, 'clusterTrustBundle')).toEqual({ tag: 5, pointer: true });
    expect(numberOf('PodTemplate', `${v}.projected.sources[].secret`, 'optional')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('PodTemplate', `${v}.projected.sources[].serviceAccountToken`, 'path')).toEqual({ tag: 3 });
    expect(numberOf('PodTemplate', `${v}.ephemeral.volumeClaimTemplate.spec`, 'dataSourceRef')).toEqual({ tag: 8, pointer: true });
    expect(numberOf('PodTemplate', `${v}.ephemeral.volumeClaimTemplate.spec.dataSourceRef`, 'namespace')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('PodTemplate', `${v}.ephemeral.volumeClaimTemplate.spec.dataSource`, 'namespace')).toBeUndefined();
    expect(numberOf('PodTemplate', `${v}.csi`, 'nodePublishSecretRef')).toEqual({ tag: 5, pointer: true });
  });

  test('value types the JSON schema does not imply carry protobufType', () => {
    const pod = kindSchema('PodTemplate');
    expect(at(pod, 'template.spec.volumes[].emptyDir.sizeLimit').protobufType).toBe('quantity');
    expect(at(pod, 'template.spec.containers[].env[].valueFrom.resourceFieldRef.divisor').protobufType).toBe('quantity');
    expect(at(pod, 'template.spec.overhead').additionalProperties).toMatchObject({ protobufType: 'quantity' });
    // IntOrString is inferred from x-kubernetes-int-or-string alone.
    expect(at(pod, 'template.spec.containers[].livenessProbe.httpGet.port').protobufType).toBeUndefined();
    expect(at(kindSchema('Node'), 'status.capacity').additionalProperties).toMatchObject({ protobufType: 'quantity' });
  });
});

describe('spot values from rbac/v1 generated.proto and types.go', () => {
  test('roles and bindings', () => {
    expect(numberOf('Role', '', 'rules')).toEqual({ tag: 2 });
    expect(numberOf('ClusterRole', '', 'aggregationRule')).toEqual({ tag: 3, pointer: true });
    expect(numberOf('ClusterRole', 'rules[]', 'verbs')).toEqual({ tag: 1 });
    expect(numberOf('ClusterRole', 'rules[]', 'nonResourceURLs')).toEqual({ tag: 5 });
    expect(numberOf('ClusterRole', 'aggregationRule', 'clusterRoleSelectors')).toEqual({ tag: 1 });
    expect(numberOf('ClusterRole', 'aggregationRule.clusterRoleSelectors[]', 'matchExpressions')).toEqual({ tag: 2 });
    expect(numberOf('RoleBinding', '', 'subjects')).toEqual({ tag: 2 });
    expect(numberOf('RoleBinding', '', 'roleRef')).toEqual({ tag: 3 });
    expect(numberOf('ClusterRoleBinding', 'subjects[]', 'apiGroup')).toEqual({ tag: 2 });
    expect(numberOf('ClusterRoleBinding', 'subjects[]', 'namespace')).toEqual({ tag: 4 });
    expect(numberOf('ClusterRoleBinding', 'roleRef', 'name')).toEqual({ tag: 3 });
  });
});

describe('spot values from admissionregistration/v1 generated.proto', () => {
  test('policy and binding: pointers, and the rules embedded two deep', () => {
    expect(numberOf('ValidatingAdmissionPolicy', '', 'status')).toEqual({ tag: 3 });
    expect(numberOf('ValidatingAdmissionPolicy', 'spec', 'failurePolicy')).toEqual({ tag: 4, pointer: true });
    expect(numberOf('ValidatingAdmissionPolicy', 'spec', 'variables')).toEqual({ tag: 7 });
    expect(numberOf('ValidatingAdmissionPolicy', 'spec.validations[]', 'reason')).toEqual({ tag: 3, pointer: true });
    expect(numberOf('ValidatingAdmissionPolicy', 'spec.matchConstraints', 'matchPolicy')).toEqual({ tag: 7, pointer: true });
    expect(numberOf('ValidatingAdmissionPolicy', 'spec.matchConstraints.resourceRules[]', 'resourceNames')).toEqual({ tag: 1 });
    expect(numberOf('ValidatingAdmissionPolicy', 'spec.matchConstraints.resourceRules[]', 'operations')).toEqual({ tag: 1, embedded: 2 });
    expect(numberOf('ValidatingAdmissionPolicy', 'spec.matchConstraints.resourceRules[]', 'scope')).toEqual({ tag: 4, pointer: true, embedded: [2, 2] });
    expect(numberOf('ValidatingAdmissionPolicy', 'status.typeChecking.expressionWarnings[]', 'fieldRef')).toEqual({ tag: 2 });
    expect(numberOf('ValidatingAdmissionPolicyBinding', 'spec', 'validationActions')).toEqual({ tag: 4 });
    expect(numberOf('ValidatingAdmissionPolicyBinding', 'spec.paramRef', 'parameterNotFoundAction')).toEqual({ tag: 4, pointer: true });
  });
});
