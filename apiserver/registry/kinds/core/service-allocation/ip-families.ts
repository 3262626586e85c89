/**
 * `spec.ipFamilyPolicy` and `spec.ipFamilies` of a Service, filled in from the cluster's service ranges as
 * Kubernetes' allocator does before it allocates (initIPFamilyFields), for every type but ExternalName:
 *
 * - families are first read from the cluster IPs the client gave;
 * - no policy: RequireDualStack when two families were asked for, else SingleStack;
 * - SingleStack with two families, RequireDualStack on a single-stack cluster, or a family the cluster has
 *   no range for are 422s with Kubernetes' messages;
 * - no families: the cluster's primary family; PreferDualStack or RequireDualStack on a dual-stack cluster
 *   add the other family;
 * - a headless Service without a selector gets every family the cluster has unless it is SingleStack.
 *
 * On update, a downgrade to SingleStack drops the secondary family and cluster IP.
 */
import { FieldPath, invalidValue, type FieldError } from '../../../../validation/field-error.js';
import { clusterIPsOf, ipFamiliesOf, isHeadless } from '../service-defaults.js';
import { ipToBig, type IPFamily } from './ip-range.js';

type Rec = Record<string, unknown>;
const spec = FieldPath.root('spec');

export function initIPFamilies(s: Rec, old: Rec | undefined, clusterFamilies: readonly IPFamily[]): FieldError[] {
  const errs: FieldError[] = [];
  const dualStackCluster = clusterFamilies.length > 1;
  const families = ipFamiliesOf(s) as IPFamily[];
  const ips = clusterIPsOf(s);
  // A downgrade (old had two families, the policy is now SingleStack) releases the secondary.
  if (old !== undefined && s.ipFamilyPolicy === 'SingleStack' && ipFamiliesOf(old).length === 2) {
    if (ips.length === 2) s.clusterIPs = ips.slice(0, 1);
    if (families.length === 2) families.splice(1);
  }
  clusterIPsOf(s).forEach((ip, i) => {
    if (ip === 'None' || ip === '') return;
    const fam = ipToBig(ip)?.family;
    if (fam !== undefined && i >= families.length) families.push(fam);
  });
  const headlessNoSelector = isHeadless(s) && Object.keys((s.selector as Rec | undefined) ?? {}).length === 0;
  if (s.ipFamilyPolicy === undefined || s.ipFamilyPolicy === null) {
    if (headlessNoSelector && families.length === 0) s.ipFamilyPolicy = dualStackCluster ? 'RequireDualStack' : 'SingleStack';
    else s.ipFamilyPolicy = families.length === 2 ? 'RequireDualStack' : 'SingleStack';
  }
  const policy = s.ipFamilyPolicy;
  if (policy === 'SingleStack' && families.length > 1) {
    errs.push(invalidValue(spec.child('ipFamilyPolicy'), policy, 'must be RequireDualStack or PreferDualStack when multiple IPFamilies are specified'));
  }
  if (policy === 'RequireDualStack' && !dualStackCluster) {
    errs.push(invalidValue(spec.child('ipFamilyPolicy'), policy, 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((f, i) => {
    if ((f === 'IPv4' || f === 'IPv6') && !clusterFamilies.includes(f)) errs.push(invalidValue(spec.child('ipFamilies').index(i), f, 'not configured on this cluster'));
  });
  if (errs.length > 0) return errs;
  if (families.length === 0) families.push(clusterFamilies[0]!);
  if (policy !== 'SingleStack' && dualStackCluster && families.length === 1) families.push(clusterFamilies.find((f) => f !== families[0])!);
  s.ipFamilies = families;
  return errs;
}
