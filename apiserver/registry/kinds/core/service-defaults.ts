/**
 * What the Service kind does to an object before validation, as Kubernetes v1.32:
 * - `defaultService`: v1's SetDefaults_Service for the defaults that depend on other fields (a port's
 *   targetPort = port, internalTrafficPolicy Cluster for ClusterIP/NodePort/LoadBalancer,
 *   externalTrafficPolicy Cluster for externally accessible ones (NodePort, LoadBalancer, external IPs),
 *   allocateLoadBalancerNodePorts true for
 *   LoadBalancer, the ClientIP timeout 10800, sessionAffinityConfig dropped with affinity None, an
 *   ingress' ipMode VIP when it has an ip);
 * - `normalizeClusterIPs`: keeps `clusterIP` and `clusterIPs` in step for clients that send only one;
 * - `patchAllocatedValues`: an update that omits values the server allocated (cluster IPs, node ports,
 *   the health check port) keeps them while the type still needs them;
 * - `dropTypeDependentFields`: a type change clears what the new type cannot have, when the client left
 *   it as it was (so `kubectl edit` from NodePort to ClusterIP just works).
 * Every function changes the object in place and tolerates wrongly typed members (validation reports them).
 */
import type { KubeObject } from '../../../api/object.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export const CLIENT_IP_DEFAULT_TIMEOUT = 10800;

/** The spec as a record (created when missing or not an object, as the schema's default does). */
export function specOf(svc: KubeObject): Rec {
  const s = rec(svc.spec);
  if (s !== undefined) return s;
  const fresh: Rec = {};
  svc.spec = fresh;
  return fresh;
}

export const typeOf = (spec: Rec): string => (typeof spec.type === 'string' ? spec.type : '');
export const portsOf = (spec: Rec): Rec[] => (Array.isArray(spec.ports) ? spec.ports.map((p) => rec(p)).filter((p): p is Rec => p !== undefined) : []);
export const clusterIPsOf = (spec: Rec): string[] => strList(spec.clusterIPs);
export const ipFamiliesOf = (spec: Rec): string[] => strList(spec.ipFamilies);

/** Headless: `clusterIPs` is exactly `["None"]`. */
export const isHeadless = (spec: Rec): boolean => {
  const ips = clusterIPsOf(spec);
  return ips.length === 1 && ips[0] === 'None';
};

/** Kubernetes' needsClusterIP: every type but ExternalName, unless headless. */
export const needsClusterIP = (spec: Rec): boolean => typeOf(spec) !== 'ExternalName' && !isHeadless(spec);

/** NodePort, and LoadBalancer unless allocateLoadBalancerNodePorts is false. */
export const needsNodePorts = (spec: Rec): boolean =>
  typeOf(spec) === 'NodePort' || (typeOf(spec) === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);

/** Kubernetes' ExternallyAccessible: NodePort, LoadBalancer, or ClusterIP with external IPs. */
export const externallyAccessible = (spec: Rec): boolean =>
  typeOf(spec) === 'NodePort' || typeOf(spec) === 'LoadBalancer' || (typeOf(spec) === 'ClusterIP' && strList(spec.externalIPs).length > 0);

/** A LoadBalancer with externalTrafficPolicy Local needs a health check node port. */
export const needsHealthCheck = (spec: Rec): boolean => typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';

export function defaultService(svc: KubeObject): void {
  const spec = specOf(svc);
  const type = typeOf(spec);
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const config = rec(spec.sessionAffinityConfig) ?? {};
    const clientIP = rec(config.clientIP) ?? {};
    if (clientIP.timeoutSeconds === undefined || clientIP.timeoutSeconds === null) clientIP.timeoutSeconds = CLIENT_IP_DEFAULT_TIMEOUT;
    config.clientIP = clientIP;
    spec.sessionAffinityConfig = config;
  }
  for (const port of portsOf(spec)) {
    const t = port.targetPort;
    if (t === undefined || t === null || t === 0 || t === '') port.targetPort = port.port;
  }
  if (externallyAccessible(spec) && (spec.externalTrafficPolicy === undefined || spec.externalTrafficPolicy === '')) {
    spec.externalTrafficPolicy = 'Cluster';
  }
  if ((type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') && (spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null)) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (type === 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null) spec.allocateLoadBalancerNodePorts = true;
    const ingress = rec(rec(svc.status)?.loadBalancer)?.ingress;
    if (Array.isArray(ingress)) {
      for (const ing of ingress) {
        const i = rec(ing);
        if (i !== undefined && typeof i.ip === 'string' && i.ip !== '' && (i.ipMode === undefined || i.ipMode === null)) i.ipMode = 'VIP';
      }
    }
  }
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Fills `clusterIPs` from `clusterIP` (old clients) and follows a changed or cleared `clusterIP`. */
export function normalizeClusterIPs(spec: Rec, old: Rec | undefined): void {
  const ip = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  const ips = clusterIPsOf(spec);
  if (old === undefined) {
    if (ip !== '' && ips.length === 0) spec.clusterIPs = [ip];
    return;
  }
  const oldIP = typeof old.clusterIP === 'string' ? old.clusterIP : '';
  const oldIPs = clusterIPsOf(old);
  // A client that patched something else and sent no clusterIPs keeps them.
  if (oldIPs.length > 0 && ips.length === 0 && oldIP === ip) spec.clusterIPs = [...oldIPs];
  if (oldIP !== ip) {
    const same = sameList(oldIPs, clusterIPsOf(spec));
    if (oldIP !== '' && ip === '') {
      if (same) delete spec.clusterIPs;
    } else if (same) {
      spec.clusterIPs = [ip];
    }
  }
}

/** Keeps allocated values an update left out, while the type still needs them. */
export function patchAllocatedValues(spec: Rec, old: Rec): void {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if ((spec.clusterIP ?? '') === '') spec.clusterIP = old.clusterIP;
    if (clusterIPsOf(spec).length === 0 && clusterIPsOf(old).length > 0) spec.clusterIPs = [...clusterIPsOf(old)];
  }
  if (needsNodePorts(old) && needsNodePorts(spec)) {
    const used = (ports: Rec[]): Set<number> => new Set(ports.map((p) => p.nodePort).filter((n): n is number => typeof n === 'number' && n !== 0));
    const oldUsed = used(portsOf(old));
    const newUsed = used(portsOf(spec));
    const taken = new Set([...oldUsed].filter((n) => newUsed.has(n)));
    const byName = new Map<string, number>();
    for (const p of portsOf(old)) if (typeof p.nodePort === 'number') byName.set(typeof p.name === 'string' ? p.name : '', p.nodePort);
    for (const p of portsOf(spec)) {
      if (p.nodePort !== undefined && p.nodePort !== 0) continue;
      const previous = byName.get(typeof p.name === 'string' ? p.name : '');
      if (previous !== undefined && previous !== 0 && !taken.has(previous)) {
        p.nodePort = previous;
        taken.add(previous);
      }
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(spec) && (spec.healthCheckNodePort ?? 0) === 0 && old.healthCheckNodePort !== undefined) {
    spec.healthCheckNodePort = old.healthCheckNodePort;
  }
}

/** Clears, on a type change, what the new type cannot have and the client did not change. */
export function dropTypeDependentFields(spec: Rec, old: Rec): void {
  if (typeOf(spec) === typeOf(old)) return;
  const unchanged = (key: string): boolean => JSON.stringify(spec[key]) === JSON.stringify(old[key]);
  if (needsClusterIP(old) && !needsClusterIP(spec) && typeOf(spec) === 'ExternalName') {
    if (unchanged('clusterIP') && unchanged('clusterIPs')) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (unchanged('ipFamilies')) delete spec.ipFamilies;
    if (unchanged('ipFamilyPolicy')) delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(old) && !needsNodePorts(spec)) {
    const oldPorts = portsOf(old);
    for (const p of portsOf(spec)) {
      const match = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match !== undefined && match.nodePort === p.nodePort) delete p.nodePort;
    }
  }
  if (needsHealthCheck(old) && !needsHealthCheck(spec) && unchanged('healthCheckNodePort')) delete spec.healthCheckNodePort;
  if (typeOf(old) === 'LoadBalancer' && typeOf(spec) !== 'LoadBalancer') {
    if (unchanged('allocateLoadBalancerNodePorts')) delete spec.allocateLoadBalancerNodePorts;
    if (unchanged('loadBalancerClass')) delete spec.loadBalancerClass;
  }
  if (!externallyAccessible(spec) && unchanged('externalTrafficPolicy')) delete spec.externalTrafficPolicy;
}
