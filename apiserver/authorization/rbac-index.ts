/**
 * The in-memory RBAC policy the authorizer decides from: roles by namespace and name, cluster roles by
 * name, and every binding indexed by subject (user name — service accounts by their user name — and group
 * name), RoleBindings per namespace. A decision reads the user's entry and one entry per group in the
 * cluster index and, for a namespaced request, in that namespace's index: a few map lookups, never a
 * store read. Roles are resolved by name at decision time, so a role change applies at once to every
 * binding that references it.
 *
 * Fed by `rbac-feed.ts` from the watch caches; objects are taken as they arrive (the RBAC kinds validated
 * them). The feed and the requests run on one thread, so a decision always sees one consistent state.
 */
import type { UserInfo } from '../auth/user-info.js';
import { type BindingObject, type PolicyRule, type RoleRef, type Subject } from './rbac-types.js';
import { describeSubject, subjectUserName } from './subject-matching.js';

export type BindingKind = 'RoleBinding' | 'ClusterRoleBinding';

interface BindingRecord {
  readonly kind: BindingKind;
  /** '' for a ClusterRoleBinding. */
  readonly namespace: string;
  readonly name: string;
  readonly roleRef: RoleRef;
}

interface BindingEntry {
  readonly binding: BindingRecord;
  readonly subject: Subject;
}

/** Bindings by subject, for one scope (the cluster, or one namespace). */
interface SubjectIndex {
  readonly users: Map<string, BindingEntry[]>;
  readonly groups: Map<string, BindingEntry[]>;
}

/** Where a rule came from, for the "allowed by" reason (Kubernetes' binding describers). */
export interface RuleSource {
  readonly binding: BindingRecord;
  readonly subject: Subject;
}

export function describeSource(s: RuleSource): string {
  const b = s.binding;
  const name = b.kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
  return `${b.kind} ${JSON.stringify(name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(s.subject, b.namespace)}`;
}

/**
 * Called per rule of each binding that applies to the user (cluster bindings first, then the namespace's),
 * or with an error message when a binding's role cannot be resolved. Return false to stop.
 */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

/** Resolves the rules a user holds (RBAC's rule resolver): for escalation checks and rules reviews. */
export interface RuleResolver {
  /**
   * The rules `user` holds in `namespace` ('' : cluster-wide rules only) and the messages of bindings whose
   * roles are missing (the rules are then incomplete, as Kubernetes reports them).
   */
  rulesFor(user: UserInfo, namespace: string): { readonly rules: readonly PolicyRule[]; readonly errors: readonly string[] };
  /** The rules of a role reference as a binding in `bindingNamespace` would get them; a string when missing. */
  roleRefRules(roleRef: RoleRef, bindingNamespace: string): readonly PolicyRule[] | string;
}

function newSubjectIndex(): SubjectIndex {
  return { users: new Map(), groups: new Map() };
}

function removeFrom(map: Map<string, BindingEntry[]>, key: string, binding: BindingRecord): void {
  const list = map.get(key);
  if (list === undefined) return;
  const kept = list.filter((e) => e.binding !== binding);
  if (kept.length === 0) map.delete(key);
  else map.set(key, kept);
}

const EMPTY: readonly BindingEntry[] = Object.freeze([]);

export class RbacIndex implements RuleResolver {
  private readonly roles = new Map<string, readonly PolicyRule[]>();
  private readonly clusterRoles = new Map<string, readonly PolicyRule[]>();
  private readonly cluster = newSubjectIndex();
  private readonly namespaces = new Map<string, SubjectIndex>();
  /** `kind/namespace/name` -> the record and the index keys it was filed under, to remove it again. */
  private readonly bindings = new Map<string, { record: BindingRecord; keys: { group: boolean; key: string }[] }>();

  /**
   * @param rbacGroup the RBAC API group (`rbac.authorization.k8s.io` / `rbac.<domain>`), for the messages
   *   about missing roles (`clusterrole.rbac.authorization.k8s.io "x" not found`).
   */
  constructor(private readonly rbacGroup: string) {}

  setRole(namespace: string, name: string, rules: readonly PolicyRule[] | null | undefined): void {
    this.roles.set(`${namespace}/${name}`, rules ?? []);
  }

  deleteRole(namespace: string, name: string): void {
    this.roles.delete(`${namespace}/${name}`);
  }

  setClusterRole(name: string, rules: readonly PolicyRule[] | null | undefined): void {
    this.clusterRoles.set(name, rules ?? []);
  }

  deleteClusterRole(name: string): void {
    this.clusterRoles.delete(name);
  }

  /** Adds or replaces a binding (`namespace` '' for a ClusterRoleBinding). */
  setBinding(kind: BindingKind, namespace: string, obj: BindingObject): void {
    const name = obj.metadata.name ?? '';
    this.deleteBinding(kind, namespace, name);
    if (obj.roleRef === undefined || obj.roleRef === null) return;
    const record: BindingRecord = { kind, namespace, name, roleRef: obj.roleRef };
    const index = this.scope(namespace, true)!;
    const keys: { group: boolean; key: string }[] = [];
    for (const subject of obj.subjects ?? []) {
      if (subject === null || typeof subject !== 'object') continue;
      let map: Map<string, BindingEntry[]>;
      let key: string | undefined;
      if (subject.kind === 'Group') {
        map = index.groups;
        key = subject.name;
      } else {
        map = index.users;
        key = subjectUserName(subject, namespace);
      }
      if (key === undefined) continue;
      const list = map.get(key);
      const entry: BindingEntry = { binding: record, subject };
      if (list === undefined) map.set(key, [entry]);
      else if (!list.some((e) => e.binding === record)) list.push(entry);
      keys.push({ group: subject.kind === 'Group', key });
    }
    this.bindings.set(`${kind}/${namespace}/${name}`, { record, keys });
  }

  deleteBinding(kind: BindingKind, namespace: string, name: string): void {
    const id = `${kind}/${namespace}/${name}`;
    const existing = this.bindings.get(id);
    if (existing === undefined) return;
    this.bindings.delete(id);
    const index = this.scope(namespace, false);
    if (index === undefined) return;
    for (const k of existing.keys) removeFrom(k.group ? index.groups : index.users, k.key, existing.record);
    if (namespace !== '' && index.users.size === 0 && index.groups.size === 0) this.namespaces.delete(namespace);
  }

  /** Counts, for tests and metrics. */
  get size(): { roles: number; clusterRoles: number; bindings: number } {
    return { roles: this.roles.size, clusterRoles: this.clusterRoles.size, bindings: this.bindings.size };
  }

  roleRefRules(roleRef: RoleRef, bindingNamespace: string): readonly PolicyRule[] | string {
    if (roleRef.kind === 'ClusterRole') {
      return this.clusterRoles.get(roleRef.name) ?? `clusterrole.${this.rbacGroup} ${JSON.stringify(roleRef.name)} not found`;
    }
    if (roleRef.kind === 'Role') {
      return this.roles.get(`${bindingNamespace}/${roleRef.name}`) ?? `role.${this.rbacGroup} ${JSON.stringify(roleRef.name)} not found`;
    }
    return `unsupported role reference kind: ${JSON.stringify(roleRef.kind)}`;
  }

  /** Visits the rules of every binding that applies to `user`: cluster bindings, then `namespace`'s. */
  visitRulesFor(user: UserInfo, namespace: string, visitor: RuleVisitor): void {
    if (!this.visitScope(this.cluster, user, visitor)) return;
    if (namespace === '') return;
    const index = this.namespaces.get(namespace);
    if (index !== undefined) this.visitScope(index, user, visitor);
  }

  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule !== undefined) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }

  private scope(namespace: string, create: boolean): SubjectIndex | undefined {
    if (namespace === '') return this.cluster;
    let index = this.namespaces.get(namespace);
    if (index === undefined && create) {
      index = newSubjectIndex();
      this.namespaces.set(namespace, index);
    }
    return index;
  }

  /** False when the visitor asked to stop. A binding matched through several subjects is visited once. */
  private visitScope(index: SubjectIndex, user: UserInfo, visitor: RuleVisitor): boolean {
    let visited: Set<BindingRecord> | undefined;
    const lists: (readonly BindingEntry[])[] = [index.users.get(user.name) ?? EMPTY];
    for (const g of user.groups) {
      const l = index.groups.get(g);
      if (l !== undefined) lists.push(l);
    }
    const several = lists.filter((l) => l.length > 0).length > 1;
    for (const list of lists) {
      for (const entry of list) {
        if (several) {
          visited ??= new Set();
          if (visited.has(entry.binding)) continue;
          visited.add(entry.binding);
        }
        const rules = this.roleRefRules(entry.binding.roleRef, entry.binding.namespace);
        if (typeof rules === 'string') {
          if (!visitor(undefined, undefined, rules)) return false;
          continue;
        }
        for (const rule of rules) if (!visitor(entry, rule, undefined)) return false;
      }
    }
    return true;
  }
}

