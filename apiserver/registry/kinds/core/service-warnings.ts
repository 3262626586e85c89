/**
 * The warnings Kubernetes v1.32 returns with a Service create or update (getWarningsForService), sent as
 * `Warning: 299` headers: the deprecated topology-aware-hints annotation; addresses written the
 * non-standard way (IPv4 octets with leading zeros, IPv4-mapped IPv6) in clusterIPs, externalIPs and
 * loadBalancerIP, and such CIDRs in loadBalancerSourceRanges; externalIPs on an ExternalName Service and
 * externalName on any other type, which are ignored.
 */
import type { KubeObject } from '../../../api/object.js';
import { canonicalIP } from './service-allocation/ip-range.js';
import { clusterIPsOf, typeOf } from './service-defaults.js';

type Rec = Record<string, unknown>;
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const TOPOLOGY_HINTS = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';

const nonStandard = (field: string, value: string, canonical: string): string =>
  `${field}: non-standard IP or CIDR value ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(canonical)}`;

/** A warning when `ip` is an address written in a non-standard form (GetWarningsForIP). */
function ipWarning(field: string, ip: string): string[] {
  if (ip.includes(':') && ip.includes('.')) {
    // IPv4-mapped IPv6 (`::ffff:1.2.3.4`): Kubernetes asks for the plain IPv4 address.
    const canonical = canonicalIP(ip);
    return canonical !== undefined && !canonical.includes(':') ? [nonStandard(field, ip, canonical)] : [];
  }
  if (/(^|\.)0\d/.test(ip)) {
    const canonical = canonicalIP(ip);
    return canonical !== undefined ? [nonStandard(field, ip, canonical)] : [];
  }
  return [];
}

function cidrWarning(field: string, cidr: string): string[] {
  const slash = cidr.indexOf('/');
  if (slash < 0) return [];
  const ip = cidr.slice(0, slash).trim();
  if (!/(^|\.)0\d/.test(ip)) return [];
  const canonical = canonicalIP(ip);
  return canonical === undefined ? [] : [nonStandard(field, cidr, `${canonical}${cidr.slice(slash)}`)];
}

export function serviceWarnings(svc: KubeObject): string[] {
  const out: string[] = [];
  const s = (svc.spec as Rec | undefined) ?? {};
  if ((svc.metadata.annotations ?? {})[TOPOLOGY_HINTS] !== undefined) out.push(`annotation ${TOPOLOGY_HINTS} is deprecated, please use ${TOPOLOGY_MODE} instead`);
  clusterIPsOf(s).forEach((ip, i) => {
    if (ip !== 'None' && ip !== '') out.push(...ipWarning(`spec.clusterIPs[${i}]`, ip));
  });
  strList(s.externalIPs).forEach((ip, i) => out.push(...ipWarning(`spec.externalIPs[${i}]`, ip)));
  if (typeof s.loadBalancerIP === 'string' && s.loadBalancerIP !== '') out.push(...ipWarning('spec.loadBalancerIP', s.loadBalancerIP));
  strList(s.loadBalancerSourceRanges).forEach((c, i) => out.push(...cidrWarning(`spec.loadBalancerSourceRanges[${i}]`, c)));
  if (typeOf(s) === 'ExternalName' && strList(s.externalIPs).length > 0) out.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (typeOf(s) !== 'ExternalName' && typeof s.externalName === 'string' && s.externalName !== '') out.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  return out;
}
