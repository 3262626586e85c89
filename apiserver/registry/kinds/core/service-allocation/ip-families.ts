/**
 * `spec.ipFamilyPolicy` and `spec.ipFamilies` of a Service, filled in from the cluster's service ranges as
 * Kubernetes 1.32's allocator does before it allocates (initIPFamilyFields), for every type but
 * ExternalName, with its messages:
 *
 * - an unchanged PreferDualStack Service is left as it is (no upgrade or downgrade when the cluster changes);
 * - no policy: the old object's on update; else RequireDualStack for a headless Service without a
 *   selector; else SingleStack;
 * - on update, SingleStack with the old addresses and families trims them to the primary one; another
 *   policy may not drop the secondary;
 * - SingleStack with two addresses or two families is refused; families missing are read from the
 *   addresses (one of a family the cluster has no range for is refused);
 * - a headless Service without a selector gets the default family, and the other one unless SingleStack,
 *   whatever the cluster has;
 * - RequireDualStack on a single-stack cluster and a family without a range are refused;
 * - no families: the cluster's primary one; a policy other than SingleStack on a dual-stack cluster adds
 *   the other family.
 */
import { FieldPath, invalidValue, type FieldError } from '../../../../validation/field-error.js';
import { clusterIPsOf, ipFamiliesOf } from '../service-defaults.js';
import { ipToBig, type IPFamily } from './ip-range.js';

type Rec = Record<string, unknown>;
const spec = FieldPath.root('spec');
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const other = (f: IPFamily): IPFamily => (f === 'IPv4' ? 'IPv6' : 'IPv4');
const goList = (items: readonly string[]): string => `[]string{${items.map((x) => JSON.stringify(x)).join(', ')}}`;

/** An unchanged PreferDualStack Service (same type, addresses and families): nothing to do. */
function unchangedPreferDualStack(s: Rec, old: Rec | undefined): boolean {
  if (old === undefined || s.ipFamilyPolicy !== 'PreferDualStack' || old.ipFamilyPolicy !== 'PreferDualStack' || s.type !== old.type) return false;
  return sameList(clusterIPsOf(s), clusterIPsOf(old)) && sameList(ipFamiliesOf(s), ipFamiliesOf(old));
}

export function initIPFamilies(s: Rec, old: Rec | undefined, clusterFamilies: readonly IPFamily[]): FieldError[] {
  if (unchangedPreferDualStack(s, old)) return [];
  const headlessNoSelector = s.clusterIP === 'None' && Object.keys((s.selector as Rec | undefined) ?? {}).length === 0;
  if (s.ipFamilyPolicy === undefined || s.ipFamilyPolicy === null) {
    if (old !== undefined && typeof old.ipFamilyPolicy === 'string') s.ipFamilyPolicy = old.ipFamilyPolicy;
    else s.ipFamilyPolicy = headlessNoSelector ? 'RequireDualStack' : 'SingleStack';
  }
  const policy = s.ipFamilyPolicy;
  const errs: FieldError[] = [];
  let ips = clusterIPsOf(s);
  const families = ipFamiliesOf(s) as IPFamily[];

  if (old !== undefined) {
    if (policy === 'SingleStack') {
      if (sameList(ips, clusterIPsOf(old)) && ips.length > 1) s.clusterIPs = ips = ips.slice(0, 1);
      if (sameList(families, ipFamiliesOf(old)) && families.length > 1) families.splice(1);
    } else {
      const oldIPs = clusterIPsOf(old);
      const oldFamilies = ipFamiliesOf(old);
      if (ips.length < oldIPs.length && ips.length > 0) errs.push(invalidValue(spec.child('ipFamilyPolicy'), policy, "must be 'SingleStack' to release the secondary cluster IP"));
      if (families.length < oldFamilies.length && families.length > 0) errs.push(invalidValue(spec.child('ipFamilyPolicy'), policy, "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  if (policy === 'SingleStack') {
    if (ips.length === 2) errs.push(invalidValue(spec.child('ipFamilyPolicy'), policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (families.length === 2) errs.push(invalidValue(spec.child('ipFamilyPolicy'), policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  for (let i = 0; i < ips.length; i++) {
    if (ips[i] === 'None') break;
    const fam = ipToBig(ips[i]!)?.family;
    if (fam === undefined || i < families.length) continue;
    if (!clusterFamilies.includes(fam)) errs.push({ type: 'FieldValueInvalid', field: `spec.clusterIPs[${i}]`, detail: `${goList(ips)}: ${fam} is not configured on this cluster` });
    else families.push(fam);
  }
  if (errs.length > 0) return errs;

  if (headlessNoSelector) {
    if (families.length === 0) families.push(clusterFamilies[0]!);
    if (families.length < 2 && policy !== 'SingleStack') families.push(other(families[0]!));
    s.ipFamilies = families;
    return [];
  }
  if (policy === 'RequireDualStack' && clusterFamilies.length < 2) {
    errs.push(invalidValue(spec.child('ipFamilyPolicy'), policy, 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((f, i) => {
    if (!clusterFamilies.includes(f)) errs.push(invalidValue(spec.child('ipFamilies').index(i), f, 'not configured on this cluster'));
  });
  if (errs.length > 0) return errs;
  if (families.length === 0) families.push(clusterFamilies[0]!);
  if (policy !== 'SingleStack' && families.length === 1 && clusterFamilies.length === 2) families.push(other(families[0]!));
  s.ipFamilies = families;
  return [];
}
