/**
 * The default roles and bindings kube-apiserver 1.32 creates at start-up (its bootstrap policy), limited to
 * those that concern this server: the user-facing roles (`cluster-admin`, and `admin`/`edit`/`view`
 * aggregated from the `system:aggregate-to-*` roles through their labels), the discovery, basic-user,
 * public-info, monitoring, auth-delegator, node-bootstrapper and service-account-issuer-discovery roles,
 * and the bindings that give them to `system:masters`, `system:authenticated`, `system:unauthenticated`,
 * `system:monitoring` and `system:serviceaccounts`. The roles of components this server does not have
 * (kubelet, scheduler, controller manager, kube-proxy, DNS, the controllers' `system:controller:*`) are
 * left out, and so are their bindings.
 *
 * The rules are Kubernetes' data, with every group under the domain spelled through the naming module
 * (`authorization.k8s.io` is `authorization.platform.io` by default), so a rule names the group this server
 * serves. Every object carries the bootstrapping label (`rbac-defaults`) and the autoupdate annotation
 * (`"true"`), which is what lets the reconciler repair it on every start (bootstrap-reconcile.ts).
 */
import type { KubeObject } from '../../../api/object.js';
import { authenticatedGroup, mastersGroup, unauthenticatedGroup } from '../../../auth/user-info.js';
import type { Naming } from '../../../naming/naming.js';
import type { PolicyRule } from '../../../authorization/rbac-types.js';
import { signerNames } from '../certificates/signer-names.js';
import { aggregateLabel, autoupdateAnnotation, bootstrappingLabel, rbacGroup } from './rbac-names.js';

export interface BootstrapPolicy {
  readonly clusterRoles: readonly KubeObject[];
  readonly clusterRoleBindings: readonly KubeObject[];
}

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];

/** Groups every authenticated service account is in, and the monitoring group (kube's user package). */
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const MONITORING_GROUP = 'system:monitoring';

const rule = (verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule => ({
  verbs: [...verbs],
  apiGroups: [...apiGroups],
  resources: [...resources],
  ...(resourceNames === undefined ? {} : { resourceNames: [...resourceNames] }),
});
const urls = (verbs: readonly string[], nonResourceURLs: readonly string[]): PolicyRule => ({ verbs: [...verbs], nonResourceURLs: [...nonResourceURLs] });

/** The roles' rules, by role name, for a naming. */
function clusterRoleRules(n: Naming): Record<string, PolicyRule[]> {
  const authn = n.group('authentication');
  const authz = n.group('authorization');
  const rbac = rbacGroup(n);
  const certificates = n.group('certificates');
  const signers = signerNames(n);
  const coordination = n.group('coordination');
  const discovery = n.group('discovery');
  const networking = n.group('networking');
  return {
    'cluster-admin': [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])],
    'system:discovery': [
      urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/']),
    ],
    'system:monitoring': [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])],
    'system:basic-user': [rule(['create'], [authz], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], [authn], ['selfsubjectreviews'])],
    'system:public-info-viewer': [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])],
    'system:aggregate-to-admin': [rule(['create'], [authz], ['localsubjectaccessreviews']), rule(READ_WRITE, [rbac], ['rolebindings', 'roles'])],
    'system:aggregate-to-edit': [
      rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
      rule(['create'], [''], ['pods/eviction']),
      rule(WRITE, [''], [
        'configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets',
        'serviceaccounts', 'services', 'services/proxy',
      ]),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, ['apps'], [
        'daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets',
        'statefulsets/scale',
      ]),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
      rule(WRITE, ['extensions'], [
        'daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets',
        'replicasets/scale', 'replicationcontrollers/scale',
      ]),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, [networking], ['ingresses', 'networkpolicies']),
      rule(READ_WRITE, [coordination], ['leases']),
    ],
    'system:aggregate-to-view': [
      rule(READ, [''], [
        'configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers',
        'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status',
      ]),
      rule(READ, [''], [
        'bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas',
        'resourcequotas/status',
      ]),
      rule(READ, [''], ['namespaces']),
      rule(READ, [discovery], ['endpointslices']),
      rule(READ, ['apps'], [
        'controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets',
        'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status',
      ]),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
      rule(READ, ['extensions'], [
        'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status',
        'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale',
      ]),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, [networking], ['ingresses', 'ingresses/status', 'networkpolicies']),
    ],
    'system:auth-delegator': [rule(['create'], [authn], ['tokenreviews']), rule(['create'], [authz], ['subjectaccessreviews'])],
    'system:node-bootstrapper': [rule(['create', 'get', 'list', 'watch'], [certificates], ['certificatesigningrequests'])],
    // What csrapproving asks of a node-agent client request's requester (kube binds none of them by default).
    [`system:${certificates}:certificatesigningrequests:nodeclient`]: [rule(['create'], [certificates], ['certificatesigningrequests/nodeclient'])],
    [`system:${certificates}:certificatesigningrequests:selfnodeclient`]: [rule(['create'], [certificates], ['certificatesigningrequests/selfnodeclient'])],
    // Approval of each well-known signer's requests, named after the signer (kube's words under k8s.io).
    ...Object.fromEntries([signers.apiserverClient, signers.nodeAgentClient, signers.nodeAgentServing, signers.legacyUnknown].map((signer) => [
      `system:${certificates}:${signer.slice(signer.indexOf('/') + 1)}-approver`,
      [rule(['approve'], [certificates], ['signers'], [signer])],
    ])),
    'system:service-account-issuer-discovery': [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])],
  };
}

/** The bootstrap roles and bindings under `n`, fresh objects each call (callers may change them). */
export function bootstrapPolicy(n: Naming): BootstrapPolicy {
  const group = rbacGroup(n);
  const apiVersion = `${group}/v1`;
  const metadata = (name: string, labels: Record<string, string> = {}) => ({
    name,
    labels: { [bootstrappingLabel(n)]: 'rbac-defaults', ...labels },
    annotations: { [autoupdateAnnotation(n)]: 'true' },
  });
  const aggregated = (to: 'admin' | 'edit' | 'view') => ({ clusterRoleSelectors: [{ matchLabels: { [aggregateLabel(n, to)]: 'true' } }] });

  const clusterRoles: KubeObject[] = Object.entries(clusterRoleRules(n)).map(([name, rules]) => {
    const labels: Record<string, string> = {};
    const to = /^system:aggregate-to-(admin|edit|view)$/.exec(name)?.[1] as 'admin' | 'edit' | 'view' | undefined;
    if (to !== undefined) labels[aggregateLabel(n, to)] = 'true';
    return { apiVersion, kind: 'ClusterRole', metadata: metadata(name, labels), rules };
  });
  // admin aggregates edit, which aggregates view (each is labelled into the next one up).
  clusterRoles.push(
    { apiVersion, kind: 'ClusterRole', metadata: metadata('admin'), aggregationRule: aggregated('admin') },
    { apiVersion, kind: 'ClusterRole', metadata: metadata('edit', { [aggregateLabel(n, 'admin')]: 'true' }), aggregationRule: aggregated('edit') },
    { apiVersion, kind: 'ClusterRole', metadata: metadata('view', { [aggregateLabel(n, 'edit')]: 'true' }), aggregationRule: aggregated('view') },
  );

  const groups = (...names: string[]) => names.map((name) => ({ apiGroup: group, kind: 'Group', name }));
  const binding = (name: string, subjects: unknown[]): KubeObject => ({
    apiVersion,
    kind: 'ClusterRoleBinding',
    metadata: metadata(name),
    roleRef: { apiGroup: group, kind: 'ClusterRole', name },
    subjects,
  });
  const clusterRoleBindings = [
    binding('cluster-admin', groups(mastersGroup)),
    binding('system:monitoring', groups(MONITORING_GROUP)),
    binding('system:discovery', groups(authenticatedGroup)),
    binding('system:basic-user', groups(authenticatedGroup)),
    binding('system:public-info-viewer', groups(authenticatedGroup, unauthenticatedGroup)),
    binding('system:service-account-issuer-discovery', groups(SERVICE_ACCOUNTS_GROUP)),
  ];
  return { clusterRoles, clusterRoleBindings };
}
