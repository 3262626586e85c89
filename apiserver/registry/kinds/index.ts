/**
 * The built-in kinds, in the order discovery lists them. The registry, discovery and the OpenAPI
 * documents all take their kinds from here, so a new built-in kind is one entry.
 */
import type { KindStrategy } from '../kind-strategy.js';
import { configMaps } from './core/configmap.js';
import { events } from './core/event.js';
import { namespaces } from './core/namespace.js';
import { nodes } from './core/node.js';
import { podTemplates } from './core/podtemplate.js';
import { secrets } from './core/secret.js';
import { serviceAccounts } from './core/serviceaccount.js';
import { eventsV1 } from './events/event.js';
import { clusterRoleBindings } from './rbac/clusterrolebinding.js';
import { clusterRoles } from './rbac/clusterrole.js';
import { roleBindings } from './rbac/rolebinding.js';
import { roles } from './rbac/role.js';

const BUILTIN: readonly KindStrategy[] = Object.freeze([
  configMaps,
  events,
  namespaces,
  nodes,
  podTemplates,
  secrets,
  serviceAccounts,
  eventsV1,
  clusterRoleBindings,
  clusterRoles,
  roleBindings,
  roles,
]);

export function builtinKinds(): readonly KindStrategy[] {
  return BUILTIN;
}
