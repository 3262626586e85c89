/**
 * Whether a binding's subject names a user (Kubernetes' appliesToUser): a `User` by exact name, a `Group`
 * by membership (`system:authenticated`, `system:unauthenticated` and `system:masters` are ordinary group
 * names here), a `ServiceAccount` by the user name `system:serviceaccount:<ns>:<name>`, its namespace
 * defaulting to the binding's (a ClusterRoleBinding has none, so there it must be given). Other kinds
 * never match.
 */
import type { UserInfo } from '../auth/user-info.js';
import { serviceAccountUsername, type Subject } from './rbac-types.js';

/**
 * The user name a subject stands for, as the index keys it: a User's name, a ServiceAccount's user name;
 * undefined for a Group (keyed by group name) and for subjects that can match nobody.
 */
export function subjectUserName(subject: Subject, bindingNamespace: string): string | undefined {
  if (subject.kind === 'User') return subject.name;
  if (subject.kind !== 'ServiceAccount') return undefined;
  const ns = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
  return ns === '' ? undefined : serviceAccountUsername(ns, subject.name);
}

export function subjectMatches(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  if (subject.kind === 'Group') return user.groups.includes(subject.name);
  const name = subjectUserName(subject, bindingNamespace);
  return name !== undefined && name === user.name;
}

/** Kubernetes' description of a subject in an "allowed by" reason: `User "bob"`, `ServiceAccount "sa/ns"`. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const ns = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : bindingNamespace;
    return `${subject.kind} ${JSON.stringify(`${subject.name}/${ns}`)}`;
  }
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}
