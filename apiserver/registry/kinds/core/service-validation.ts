/**
 * Kubernetes v1.32's Service validation (ValidateService, ValidateServiceUpdate,
 * ValidateServiceStatusUpdate) with its field paths and messages. ObjectMeta (a DNS-1035 label name) is the
 * registry's. Runs after the defaults (service-defaults.ts), so `type`, `sessionAffinity`, a port's
 * protocol and the traffic policies are set unless a client set them to something else.
 *
 * Whether a cluster IP is inside the service range, or already taken, is the allocator's business (it
 * answers `provided IP is already allocated` and the range messages); so is `ipFamilyPolicy`, which the
 * allocator fills in before the object is stored.
 */
import type { KubeObject } from '../../../api/object.js';
import { duplicate, FieldPath, forbidden, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortName, isValidPortNum } from '../../../validation/names.js';
import { validateLabels } from './pod/validate-metadata.js';
import { endpointIPProblems, parseIP } from '../discovery/endpoint-ip.js';
import { cidrFamily } from '../shared/cidr.js';
import { clusterIPsOf, externallyAccessible, ipFamiliesOf, isHeadless, needsHealthCheck, portsOf, typeOf } from './service-defaults.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const strOf = (v: unknown): string => (typeof v === 'string' ? v : '');
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const SESSION_AFFINITIES = ['ClientIP', 'None'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const INTERNAL_POLICIES = ['Cluster', 'Local'];
const EXTERNAL_POLICIES = ['Cluster', 'Local'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const IP_MODES = ['Proxy', 'VIP'];
export const MAX_CLIENT_IP_TIMEOUT = 86400;
const VALID_IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
const TOPOLOGY_HINTS = 'service.kubernetes.io/topology-aware-hints';
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

const spec = FieldPath.root('spec');

/** Go's `%#v` of a string slice, as Kubernetes prints list values in these messages. */
const goList = (type: string, items: readonly string[]): string => `[]${type}{${items.map((x) => JSON.stringify(x)).join(', ')}}`;
/** An Invalid error whose value is printed the Go way (the text given) rather than as JSON. */
const invalidGo = (path: FieldPath | string, rendered: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field: String(path), detail: `${rendered}: ${detail}` });
const ipsValue = (ips: readonly string[]): string => goList('string', ips);
const familiesValue = (f: readonly string[]): string => goList('core.IPFamily', f);

function validatePortNumOrName(value: unknown, path: FieldPath): FieldError[] {
  if (typeof value === 'number') return isValidPortNum(value).map((m) => invalidValue(path, value, m));
  if (typeof value === 'string') return isValidPortName(value).map((m) => invalidValue(path, value, m));
  return isValidPortNum(0).map((m) => invalidValue(path, 0, m));
}

/** IsValidIP: a parseable IP (Go's sloppy parser: IPv4 octets may have leading zeros). */
const ipProblems = (ip: string): string[] => (parseIP(ip) === undefined ? [VALID_IP_MSG] : []);

function validatePort(port: Rec, requireName: boolean, names: Set<string>, path: FieldPath, errs: FieldError[]): void {
  const name = strOf(port.name);
  if (requireName && name === '') errs.push(required(path.child('name')));
  else if (name !== '') {
    for (const m of isDNS1123Label(name)) errs.push(invalidValue(path.child('name'), name, m));
    if (names.has(name)) errs.push(duplicate(path.child('name'), name));
    else names.add(name);
  }
  const num = typeof port.port === 'number' ? port.port : 0;
  for (const m of isValidPortNum(num)) errs.push(invalidValue(path.child('port'), num, m));
  const protocol = strOf(port.protocol);
  if (protocol === '') errs.push(required(path.child('protocol')));
  else if (!PROTOCOLS.includes(protocol)) errs.push(notSupported(path.child('protocol'), protocol, PROTOCOLS));
  errs.push(...validatePortNumOrName(port.targetPort, path.child('targetPort')));
  if (typeof port.appProtocol === 'string') for (const m of isQualifiedName(port.appProtocol)) errs.push(invalidValue(path.child('appProtocol'), port.appProtocol, m));
}

function validateClientIPConfig(config: unknown, path: FieldPath, errs: FieldError[]): void {
  const detail = 'when session affinity type is ClientIP';
  const c = rec(config);
  if (c === undefined) return void errs.push(required(path, detail));
  const clientIP = rec(c.clientIP);
  if (clientIP === undefined) return void errs.push(required(path.child('clientIP'), detail));
  const t = clientIP.timeoutSeconds;
  if (typeof t !== 'number') return void errs.push(required(path.child('clientIP').child('timeoutSeconds'), detail));
  if (t <= 0 || t > MAX_CLIENT_IP_TIMEOUT) {
    errs.push(invalidValue(path.child('clientIP').child('timeoutSeconds'), t, `must be greater than 0 and less than ${MAX_CLIENT_IP_TIMEOUT}`));
  }
}

/** ValidateServiceClusterIPsRelatedFields. */
export function validateClusterIPFields(s: Rec): FieldError[] {
  if (typeOf(s) === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ipsPath = spec.child('clusterIPs');
  const famPath = spec.child('ipFamilies');
  const ip = strOf(s.clusterIP);
  const ips = clusterIPsOf(s);
  if (ip !== '') {
    if (ips.length === 0) errs.push(required(ipsPath));
    else if (ips[0] !== ip) errs.push(invalidGo(ipsPath, ipsValue(ips), 'first value must match `clusterIP`'));
  } else if (ips.length !== 0) {
    errs.push(invalidGo(ipsPath, ipsValue(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  ipFamiliesOf(s).forEach((f, i) => {
    if (!IP_FAMILIES.includes(f)) errs.push(notSupported(famPath.index(i), f, IP_FAMILIES));
    if (seen.has(f)) errs.push(duplicate(famPath.index(i), f));
    seen.add(f);
  });
  if (s.ipFamilyPolicy !== undefined && s.ipFamilyPolicy !== null && !IP_FAMILY_POLICIES.includes(strOf(s.ipFamilyPolicy))) {
    errs.push(notSupported(spec.child('ipFamilyPolicy'), s.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let badIPs = false;
  ips.forEach((v, i) => {
    if (i === 0 && v === 'None') {
      if (ips.length > 1) {
        badIPs = true;
        errs.push(invalidGo(ipsPath, ipsValue(ips), "'None' must be the first and only value"));
      }
      return;
    }
    for (const m of ipProblems(v)) {
      badIPs = true;
      errs.push(invalidValue(ipsPath.index(i), v, m));
    }
  });
  if (ips.length > 2) errs.push(invalidGo(ipsPath, ipsValue(ips), 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (ips.length > 1) {
    const fams = ips.map((v) => (parseIP(v)?.v4 === true ? 4 : 6));
    if (ips.length !== 2 || fams[0] === fams[1]) errs.push(invalidGo(ipsPath, ipsValue(ips), 'may specify no more than one IP for each IP family'));
  }
  const families = ipFamiliesOf(s);
  if (!isHeadless(s) && ips.length > 0 && families.length > 0) {
    ips.forEach((v, i) => {
      if (i > families.length - 1) return;
      const v6 = parseIP(v)?.v4 === false;
      if (families[i] === 'IPv4' && v6) errs.push(invalidValue(ipsPath.index(i), v, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !v6) errs.push(invalidValue(ipsPath.index(i), v, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

export function validateService(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const annotations = rec(svc.metadata.annotations) ?? {};
  if (annotations[TOPOLOGY_MODE] !== undefined && annotations[TOPOLOGY_HINTS] !== undefined && annotations[TOPOLOGY_MODE] !== annotations[TOPOLOGY_HINTS]) {
    errs.push(invalidValue(`metadata.annotations[${TOPOLOGY_MODE}]`, annotations[TOPOLOGY_MODE], `must match annotations[${TOPOLOGY_HINTS}] when both are specified`));
  }
  const s = rec(svc.spec) ?? {};
  const type = typeOf(s);
  const ports = portsOf(s);
  const headless = isHeadless(s);
  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(required(spec.child('ports')));
  const ips = clusterIPsOf(s);
  if (type === 'LoadBalancer' && headless) errs.push(invalidValue(spec.child('clusterIPs').index(0), ips[0], "may not be set to 'None' for LoadBalancer services"));
  if (type === 'NodePort' && headless) errs.push(invalidValue(spec.child('clusterIPs').index(0), ips[0], "may not be set to 'None' for NodePort services"));
  if (type === 'ExternalName') {
    if (ips.length > 0) errs.push(forbidden(spec.child('clusterIPs'), 'may not be set for ExternalName services'));
    if (ipFamiliesOf(s).length > 0) errs.push(forbidden(spec.child('ipFamilies'), 'may not be set for ExternalName services'));
    if (s.ipFamilyPolicy !== undefined && s.ipFamilyPolicy !== null) errs.push(forbidden(spec.child('ipFamilyPolicy'), 'may not be set for ExternalName services'));
    const cname = strOf(s.externalName).replace(/\.$/, '');
    if (cname !== '') for (const m of isDNS1123Subdomain(cname)) errs.push(invalidValue(spec.child('externalName'), cname, m));
    else errs.push(required(spec.child('externalName')));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => validatePort(p, ports.length > 1, names, spec.child('ports').index(i), errs));
  const selector = rec(s.selector);
  if (selector !== undefined) errs.push(...validateLabels(selector, spec.child('selector')));

  const affinity = strOf(s.sessionAffinity);
  if (affinity === '') errs.push(required(spec.child('sessionAffinity')));
  else if (!SESSION_AFFINITIES.includes(affinity)) errs.push(notSupported(spec.child('sessionAffinity'), affinity, SESSION_AFFINITIES));
  if (affinity === 'ClientIP') validateClientIPConfig(s.sessionAffinityConfig, spec.child('sessionAffinityConfig'), errs);
  else if (affinity === 'None' && s.sessionAffinityConfig !== undefined && s.sessionAffinityConfig !== null) {
    errs.push(forbidden(spec.child('sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }

  errs.push(...validateClusterIPFields(s));

  strList(s.externalIPs).forEach((ip, i) => {
    const path = spec.child('externalIPs').index(i);
    const problems = endpointIPProblems(ip);
    if (parseIP(ip) === undefined) errs.push(invalidValue(path, ip, VALID_IP_MSG));
    else for (const m of problems) errs.push(invalidValue(path, ip, m));
  });

  if (type === '') errs.push(required(spec.child('type')));
  else if (!SERVICE_TYPES.includes(type)) errs.push(notSupported(spec.child('type'), type, SERVICE_TYPES));

  if (type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (typeof p.nodePort === 'number' && p.nodePort !== 0) errs.push(forbidden(spec.child('ports').index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (typeof p.nodePort !== 'number' || p.nodePort === 0) return;
    const key = `${strOf(p.protocol)}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(duplicate(spec.child('ports').index(i).child('nodePort'), p.nodePort));
    nodePorts.add(key);
  });
  // Two ports with the same port and protocol: the schema's list-map keys (port, protocol) report it, at
  // `spec.ports[i]`, before the kind's rules (so it is not reported twice).

  const ranges = strList(s.loadBalancerSourceRanges);
  if (ranges.length > 0) {
    const path = spec.child('LoadBalancerSourceRanges');
    if (type !== 'LoadBalancer') errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((r, i) => {
      const v = r.trim();
      if (cidrFamily(v) === undefined) errs.push(invalidValue(path.index(i), v, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
    });
  } else if (typeof annotations[SOURCE_RANGES_ANNOTATION] === 'string') {
    const path = `metadata.annotations[${SOURCE_RANGES_ANNOTATION}]`;
    if (type !== 'LoadBalancer') errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    const val = (annotations[SOURCE_RANGES_ANNOTATION] as string).trim();
    if (val !== '') {
      for (const c of val.split(',')) {
        const v = c.trim();
        if (cidrFamily(v) === undefined) errs.push(invalidValue(path, v, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
      }
    }
  }

  const allocate = s.allocateLoadBalancerNodePorts;
  if (allocate !== undefined && allocate !== null && type !== 'LoadBalancer') {
    errs.push(forbidden(spec.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  // Kubernetes reports this one without the `spec.` prefix.
  if (type === 'LoadBalancer' && (allocate === undefined || allocate === null)) errs.push(required('allocateLoadBalancerNodePorts'));

  errs.push(...validateLoadBalancerClass(undefined, s));

  const etp = s.externalTrafficPolicy;
  if (!externallyAccessible(s)) {
    if (etp !== undefined && etp !== null && etp !== '') errs.push(invalidValue(spec.child('externalTrafficPolicy'), etp, 'may only be set for externally-accessible services'));
  } else if (etp === undefined || etp === null || etp === '') errs.push(required(spec.child('externalTrafficPolicy')));
  else if (!EXTERNAL_POLICIES.includes(strOf(etp))) errs.push(notSupported(spec.child('externalTrafficPolicy'), etp, EXTERNAL_POLICIES));

  const hc = typeof s.healthCheckNodePort === 'number' ? s.healthCheckNodePort : 0;
  if (!needsHealthCheck(s)) {
    if (hc !== 0) errs.push(invalidValue(spec.child('healthCheckNodePort'), hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  } else if (hc === 0) errs.push(required(spec.child('healthCheckNodePort')));
  else for (const m of isValidPortNum(hc)) errs.push(invalidValue(spec.child('healthCheckNodePort'), hc, m));

  const itp = s.internalTrafficPolicy;
  if (itp === undefined || itp === null) {
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') errs.push(required(spec.child('internalTrafficPolicy')));
  } else if (!INTERNAL_POLICIES.includes(strOf(itp))) errs.push(notSupported(spec.child('internalTrafficPolicy'), itp, INTERNAL_POLICIES));

  if (s.trafficDistribution !== undefined && s.trafficDistribution !== null && s.trafficDistribution !== 'PreferClose') {
    errs.push(notSupported(spec.child('trafficDistribution'), s.trafficDistribution, ['PreferClose']));
  }
  return errs;
}

function validateLoadBalancerClass(old: Rec | undefined, s: Rec): FieldError[] {
  const errs: FieldError[] = [];
  const path = spec.child('loadBalancerClass');
  const cls = s.loadBalancerClass;
  if (old !== undefined && typeOf(old) === 'LoadBalancer' && typeOf(s) === 'LoadBalancer' && (old.loadBalancerClass ?? null) !== (cls ?? null)) {
    errs.push(invalidValue(path, cls ?? null, 'may not change once set'));
  }
  if (typeOf(s) === 'LoadBalancer') {
    if (typeof cls === 'string') for (const m of isQualifiedName(cls)) errs.push(invalidValue(path, cls, m));
  } else if (cls !== undefined && cls !== null) errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
  return errs;
}

function validateUpgradeDowngradeClusterIPs(old: Rec, s: Rec): FieldError[] {
  if (typeOf(s) === 'ExternalName' || typeOf(old) === 'ExternalName') return [];
  if (isHeadless(old) && isHeadless(s)) return [];
  const errs: FieldError[] = [];
  const path = spec.child('clusterIPs');
  const oldIPs = clusterIPsOf(old);
  const ips = clusterIPsOf(s);
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== ips[i]) errs.push(invalidGo(path.index(i), ipsValue(ips), 'may not change once set'));
    });
  } else if (oldIPs.length > ips.length) {
    if (ips.length === 0) errs.push(invalidGo(path.index(0), ipsValue(ips), 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && ips.length > 0 && ips[0] !== oldIPs[0]) errs.push(invalidGo(path.index(0), ipsValue(ips), 'may not change once set'));
    if (ips.length === 1 && s.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalidValue(spec.child('ipFamilyPolicy'), s.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
    errs.push(invalidGo(path.index(0), ipsValue(ips), 'may not change once set'));
  }
  return errs;
}

function validateUpgradeDowngradeIPFamilies(old: Rec, s: Rec): FieldError[] {
  if (typeOf(s) === 'ExternalName' || typeOf(old) === 'ExternalName') return [];
  if (isHeadless(old) !== isHeadless(s) || isHeadless(s)) return [];
  const errs: FieldError[] = [];
  const path = spec.child('ipFamilies');
  const oldF = ipFamiliesOf(old);
  const fams = ipFamiliesOf(s);
  if (oldF.length === fams.length) {
    oldF.forEach((f, i) => {
      if (f !== fams[i]) errs.push(invalidGo(path.index(0), familiesValue(fams), 'may not change once set'));
    });
  } else if (oldF.length > fams.length) {
    if (clusterIPsOf(s).length === 0) errs.push(invalidGo(path.index(0), familiesValue(fams), 'primary ipFamily can not be unset'));
    if (fams.length > 0 && fams[0] !== oldF[0]) errs.push(invalidGo(path.index(0), ipsValue(clusterIPsOf(s)), 'may not change once set'));
    if (fams.length === 1 && s.ipFamilyPolicy !== 'SingleStack') {
      errs.push(invalidValue(spec.child('ipFamilyPolicy'), s.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (oldF.length > 0 && fams.length > 0 && fams[0] !== oldF[0]) {
    errs.push(invalidGo(path.index(0), ipsValue(clusterIPsOf(s)), 'may not change once set'));
  }
  return errs;
}

/** The update-only rules (ValidateServiceUpdate adds ValidateService, which the registry runs as `validate`). */
export function validateServiceUpdate(svc: KubeObject, old: KubeObject): FieldError[] {
  const s = rec(svc.spec) ?? {};
  const o = rec(old.spec) ?? {};
  const errs = [...validateUpgradeDowngradeClusterIPs(o, s), ...validateUpgradeDowngradeIPFamilies(o, s)];
  // validateLoadBalancerClassField(old, new) runs again inside ValidateService with no old object; only the
  // "may not change" check is added here.
  errs.push(...validateLoadBalancerClass(o, s).filter((e) => e.detail === 'may not change once set'));
  if (needsHealthCheck(o) && needsHealthCheck(s) && s.healthCheckNodePort !== o.healthCheckNodePort) {
    errs.push(forbidden(spec.child('healthCheckNodePort'), 'field is immutable'));
  }
  return errs;
}

/** ValidateServiceStatusUpdate: the load balancer status (ObjectMeta is the registry's). */
export function validateServiceStatus(svc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const s = rec(svc.spec) ?? {};
  const path = FieldPath.root('status').child('loadBalancer').child('ingress');
  const ingress = rec(rec(svc.status)?.loadBalancer)?.ingress;
  const list = Array.isArray(ingress) ? ingress : [];
  if (typeOf(s) !== 'LoadBalancer' && list.length !== 0) {
    errs.push(forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'"));
    return errs;
  }
  list.forEach((raw, i) => {
    const ing = rec(raw) ?? {};
    const at = path.index(i);
    const ip = strOf(ing.ip);
    if (ip !== '') for (const m of ipProblems(ip)) errs.push(invalidValue(at.child('ip'), ip, m));
    const mode = ing.ipMode;
    if ((mode === undefined || mode === null) && ip !== '') errs.push(required(at.child('ipMode'), 'must be specified when `ip` is set'));
    else if (mode !== undefined && mode !== null && ip === '') errs.push(forbidden(at.child('ipMode'), 'may not be specified when `ip` is not set'));
    else if (mode !== undefined && mode !== null && !IP_MODES.includes(strOf(mode))) errs.push(notSupported(at.child('ipMode'), mode, IP_MODES));
    const host = strOf(ing.hostname);
    if (host !== '') {
      for (const m of isDNS1123Subdomain(host)) errs.push(invalidValue(at.child('hostname'), host, m));
      if (parseIP(host) !== undefined) errs.push(invalidValue(at.child('hostname'), host, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}
