/**
 * The domain-bearing names of RBAC, derived from the naming module so `--group-domain=k8s.io` gives
 * Kubernetes' own spelling and any other domain the documents' (`rbac.platform.io`):
 *
 *   what                               | k8s.io                                        | platform.io
 *   ---------------------------------- | --------------------------------------------- | ------------------------------
 *   API group                          | `rbac.authorization.k8s.io`                   | `rbac.platform.io`
 *   autoupdate annotation              | `rbac.authorization.kubernetes.io/autoupdate` | `rbac.platform.io/autoupdate`
 *   bootstrapping label                | `kubernetes.io/bootstrapping`                 | `platform.io/bootstrapping`
 *   aggregation labels                 | `rbac.authorization.k8s.io/aggregate-to-view` | `rbac.platform.io/aggregate-to-view`
 */
import type { Naming } from '../../../naming/naming.js';
import { legacyDomain, legacyKey } from '../shared/legacy-domain.js';

/** The RBAC API group; also the `apiGroup` of User and Group subjects and of every roleRef. */
export const rbacGroup = (naming: Naming): string => naming.group('rbac');

/** The group's name under the legacy domain: `rbac.authorization.kubernetes.io` / `rbac.platform.io`. */
function rbacLegacyPrefix(naming: Naming): string {
  const group = rbacGroup(naming);
  const stem = group.slice(0, group.length - naming.domain.length - 1);
  return `${stem}.${legacyDomain(naming)}`;
}

/**
 * The annotation that lets the bootstrap reconciler repair a role or binding (`"true"`); `"false"` leaves
 * an administrator's changes alone.
 */
export const autoupdateAnnotation = (naming: Naming): string => `${rbacLegacyPrefix(naming)}/autoupdate`;

/** The label every bootstrap object carries, with the value `rbac-defaults`. */
export const bootstrappingLabel = (naming: Naming): string => legacyKey(naming, 'bootstrapping');

/** `aggregate-to-view` -> the label the aggregated `view` role selects on. */
export const aggregateLabel = (naming: Naming, to: 'admin' | 'edit' | 'view'): string => `${rbacGroup(naming)}/aggregate-to-${to}`;

export const SUBJECT_KINDS = Object.freeze(['ServiceAccount', 'User', 'Group'] as const);
