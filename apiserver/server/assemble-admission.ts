/**
 * The ValidatingAdmissionPolicy plugin of a server, over the served resources: policies and bindings from
 * their watch caches (every replica follows them, so a change is in force everywhere within moments),
 * params from the watch cache of whatever kind a policy names, namespaces from theirs, and the server's
 * authorizer for the `authorizer` variable. Undefined when the policy kinds are not served
 * (`--runtime-config` turned them off).
 */
import type { Authorizer } from '../authorization/authorizer.js';
import type { ServedResources } from '../registry/served-resources.js';
import type { Logger } from '../log/logger.js';
import type { Naming } from '../naming/naming.js';
import { policyAdmission, type PolicyAdmission } from '../admission/policy/policy-admission.js';
import { registryNamespaces, registrySource, servedParams } from '../admission/policy/sources.js';
import type { PolicyCheckMetrics } from '../admission/policy/dispatcher.js';

export function policyAdmissionOf(
  resources: ServedResources,
  naming: Naming,
  authorizer: Authorizer,
  logger: Logger,
  metrics?: PolicyCheckMetrics,
): PolicyAdmission | undefined {
  const group = naming.group('admissionregistration');
  const policies = resources.lookup(group, 'v1', 'validatingadmissionpolicies')?.registry;
  const bindings = resources.lookup(group, 'v1', 'validatingadmissionpolicybindings')?.registry;
  const namespaces = resources.lookup('', 'v1', 'namespaces')?.registry;
  if (policies === undefined || bindings === undefined || namespaces === undefined) return undefined;
  const log = logger.child({ component: 'validating-admission-policy' });
  return policyAdmission({
    policies: registrySource(policies),
    bindings: registrySource(bindings),
    params: servedParams(resources),
    namespaces: registryNamespaces(namespaces),
    authorizer,
    naming,
    onError: (err) => log.warn({ err }, 'validating admission policy'),
    ...(metrics === undefined ? {} : { metrics }),
  });
}
