/**
 * A Service's endpoints from its pods, as kube's EndpointSlice controller computes them
 * (staging/src/k8s.io/endpointslice utils.go and util/, v1.32):
 *
 * - a pod is considered when it has an IP and is not Succeeded/Failed (terminating pods are kept, with
 *   `terminating: true`);
 * - conditions: `serving` = the pod is Ready; `terminating` = it has a deletionTimestamp; `ready` =
 *   serving and not terminating, or always true with `publishNotReadyAddresses`;
 * - addresses: the pod's `status.podIPs` of the slice's family, normalized (`010.0.0.1` → `10.0.0.1`);
 * - ports: each Service port whose target resolves on the pod (a number as is; a name against the
 *   containers' and sidecar init containers' named ports of the same protocol), named like the Service
 *   port (`""` when unnamed), a Service port that does not resolve being left out for that pod; a headless
 *   Service without ports gives no ports;
 * - `nodeName`, `zone` (the Node's zone label), `targetRef` (the pod), and `hostname` when the pod's
 *   `hostname` is set and its `subdomain` is the Service's name.
 */
import type { KubeObject } from '../../api/object.js';
import { addrString, parseAddr } from '../../validation/netip.js';
import { parseIP } from '../../registry/kinds/discovery/endpoint-ip.js';
import { isPodReady, isPodTerminal, podSpec, podStatus, type ContainerLike } from '../replication/pod-state.js';

export type AddressType = 'IPv4' | 'IPv6';

export interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface Endpoint {
  addresses: string[];
  conditions: { ready?: boolean; serving?: boolean; terminating?: boolean };
  hostname?: string;
  targetRef?: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string; fieldPath?: string };
  nodeName?: string;
  zone?: string;
  hints?: unknown;
  deprecatedTopology?: unknown;
}

interface ServicePortLike {
  readonly name?: string;
  readonly protocol?: string;
  readonly port?: number;
  readonly targetPort?: number | string;
  readonly appProtocol?: string;
}

export interface ServiceSpecLike {
  readonly selector?: Record<string, string>;
  readonly ports?: readonly ServicePortLike[];
  readonly clusterIP?: string;
  readonly ipFamilies?: readonly string[];
  readonly type?: string;
  readonly publishNotReadyAddresses?: boolean;
}

export const serviceSpec = (svc: KubeObject): ServiceSpecLike => (svc.spec ?? {}) as ServiceSpecLike;

/** kube's isServiceIPSet: a cluster IP that is neither empty nor `None`. */
export const isServiceIPSet = (svc: KubeObject): boolean => {
  const ip = serviceSpec(svc).clusterIP ?? '';
  return ip !== '' && ip !== 'None';
};

/** kube's ShouldPodBeInEndpoints(pod, includeTerminating = true). */
export function shouldPodBeInEndpoints(pod: KubeObject): boolean {
  if (isPodTerminal(pod)) return false;
  const s = podStatus(pod);
  return (s.podIP ?? '') !== '' || (s.podIPs ?? []).length > 0;
}

/** The address types of a Service's slices: its ipFamilies; else its cluster IP's family; else (headless) both. */
export function addressTypesForService(svc: KubeObject): Set<AddressType> {
  const spec = serviceSpec(svc);
  const types = new Set<AddressType>();
  for (const f of spec.ipFamilies ?? []) if (f === 'IPv4' || f === 'IPv6') types.add(f);
  if (types.size > 0) return types;
  if (isServiceIPSet(svc)) {
    types.add(parseIP(spec.clusterIP!)?.v4 === false ? 'IPv6' : 'IPv4');
    return types;
  }
  types.add('IPv4');
  types.add('IPv6');
  return types;
}

/** An address as Go's net.IP.String() prints what ParseIPSloppy read; undefined for a non-address. */
function normalizedIP(text: string): { ip: string; v6: boolean } | undefined {
  const parsed = parseIP(text);
  if (parsed === undefined) return undefined;
  if (parsed.v4) return { ip: parsed.bytes.join('.'), v6: false };
  return { ip: addrString(parseAddr(text)), v6: true };
}

/** kube's FindPort: the pod's port for a Service port, or undefined when a named target is not found. */
export function findPort(pod: KubeObject, sp: ServicePortLike): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (typeof target !== 'string') return undefined;
  const protocol = sp.protocol ?? 'TCP';
  const named = (containers: readonly ContainerLike[]): number | undefined => {
    for (const c of containers) for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
    return undefined;
  };
  const spec = podSpec(pod);
  return named(spec.containers ?? []) ?? named((spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'));
}

export function endpointPorts(svc: KubeObject, pod: KubeObject): EndpointPort[] {
  const spec = serviceSpec(svc);
  const ports: EndpointPort[] = [];
  if ((spec.ports ?? []).length === 0 && spec.clusterIP === 'None') return ports;
  for (const sp of spec.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const p: EndpointPort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol !== undefined) p.appProtocol = sp.appProtocol;
    ports.push(p);
  }
  return ports;
}

export function podToEndpoint(pod: KubeObject, node: KubeObject | undefined, svc: KubeObject, addressType: AddressType, zoneLabel: string): Endpoint {
  const serving = isPodReady(pod);
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  const ready = serviceSpec(svc).publishNotReadyAddresses === true || (serving && !terminating);
  const addresses: string[] = [];
  for (const { ip } of podStatus(pod).podIPs ?? []) {
    const n = normalizedIP(ip ?? '');
    if (n !== undefined && n.v6 === (addressType === 'IPv6')) addresses.push(n.ip);
  }
  const ep: Endpoint = {
    addresses,
    conditions: { ready, serving, terminating },
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
  };
  const spec = podSpec(pod);
  if ((spec.nodeName ?? '') !== '') ep.nodeName = spec.nodeName!;
  const zone = node?.metadata.labels?.[zoneLabel];
  if (zone !== undefined && zone !== '') ep.zone = zone;
  if ((spec.hostname ?? '') !== '' && spec.subdomain === svc.metadata.name && svc.metadata.namespace === pod.metadata.namespace) ep.hostname = spec.hostname!;
  return ep;
}

/** The identity of an endpoint across passes (kube's endpoint hash): addresses, hostname and the pod it is. */
export function endpointKey(ep: Endpoint): string {
  return JSON.stringify([[...ep.addresses].sort(), ep.hostname ?? '', ep.targetRef?.namespace ?? '', ep.targetRef?.name ?? '']);
}

/** kube's EndpointsEqualBeyondHash: node, zone, the three conditions and the target (resourceVersion aside). */
export function endpointsEqualBeyondKey(a: Endpoint, b: Endpoint): boolean {
  const ref = (e: Endpoint): string => {
    const { resourceVersion: _rv, ...rest } = e.targetRef ?? {};
    return e.targetRef === undefined ? 'nil' : JSON.stringify(Object.entries(rest).filter(([, v]) => v !== undefined && v !== '').sort());
  };
  return (
    a.nodeName === b.nodeName &&
    a.zone === b.zone &&
    a.conditions.ready === b.conditions.ready &&
    a.conditions.serving === b.conditions.serving &&
    a.conditions.terminating === b.conditions.terminating &&
    ref(a) === ref(b)
  );
}

/** The identity of a set of ports (kube's PortMapKey): the same ports in any order give the same key. */
export function portMapKey(ports: readonly EndpointPort[] | undefined): string {
  return JSON.stringify((ports ?? []).map((p) => JSON.stringify([p.name ?? null, p.port ?? null, p.protocol ?? null, p.appProtocol ?? null])).sort());
}
