/**
 * The built-in kinds, in the order discovery lists them. The registry, discovery and the OpenAPI
 * documents all take their kinds from here, so a new built-in kind is one entry.
 */
import type { KindStrategy } from '../kind-strategy.js';
import { configMaps } from './core/configmap.js';
import { events } from './core/event.js';
import { namespaces } from './core/namespace.js';
import { nodes, nodesFor } from './core/node.js';
import { DEFAULT_GROUP_DOMAIN, naming, type Naming } from '../../naming/naming.js';
import { pods } from './core/pod.js';
import { legacyBindings } from './core/pod-binding.js';
import { podTemplates } from './core/podtemplate.js';
import { secrets } from './core/secret.js';
import { serviceAccounts } from './core/serviceaccount.js';
import { services } from './core/service.js';
import { eventsV1 } from './events/event.js';
import { selfSubjectReviews } from './authentication/self-subject-review.js';
import { tokenReviews } from './authentication/token-review.js';
import { localSubjectAccessReviews } from './authorization/local-subject-access-review.js';
import { selfSubjectAccessReviews } from './authorization/self-subject-access-review.js';
import { selfSubjectRulesReviews } from './authorization/self-subject-rules-review.js';
import { subjectAccessReviews } from './authorization/subject-access-review.js';
import { clusterRoleBindings } from './rbac/clusterrolebinding.js';
import { clusterRoles } from './rbac/clusterrole.js';
import { roleBindings } from './rbac/rolebinding.js';
import { roles } from './rbac/role.js';
import { apiServices } from './apiregistration/apiservice.js';
import { customResourceDefinitions } from './apiextensions/crd.js';
import { validatingAdmissionPolicies } from './admissionregistration/validating-admission-policy.js';
import { validatingAdmissionPolicyBindings } from './admissionregistration/validating-admission-policy-binding.js';
import { leases } from './coordination/lease.js';
import { endpointSlices } from './discovery/endpointslice.js';
import { storageClasses } from './storage/storageclass.js';
import { volumeAttachments } from './storage/volumeattachment.js';
import { jobs } from './batch/job.js';
import { statefulSets } from './apps/statefulset.js';
import { controllerRevisions } from './apps/controllerrevision.js';
import { persistentVolumeClaims } from './core/persistentvolumeclaim.js';
import { replicationControllers } from './core/replicationcontroller.js';
import { horizontalPodAutoscalers } from './autoscaling/horizontalpodautoscaler.js';
import { ipAddresses } from './networking/ipaddress.js';
import { serviceCIDRs } from './networking/servicecidr.js';
import { certificateSigningRequests } from './certificates/certificatesigningrequest.js';

const BUILTIN: readonly KindStrategy[] = Object.freeze([
  configMaps,
  events,
  namespaces,
  nodes,
  pods,
  // The legacy `bindings` (virtual: create only, writes the pod its Binding names).
  legacyBindings,
  podTemplates,
  secrets,
  serviceAccounts,
  services,
  eventsV1,
  clusterRoleBindings,
  clusterRoles,
  roleBindings,
  roles,
  customResourceDefinitions,
  apiServices,
  validatingAdmissionPolicies,
  validatingAdmissionPolicyBindings,
  leases,
  endpointSlices,
  storageClasses,
  volumeAttachments,
  jobs,
  statefulSets,
  controllerRevisions,
  persistentVolumeClaims,
  replicationControllers,
  horizontalPodAutoscalers,
  certificateSigningRequests,
  // networking.<domain>/v1beta1: off unless --runtime-config enables it.
  serviceCIDRs,
  ipAddresses,
  // The review APIs: virtual (create only, never stored).
  selfSubjectReviews,
  tokenReviews,
  localSubjectAccessReviews,
  selfSubjectAccessReviews,
  selfSubjectRulesReviews,
  subjectAccessReviews,
]);

let kubernetesNames: readonly KindStrategy[] | undefined;

/**
 * The built-in kinds under a naming. Kinds whose member names carry a domain word (Node: the node agent is
 * `nodeagent` in the documents, `kubelet` in Kubernetes) come in that naming's spelling; default: the
 * documents' names.
 */
export function builtinKinds(n: Naming = naming(DEFAULT_GROUP_DOMAIN)): readonly KindStrategy[] {
  if (n.nodeAgent === 'nodeagent') return BUILTIN;
  kubernetesNames ??= Object.freeze(BUILTIN.map((k) => (k === nodes ? nodesFor(n) : k)));
  return kubernetesNames;
}
