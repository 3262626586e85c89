/**
 * Escalation and bind prevention on RBAC writes (Kubernetes' RBAC policy-based storage): no one grants,
 * through a role or a binding, permissions they do not hold themselves.
 *
 * - Role / ClusterRole create and update: allowed for `system:masters`, for whoever may `escalate` the
 *   role (checked with the request's name: '' on create, as Kubernetes' request info has none), and for
 *   whoever holds every rule of the role (in the request's namespace; cluster rules only for a
 *   ClusterRole). Setting or changing a ClusterRole's `aggregationRule` also needs the rights of
 *   `cluster-admin` (`*` on everything), since aggregation can gather anything.
 * - RoleBinding / ClusterRoleBinding create and update: allowed for `system:masters`, for whoever may
 *   `bind` the referenced role (attributes: the roleRef's group, `roles`/`clusterroles`, its name, the
 *   binding's namespace), and for whoever holds every rule of the referenced role. A missing role is
 *   forbidden with the lookup's message.
 * - An update that changes only what garbage collection changes (owner references, finalizers, deletion
 *   marks) is never checked, so deletion of a role nobody could write again still completes.
 *
 * Refusals are 403 on the object (`roles.rbac.authorization.k8s.io "x" is forbidden: user "bob"
 * (groups=["g"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:...}`).
 * The kinds call these from their `admit` hook; a write without a requester is the server's own and passes.
 */
import type { KubeObject } from '../api/object.js';
import { mastersGroup } from '../auth/user-info.js';
import { forbidden } from '../errors/constructors.js';
import type { StatusError } from '../errors/status-error.js';
import type { StrategyContext } from '../registry/kind-strategy.js';
import type { Requester } from './access.js';
import type { AuthorizationAttributes } from './authorizer.js';
import type { BindingObject, PolicyRule, RoleObject } from './rbac-types.js';
import { compactRules, compactString, goQuotedList, uncoveredRules } from './rule-coverage.js';

/** `*` on every resource and every path: what `aggregationRule` needs. */
const FULL_AUTHORITY: readonly PolicyRule[] = Object.freeze([
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
]);

const isMaster = (r: Requester): boolean => r.user.groups.includes(mastersGroup);

const allowed = (r: Requester, a: Omit<AuthorizationAttributes, 'user' | 'isResourceRequest' | 'path' | 'subresource'>): boolean =>
  r.authorizer.authorize({ ...a, user: r.user, isResourceRequest: true, path: '', subresource: '' }).decision === 'allow';

/**
 * undefined when `requester` holds every rule of `rules` in `namespace`; else Kubernetes' message naming
 * the missing rules (sorted, merged by verbs) and any role lookup errors met while resolving the holder's.
 */
export function escalationMessage(requester: Requester, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const held = requester.ruleResolver?.rulesFor(requester.user, namespace) ?? { rules: [], errors: [] };
  const missing = uncoveredRules(held.rules, rules);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(requester.user.name)} (groups=${goQuotedList(requester.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (held.errors.length > 0) msg += `; resolution errors: [${held.errors.join(' ')}]`;
  return msg;
}

function rbacForbidden(ctx: StrategyContext, resource: string, name: string, message: string): StatusError {
  return forbidden({ group: ctx.naming.group('rbac'), resource }, name, message);
}

/** Owner references, finalizers and the deletion marks are all that differ between `obj` and `old`. */
export function onlyGarbageCollectionFieldsChanged(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (old === undefined) return false;
  const strip = (o: KubeObject): unknown => {
    const { ownerReferences: _o, finalizers: _f, selfLink: _s, deletionTimestamp: _d, deletionGracePeriodSeconds: _g,
      managedFields: _m, resourceVersion: _r, generation: _gen, ...meta } = o.metadata as Record<string, unknown>;
    return { ...o, metadata: meta };
  };
  return stableJson(strip(obj)) === stableJson(strip(old));
}

function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/**
 * The check of a Role or ClusterRole write (`kind` picks which); throws 403. `old` is the current object
 * on update, undefined on create.
 */
export function confirmRoleWrite(kind: 'Role' | 'ClusterRole', obj: RoleObject, old: RoleObject | undefined, ctx: StrategyContext): void {
  const r = ctx.requester;
  if (r === undefined || isMaster(r)) return;
  if (ctx.operation === 'update' && onlyGarbageCollectionFieldsChanged(obj, old)) return;
  const resource = kind === 'Role' ? 'roles' : 'clusterroles';
  const name = obj.metadata.name ?? '';
  const requestName = ctx.operation === 'create' ? '' : name;
  const namespace = kind === 'Role' ? ctx.namespace : '';
  if (allowed(r, { verb: 'escalate', apiGroup: ctx.naming.group('rbac'), apiVersion: '*', resource, name: requestName, namespace })) return;
  const message = escalationMessage(r, namespace, obj.rules ?? []);
  if (message !== undefined) throw rbacForbidden(ctx, resource, name, message);
  if (kind === 'ClusterRole') {
    const aggregates = (o: KubeObject | undefined): boolean => o !== undefined && o.aggregationRule !== undefined && o.aggregationRule !== null;
    if ((aggregates(obj) || aggregates(old)) && escalationMessage(r, '', FULL_AUTHORITY) !== undefined) {
      throw rbacForbidden(ctx, resource, name, 'must have cluster-admin privileges to use the aggregationRule');
    }
  }
}

/**
 * The check of a RoleBinding or ClusterRoleBinding write (`kind` picks which); throws 403. `old` is the
 * current object on update, undefined on create.
 */
export function confirmBindingWrite(kind: 'RoleBinding' | 'ClusterRoleBinding', obj: BindingObject, old: BindingObject | undefined, ctx: StrategyContext): void {
  const r = ctx.requester;
  if (r === undefined || isMaster(r)) return;
  if (ctx.operation === 'update' && onlyGarbageCollectionFieldsChanged(obj, old)) return;
  const resource = kind === 'RoleBinding' ? 'rolebindings' : 'clusterrolebindings';
  const name = obj.metadata.name ?? '';
  const namespace = kind === 'RoleBinding' ? ctx.namespace : '';
  const raw: Partial<BindingObject['roleRef']> = obj.roleRef ?? {};
  const ref = { apiGroup: raw.apiGroup ?? '', kind: raw.kind ?? '', name: raw.name ?? '' };
  const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined;
  if (refResource !== undefined
    && allowed(r, { verb: 'bind', apiGroup: ref.apiGroup, apiVersion: '', resource: refResource, name: ref.name, namespace })) return;
  const rules = r.ruleResolver?.roleRefRules(ref, namespace)
    ?? (refResource === undefined ? `unsupported role reference kind: ${JSON.stringify(ref.kind)}` : `${ref.kind.toLowerCase()}.${ctx.naming.group('rbac')} ${JSON.stringify(ref.name)} not found`);
  if (typeof rules === 'string') throw rbacForbidden(ctx, resource, name, rules);
  const message = escalationMessage(r, namespace, rules);
  if (message !== undefined) throw rbacForbidden(ctx, resource, name, message);
}

/** The `admit` hook of the Role and ClusterRole kinds. */
export const admitRoleWrite = (kind: 'Role' | 'ClusterRole') =>
  (obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void => confirmRoleWrite(kind, obj as RoleObject, old as RoleObject | undefined, ctx);

/** The `admit` hook of the RoleBinding and ClusterRoleBinding kinds. */
export const admitBindingWrite = (kind: 'RoleBinding' | 'ClusterRoleBinding') =>
  (obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void => confirmBindingWrite(kind, obj as BindingObject, old as BindingObject | undefined, ctx);
