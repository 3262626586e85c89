/**
 * The built-in flow schemas of API Priority and Fairness, as Kubernetes 1.32 bootstraps them (mandatory
 * `exempt` and `catch-all`, the suggested ones in between), and the classification of a request: the
 * schema with the lowest matching precedence (ties by name) whose rules match the request's user and
 * verb/resource or path wins; its priority level admits the request, and its distinguisher (ByUser,
 * ByNamespace, or none) names the request's flow inside that level.
 *
 *   exempt (1)                       group system:masters                                  -> exempt
 *   probes (2)                       GET /healthz /readyz /livez, anyone                   -> exempt
 *   system-leader-election (100)     controller-manager, scheduler, system SAs: leases, endpoints/configmaps in the system namespace -> leader-election
 *   endpoint-controller (150)        controller-manager, the endpoint-controller SA: endpoints -> workload-high
 *   workload-leader-election (200)   system SAs: leases, endpoints/configmaps                -> leader-election
 *   system-node-high (400)           group system:nodes: nodes, nodes/status, leases          -> node-high
 *   system-nodes (500)               group system:nodes                                      -> system
 *   kube-controller-manager (800), kube-scheduler (800), kube-system-service-accounts (900) -> workload-high
 *   service-accounts (9000)          group system:serviceaccounts                            -> workload-low
 *   global-default (9900)            everyone else                                           -> global-default
 *   catch-all (10000)                everyone                                                -> catch-all
 *
 * Group and namespace names follow the server's Naming (`coordination.<domain>`, `<prefix>-system`). The
 * configuration is built in (no FlowSchema objects); `uid` is a stable name-derived UUID for the
 * `X-Kubernetes-PF-FlowSchema-UID` response header.
 */
import { createHash } from 'node:crypto';
import type { UserInfo } from '../auth/user-info.js';
import type { Naming } from '../naming/naming.js';
import type { RequestInfo } from '../request/request-info.js';

export type Distinguisher = 'ByUser' | 'ByNamespace' | undefined;

export type Subject =
  | { readonly kind: 'User'; readonly name: string }
  | { readonly kind: 'Group'; readonly name: string }
  /**
   * `name` '*' matches every service account of the namespace. `userPrefix` is the user names' common part,
   * `system:serviceaccount:<namespace>:` (precomputed: classification runs on every request).
   */
  | { readonly kind: 'ServiceAccount'; readonly namespace: string; readonly name: string; readonly userPrefix: string };

export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  /** `resource` or `resource/subresource`; '*' matches all. */
  readonly resources: readonly string[];
  /** '*' matches every namespace; cluster-scoped requests match only with `clusterScope`. */
  readonly namespaces: readonly string[];
  readonly clusterScope: boolean;
}

export interface NonResourceRule {
  readonly verbs: readonly string[];
  /** Exact paths, '*', or a prefix ending in `/*`. */
  readonly urls: readonly string[];
}

export interface FlowSchema {
  readonly name: string;
  readonly uid: string;
  readonly priorityLevel: string;
  readonly matchingPrecedence: number;
  readonly distinguisher: Distinguisher;
  readonly subjects: readonly Subject[];
  /** 'all': every resource and non-resource request of the subjects. */
  readonly rules: 'all' | { readonly resource: readonly ResourceRule[]; readonly nonResource: readonly NonResourceRule[] };
}

/** What classification looks at; `info` is parsed only when a schema with resource rules matched the subject. */
export interface ClassifiedRequest {
  readonly user: UserInfo;
  /** The HTTP method (`GET`). */
  readonly method: string;
  readonly path: string;
  info(): RequestInfo;
}

/** A deterministic UUID (v4 layout) from a name, for the response headers. */
export function stableUid(kind: string, name: string): string {
  const h = createHash('sha256').update(`${kind}/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const group = (name: string): Subject => ({ kind: 'Group', name });
const serviceAccount = (namespace: string, name: string): Subject =>
  ({ kind: 'ServiceAccount', namespace, name, userPrefix: `${SA_PREFIX}${namespace}:` });
const user = (name: string): Subject => ({ kind: 'User', name });
const KCM = 'system:kube-controller-manager';
const SA_PREFIX = 'system:serviceaccount:';
const SCHEDULER = 'system:kube-scheduler';
const getCreateUpdate = ['get', 'create', 'update'];

/** Kubernetes 1.32's bootstrap flow schemas under `naming`, sorted by precedence then name. */
export function builtinFlowSchemas(naming: Naming): readonly FlowSchema[] {
  const sys = naming.systemNamespace;
  const coordination = naming.group('coordination');
  const systemSAs = serviceAccount(sys, '*');
  const leases = (namespaces: string[]): ResourceRule =>
    ({ verbs: getCreateUpdate, apiGroups: [coordination], resources: ['leases'], namespaces, clusterScope: false });
  const endpointsConfigMaps = (namespaces: string[]): ResourceRule =>
    ({ verbs: getCreateUpdate, apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces, clusterScope: false });
  const schema = (name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: Distinguisher,
    subjects: Subject[], rules: FlowSchema['rules'] = 'all'): FlowSchema =>
    Object.freeze({ name, uid: stableUid('FlowSchema', name), priorityLevel, matchingPrecedence, distinguisher, subjects, rules });
  const schemas = [
    schema('exempt', 'exempt', 1, undefined, [group('system:masters')]),
    schema('probes', 'exempt', 2, undefined, [group('system:unauthenticated'), group('system:authenticated')],
      { resource: [], nonResource: [{ verbs: ['get'], urls: ['/healthz', '/readyz', '/livez'] }] }),
    schema('system-leader-election', 'leader-election', 100, 'ByUser', [user(KCM), user(SCHEDULER), systemSAs],
      { resource: [endpointsConfigMaps([sys]), leases(['*'])], nonResource: [] }),
    schema('endpoint-controller', 'workload-high', 150, 'ByUser',
      [user(KCM), serviceAccount(sys, 'endpoint-controller')],
      { resource: [{ verbs: getCreateUpdate, apiGroups: [''], resources: ['endpoints'], namespaces: ['*'], clusterScope: false }], nonResource: [] }),
    schema('workload-leader-election', 'leader-election', 200, 'ByUser', [systemSAs],
      { resource: [endpointsConfigMaps(['*']), leases(['*'])], nonResource: [] }),
    schema('system-node-high', 'node-high', 400, 'ByUser', [group('system:nodes')], {
      resource: [
        { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], namespaces: ['*'], clusterScope: true },
        { verbs: ['*'], apiGroups: [coordination], resources: ['leases'], namespaces: ['*'], clusterScope: false },
      ],
      nonResource: [],
    }),
    schema('system-nodes', 'system', 500, 'ByUser', [group('system:nodes')]),
    schema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', [user(KCM)]),
    schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', [user(SCHEDULER)]),
    schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', [systemSAs]),
    schema('service-accounts', 'workload-low', 9000, 'ByUser', [group('system:serviceaccounts')]),
    schema('global-default', 'global-default', 9900, 'ByUser', [group('system:unauthenticated'), group('system:authenticated')]),
    schema('catch-all', 'catch-all', 10000, 'ByUser', [group('system:unauthenticated'), group('system:authenticated')]),
  ];
  schemas.sort((a, b) => a.matchingPrecedence - b.matchingPrecedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return Object.freeze(schemas);
}

function subjectMatches(s: Subject, u: UserInfo): boolean {
  switch (s.kind) {
    case 'Group':
      return s.name === '*' || u.groups.includes(s.name);
    case 'User':
      return s.name === '*' || u.name === s.name;
    case 'ServiceAccount':
      // No slicing: this runs for every service account request against several schemas.
      if (!u.name.startsWith(s.userPrefix)) return false;
      return s.name === '*'
        ? u.name.length > s.userPrefix.length && u.name.indexOf(':', s.userPrefix.length) < 0
        : u.name.length === s.userPrefix.length + s.name.length && u.name.endsWith(s.name);
  }
}

const has = (list: readonly string[], v: string): boolean => list.includes('*') || list.includes(v);

function resourceRuleMatches(r: ResourceRule, info: RequestInfo): boolean {
  if (!has(r.verbs, info.verb) || !has(r.apiGroups, info.apiGroup)) return false;
  const resource = info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`;
  if (!has(r.resources, resource)) return false;
  return info.namespace === '' ? r.clusterScope : has(r.namespaces, info.namespace);
}

function urlMatches(pattern: string, path: string): boolean {
  if (pattern === '*' || pattern === path) return true;
  return pattern.endsWith('/*') && path.startsWith(pattern.slice(0, -1));
}

function nonResourceRuleMatches(r: NonResourceRule, info: RequestInfo): boolean {
  return has(r.verbs, info.verb) && r.urls.some((u) => urlMatches(u, info.path));
}

const isApiPath = (path: string): boolean => path.startsWith('/api/') || path.startsWith('/apis/');

/** Whether `schema` matches the request (its subjects, then its rules). */
export function schemaMatches(schema: FlowSchema, req: ClassifiedRequest): boolean {
  if (!schema.subjects.some((s) => subjectMatches(s, req.user))) return false;
  if (schema.rules === 'all') return true;
  // Only non-resource rules (the probes): decided from the method and path, without parsing request info
  // (this schema's subjects are everyone, so this runs for every request).
  if (schema.rules.resource.length === 0) {
    if (isApiPath(req.path)) return false;
    const verb = req.method.toLowerCase();
    return schema.rules.nonResource.some((r) => has(r.verbs, verb) && r.urls.some((u) => urlMatches(u, req.path)));
  }
  const info = req.info();
  return info.isResourceRequest
    ? schema.rules.resource.some((r) => resourceRuleMatches(r, info))
    : schema.rules.nonResource.some((r) => nonResourceRuleMatches(r, info));
}

/**
 * The first schema (in precedence order) matching the request. `catch-all` matches every user with one of
 * the two all-user groups, which every authenticated or anonymous request carries; a user with neither (a
 * hand-built one in a test) falls to the last schema all the same.
 */
export function classify(schemas: readonly FlowSchema[], req: ClassifiedRequest): FlowSchema {
  for (const s of schemas) if (schemaMatches(s, req)) return s;
  return schemas[schemas.length - 1]!;
}

/** The flow's distinguisher within its schema: the user's name (ByUser), the namespace (ByNamespace), or ''. */
export function flowDistinguisher(schema: FlowSchema, req: ClassifiedRequest): string {
  if (schema.distinguisher === 'ByUser') return req.user.name;
  if (schema.distinguisher === 'ByNamespace') return req.info().namespace;
  return '';
}
