/**
 * For the plugin's tests: policies, bindings and requests as Kubernetes JSON with short defaults, params
 * and namespaces held in memory (ParamSource / namespace lookup over plain lists), the real RBAC
 * authorizer over an index seeded with a few roles, and one call that runs a request through a fresh
 * plugin and reports what a client would see (the Status, warnings, audit annotations).
 */
import type { KubeObject } from '../../api/object.js';
import type { UserInfo } from '../../auth/user-info.js';
import type { Authorizer } from '../../authorization/authorizer.js';
import { rbacAuthorizer } from '../../authorization/rbac-authorizer.js';
import { RbacIndex } from '../../authorization/rbac-index.js';
import type { BindingObject } from '../../authorization/rbac-types.js';
import { StatusError } from '../../errors/status-error.js';
import { naming as namingOf, type Naming } from '../../naming/naming.js';
import type { AdmissionAttributes, AdmissionOperation, GroupVersionKind, GroupVersionResource } from '../attributes.js';
import type { EquivalentResource } from './match-resources.js';
import type { ParamLookup, ParamSource } from './params.js';
import { policyAdmission } from './policy-admission.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicySpec, ValidatingAdmissionPolicyBindingSpec } from './policy-types.js';
import { memorySource } from './sources.js';

export const CONFIGMAPS_RULE = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'], resources: ['configmaps'] };

let uid = 0;

/** A policy on configmaps (every operation) whose one validation is `expression` unless `spec` says otherwise. */
export function policy(name: string, spec: ValidatingAdmissionPolicySpec = {}, generation = 1): ValidatingAdmissionPolicy {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name, uid: `uid-${name}-${++uid}`, generation },
    spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [CONFIGMAPS_RULE] }, validations: [{ expression: 'false' }], ...spec },
  };
}

export function binding(name: string, policyName: string, spec: Omit<ValidatingAdmissionPolicyBindingSpec, 'policyName'> = {}, generation = 1): ValidatingAdmissionPolicyBinding {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name, uid: `uid-${name}-${++uid}`, generation },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

export const alice: UserInfo = { name: 'alice', uid: 'a-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['b', 'a'] } };
export const bob: UserInfo = { name: 'bob', uid: 'b-1', groups: ['system:authenticated'] };

export interface TestAttributes extends AdmissionAttributes {
  readonly warnings: string[];
  readonly annotations: Record<string, string>;
}

export interface RequestSpec {
  readonly operation?: AdmissionOperation;
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly name?: string;
  readonly namespace?: string;
  readonly resource?: GroupVersionResource;
  readonly kind?: GroupVersionKind;
  readonly subresource?: string;
  readonly options?: Record<string, unknown>;
  readonly dryRun?: boolean;
  readonly userInfo?: UserInfo | null;
}

export const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labels === undefined ? {} : { labels }) },
  data,
});

/** A request; by default the CREATE of ConfigMap `cm1` in `default` by alice. */
export function request(r: RequestSpec = {}): TestAttributes {
  const operation = r.operation ?? 'CREATE';
  const namespace = r.namespace ?? 'default';
  const name = r.name ?? 'cm1';
  const cm = configMap(name === '' ? '' : name, { a: '1' }, undefined, namespace);
  const object = 'object' in r ? r.object : operation === 'DELETE' ? undefined : cm;
  const oldObject = 'oldObject' in r ? r.oldObject : operation === 'UPDATE' || operation === 'DELETE' ? cm : undefined;
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  return {
    operation,
    object,
    oldObject,
    name,
    namespace,
    resource: r.resource ?? { group: '', version: 'v1', resource: 'configmaps' },
    kind: r.kind ?? { group: '', version: 'v1', kind: 'ConfigMap' },
    subresource: r.subresource ?? '',
    options: r.options ?? { kind: `${operation === 'CREATE' ? 'Create' : operation === 'UPDATE' ? 'Update' : 'Delete'}Options`, apiVersion: 'meta.k8s.io/v1' },
    dryRun: r.dryRun ?? false,
    userInfo: r.userInfo === null ? undefined : (r.userInfo ?? alice),
    warnings,
    annotations,
    addWarning: (text) => void warnings.push(text),
    addAuditAnnotation: (key, value) => void (annotations[key] = value),
  };
}

export const namespaces: Readonly<Record<string, KubeObject>> = {
  default: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', uid: 'ns-default', labels: { env: 'dev', 'kubernetes.io/metadata.name': 'default' } }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
  prod: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'prod', uid: 'ns-prod', labels: { env: 'prod', team: 'a', 'kubernetes.io/metadata.name': 'prod' }, annotations: { owner: 'ops' }, managedFields: [{ manager: 'kubectl' }] },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  },
};

/** Param objects in memory: ConfigMaps (namespaced) and `example.com/v1` Settings (cluster-scoped). */
export function memoryParams(objects: readonly KubeObject[]): ParamLookup {
  const source = (namespaced: boolean, match: (o: KubeObject) => boolean): ParamSource => {
    const of = (ns: string): KubeObject[] =>
      objects.filter(match).filter((o) => !namespaced || (o.metadata.namespace ?? '') === ns).sort((x, y) => ((x.metadata.name ?? '') < (y.metadata.name ?? '') ? -1 : 1));
    return {
      namespaced,
      get: async (ns, name) => of(ns).find((o) => o.metadata.name === name),
      list: async (ns, selector) => of(ns).filter((o) => selector.matches(o.metadata.labels ?? {})),
    };
  };
  const configMaps = source(true, (o) => o.kind === 'ConfigMap' || (o.kind === undefined && o.data !== undefined));
  const settings = source(false, (o) => o.kind === 'Settings');
  return (k) => {
    if (k.group === '' && k.version === 'v1' && k.kind === 'ConfigMap') return configMaps;
    if (k.group === 'example.com' && k.version === 'v1' && k.kind === 'Settings') return settings;
    return undefined;
  };
}

/**
 * The real RBAC authorizer: alice may get, update and delete configmaps in `default` and get secrets
 * anywhere; the service account `default:robot` may list pods; bob may nothing; `/healthz` is open to
 * every authenticated user.
 */
export function testAuthorizer(): Authorizer {
  const index = new RbacIndex('rbac.authorization.k8s.io');
  index.setClusterRole('cm-editor', [{ verbs: ['get', 'update', 'delete'], apiGroups: [''], resources: ['configmaps'] }]);
  index.setClusterRole('secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
  index.setClusterRole('pod-lister', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
  index.setClusterRole('health', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
  const bind = (kind: 'RoleBinding' | 'ClusterRoleBinding', namespace: string, name: string, role: string, subjects: BindingObject['subjects']): void =>
    index.setBinding(kind, namespace, { metadata: { name, namespace }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects } as BindingObject);
  bind('RoleBinding', 'default', 'alice-cm', 'cm-editor', [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }]);
  bind('ClusterRoleBinding', '', 'alice-secrets', 'secret-reader', [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }]);
  bind('ClusterRoleBinding', '', 'robot-pods', 'pod-lister', [{ kind: 'ServiceAccount', name: 'robot', namespace: 'default' }]);
  bind('ClusterRoleBinding', '', 'health', 'health', [{ kind: 'Group', name: 'system:authenticated', apiGroup: 'rbac.authorization.k8s.io' }]);
  return rbacAuthorizer(index);
}

export interface Outcome {
  /** The Status a client would get, or undefined when admitted. */
  readonly error?: { readonly code: number; readonly reason: string; readonly message: string; readonly details: unknown };
  readonly warnings: readonly string[];
  readonly annotations: Readonly<Record<string, string>>;
}

export interface Setup {
  readonly policies: readonly ValidatingAdmissionPolicy[];
  readonly bindings: readonly ValidatingAdmissionPolicyBinding[];
  readonly params?: readonly KubeObject[];
  readonly authorizer?: Authorizer;
  readonly naming?: Naming;
  readonly equivalentResources?: (resource: GroupVersionResource, subresource: string) => readonly EquivalentResource[];
  readonly convert?: (object: KubeObject, to: GroupVersionKind) => KubeObject | Promise<KubeObject>;
}

/** Runs `attributes` through a fresh plugin holding `setup`. */
export async function admit(setup: Setup, attributes: TestAttributes): Promise<Outcome> {
  const plugin = policyAdmission({
    policies: memorySource(setup.policies),
    bindings: memorySource(setup.bindings),
    params: memoryParams(setup.params ?? []),
    namespaces: async (name) => namespaces[name],
    authorizer: setup.authorizer ?? testAuthorizer(),
    naming: setup.naming ?? namingOf('k8s.io'),
    ...(setup.equivalentResources === undefined ? {} : { equivalentResources: setup.equivalentResources }),
    ...(setup.convert === undefined ? {} : { convert: setup.convert }),
  });
  plugin.start();
  try {
    await plugin.ready();
    await plugin.validate(attributes);
    return { warnings: attributes.warnings, annotations: attributes.annotations };
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    return { error: { code: e.code, reason: e.reason, message: e.message, details: e.details }, warnings: attributes.warnings, annotations: attributes.annotations };
  } finally {
    await plugin.stop();
  }
}
