/**
 * The 403 of a request no authorizer allowed, in Kubernetes' exact words (responsewriters.Forbidden):
 *
 *   configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"
 *   pods is forbidden: User "bob" cannot list resource "pods" in API group "" at the cluster scope
 *   pods "p" is forbidden: User "bob" cannot get resource "pods/log" in API group "" in the namespace "ns"
 *   forbidden: User "bob" cannot get path "/metrics"
 *
 * followed by `: <reason>` when the authorizers gave one. The Status details name the group, the resource
 * (without the sub-resource) and the name, as NewForbidden does.
 */
import { forbidden } from '../errors/constructors.js';
import type { StatusError } from '../errors/status-error.js';
import type { AuthorizationAttributes } from './authorizer.js';
import { combinedResource } from './rule-matching.js';

const q = (s: string): string => JSON.stringify(s);

export function forbiddenMessage(a: AuthorizationAttributes): string {
  const user = q(a.user.name);
  if (!a.isResourceRequest) return `User ${user} cannot ${a.verb} path ${q(a.path)}`;
  const what = `User ${user} cannot ${a.verb} resource ${q(combinedResource(a.resource, a.subresource))} in API group ${q(a.apiGroup)}`;
  return a.namespace === '' ? `${what} at the cluster scope` : `${what} in the namespace ${q(a.namespace)}`;
}

export function forbiddenError(a: AuthorizationAttributes, reason: string): StatusError {
  const message = forbiddenMessage(a);
  const detail = reason === '' ? message : `${message}: ${reason}`;
  if (!a.isResourceRequest) return forbidden(undefined, '', detail);
  return forbidden({ group: a.apiGroup, resource: a.resource }, a.name, detail);
}
