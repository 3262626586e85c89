/**
 * The rbac/v1 object shapes the authorizer reads, as they arrive in JSON from the RBAC kinds' watch caches
 * (Role, ClusterRole, RoleBinding, ClusterRoleBinding). Optional lists may be missing or null in stored
 * objects; readers treat both as empty.
 */
import type { KubeObject } from '../api/object.js';

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[] | null;
  readonly resources?: readonly string[] | null;
  readonly resourceNames?: readonly string[] | null;
  readonly nonResourceURLs?: readonly string[] | null;
}

export type SubjectKind = 'User' | 'Group' | 'ServiceAccount';

export interface Subject {
  /** `User`, `Group`, `ServiceAccount`; anything else never matches. */
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  /** ServiceAccount only; in a RoleBinding it defaults to the binding's namespace. */
  readonly namespace?: string;
}

export interface RoleRef {
  readonly apiGroup: string;
  /** `Role` or `ClusterRole`. */
  readonly kind: string;
  readonly name: string;
}

export interface RoleObject extends KubeObject {
  readonly rules?: readonly PolicyRule[] | null;
}

export interface BindingObject extends KubeObject {
  readonly subjects?: readonly Subject[] | null;
  readonly roleRef: RoleRef;
}

/** The user name of a service account: `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** A list field of a stored rule: missing and null read as empty. */
export function listOf(values: readonly string[] | null | undefined): readonly string[] {
  return values ?? [];
}
