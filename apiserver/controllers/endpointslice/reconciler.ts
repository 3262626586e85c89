/**
 * What the EndpointSlice controller changes for one Service: kube's Reconciler (staging/src/k8s.io/
 * endpointslice/reconciler.go, v1.32), as a plan of slices to create, update and delete.
 *
 * - Existing slices (the controller's, for this Service's name) of an address type the Service no longer
 *   has are deleted; per remaining address type, slices not owned by this Service (an earlier Service of
 *   the same name) are deleted too.
 * - Endpoints are grouped by their port set (pods resolving named ports differently get separate slices).
 *   Per group: endpoints no longer desired are dropped from their slice and changed ones replaced in
 *   place; a slice left empty is deleted; new endpoints first fill the changed slices (fullest first), then
 *   one unchanged slice they fit in exactly or most closely (only when fewer than a slice's worth remain),
 *   then new slices of at most `maxEndpointsPerSlice`. Label drift from the Service is an update too.
 * - Slices of port sets no longer desired are deleted; when nothing would remain, one empty "placeholder"
 *   slice (no ports, no endpoints) is kept or created, so a Service always has a slice per address type.
 * - finalize: a create is turned into an update of a slice that would be deleted (same address type, owned
 *   by this Service), saving a delete and a create.
 *
 * Pods on a Node that does not exist are left out (an error is reported so the Service is synced again),
 * unless the Service publishes not-ready addresses (kube).
 */
import type { KubeObject } from '../../api/object.js';
import { controllerRefTo } from '../controller-ref.js';
import { addressTypesForService, endpointKey, endpointPorts, endpointsEqualBeyondKey, isServiceIPSet, podToEndpoint, portMapKey, shouldPodBeInEndpoints, type AddressType, type Endpoint, type EndpointPort } from './endpoints.js';
import type { SliceNames } from './slice-names.js';

export interface SliceSpec {
  addressType?: string;
  endpoints?: Endpoint[];
  ports?: EndpointPort[];
}

export type Slice = KubeObject & SliceSpec;

export interface SlicePlan {
  /** New slices (generateName `<service>-`), without the trigger-time annotation yet. */
  readonly create: Slice[];
  /** Changed copies of existing slices (their resourceVersion kept for the update's precondition). */
  readonly update: Slice[];
  readonly delete: Slice[];
  /** Pods left out (their Node is unknown): the sync fails after the writes so that it is retried. */
  readonly errors: string[];
}

export interface PlanInput {
  readonly service: KubeObject;
  readonly pods: readonly KubeObject[];
  /** The controller's slices of this Service (by label), not being deleted. */
  readonly existing: readonly Slice[];
  readonly node: (name: string) => KubeObject | undefined;
  readonly maxEndpointsPerSlice: number;
  readonly names: SliceNames;
}

export function ownedBy(slice: KubeObject, svc: KubeObject): boolean {
  return (slice.metadata.ownerReferences ?? []).some((r) => r.uid === svc.metadata.uid && r.kind === 'Service' && r.apiVersion === 'v1');
}

/** kube's setEndpointSliceLabels: the Service's labels (reserved keys aside), the headless label, and the reserved two; `changed` when the slice's own differ. */
export function sliceLabels(slice: KubeObject, svc: KubeObject, names: SliceNames): { labels: Record<string, string>; changed: boolean } {
  const reserved = new Set([names.serviceName, names.managedBy, names.headless]);
  const own = Object.entries(slice.metadata.labels ?? {}).filter(([k]) => !reserved.has(k));
  const fromService = Object.entries(svc.metadata.labels ?? {}).filter(([k]) => !reserved.has(k));
  const changed = JSON.stringify(own.sort()) !== JSON.stringify([...fromService].sort());
  const labels: Record<string, string> = Object.fromEntries(fromService);
  if (!isServiceIPSet(svc)) labels[names.headless] = '';
  labels[names.serviceName] = svc.metadata.name ?? '';
  labels[names.managedBy] = names.controllerName;
  return { labels, changed };
}

/** kube's getEndpointSlicePrefix: `<service>-` (the Service name alone if that were not a valid prefix). */
const slicePrefix = (svc: KubeObject): string => {
  const prefix = `${svc.metadata.name ?? ''}-`;
  return prefix.length <= 253 ? prefix : (svc.metadata.name ?? '');
};

export function newSlice(svc: KubeObject, ports: EndpointPort[], addressType: AddressType, names: SliceNames): Slice {
  const slice: Slice = {
    apiVersion: names.apiVersion,
    kind: 'EndpointSlice',
    metadata: {
      generateName: slicePrefix(svc),
      namespace: svc.metadata.namespace ?? '',
      ownerReferences: [controllerRefTo(svc, 'v1', 'Service')],
    },
    addressType,
    endpoints: [],
    ports,
  };
  slice.metadata.labels = sliceLabels(slice, svc, names).labels;
  return slice;
}

/** kube's placeholderSliceCompare: namespace, labels, owner references, address type, no ports, no endpoints. */
function isPlaceholderLike(slice: Slice, placeholder: Slice): boolean {
  return (
    slice.metadata.namespace === placeholder.metadata.namespace &&
    JSON.stringify(Object.entries(slice.metadata.labels ?? {}).sort()) === JSON.stringify(Object.entries(placeholder.metadata.labels ?? {}).sort()) &&
    JSON.stringify(slice.metadata.ownerReferences ?? []) === JSON.stringify(placeholder.metadata.ownerReferences ?? []) &&
    slice.addressType === placeholder.addressType &&
    (slice.ports ?? []).length === 0 &&
    (slice.endpoints ?? []).length === 0
  );
}

const copySlice = (s: Slice): Slice => structuredClone(s) as Slice;

export function planSlices(input: PlanInput): SlicePlan {
  const { service } = input;
  const supported = addressTypesForService(service);
  const plan = { create: [] as Slice[], update: [] as Slice[], delete: [] as Slice[], errors: [] as string[] };
  const byType = new Map<AddressType, Slice[]>();
  const unsupported: Slice[] = [];
  for (const slice of input.existing) {
    const t = slice.addressType as AddressType;
    if (!supported.has(t)) {
      unsupported.push(slice);
      continue;
    }
    byType.set(t, [...(byType.get(t) ?? []), slice]);
  }
  for (const t of ['IPv4', 'IPv6'] as const) {
    if (!supported.has(t)) continue;
    const p = planByAddressType(input, byType.get(t) ?? [], t);
    plan.create.push(...p.create);
    plan.update.push(...p.update);
    plan.delete.push(...p.delete);
    plan.errors.push(...p.errors);
  }
  plan.delete.push(...unsupported);
  return plan;
}

function planByAddressType(input: PlanInput, existing: readonly Slice[], addressType: AddressType): SlicePlan {
  const { service, names, maxEndpointsPerSlice: max } = input;
  let toCreate: Slice[] = [];
  let toUpdate: Slice[] = [];
  let toDelete: Slice[] = [];
  const errors: string[] = [];

  const existingByPorts = new Map<string, Slice[]>();
  for (const slice of existing) {
    if (ownedBy(slice, service)) {
      const k = portMapKey(slice.ports);
      existingByPorts.set(k, [...(existingByPorts.get(k) ?? []), slice]);
    } else {
      toDelete.push(slice);
    }
  }

  const desiredPorts = new Map<string, EndpointPort[]>();
  const desired = new Map<string, Map<string, Endpoint>>();
  const publishNotReady = (service.spec as { publishNotReadyAddresses?: boolean } | undefined)?.publishNotReadyAddresses === true;
  for (const pod of input.pods) {
    if (!shouldPodBeInEndpoints(pod)) continue;
    const ports = endpointPorts(service, pod);
    const k = portMapKey(ports);
    if (!desired.has(k)) desired.set(k, new Map());
    if (!desiredPorts.has(k)) desiredPorts.set(k, ports);
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
    const node = input.node(nodeName);
    if (node === undefined && !publishNotReady) {
      errors.push(`skipping Pod ${pod.metadata.name ?? ''} for Service ${service.metadata.namespace ?? ''}/${service.metadata.name ?? ''}: Node ${nodeName} Not Found`);
      continue;
    }
    const ep = podToEndpoint(pod, node, service, addressType, names.zone);
    if (ep.addresses.length > 0) desired.get(k)!.set(endpointKey(ep), ep);
  }

  for (const [k, endpoints] of desired) {
    const p = planByPorts(service, existingByPorts.get(k) ?? [], endpoints, desiredPorts.get(k)!, addressType, max, names);
    toCreate.push(...p.create);
    toUpdate.push(...p.update);
    toDelete.push(...p.delete);
  }
  for (const [k, slices] of existingByPorts) if (!desired.has(k)) toDelete.push(...slices);

  if (existing.length === toDelete.length && toCreate.length === 0) {
    const placeholder = newSlice(service, [], addressType, names);
    if (toDelete.length === 1 && isPlaceholderLike(toDelete[0]!, placeholder)) toDelete = [];
    else toCreate.push(placeholder);
  }

  // finalize: reuse slices about to be deleted for the slices to create.
  for (let i = 0; i < toDelete.length && toCreate.length > 0; ) {
    const victim = toDelete[i]!;
    const slice = toCreate[toCreate.length - 1]!;
    if (victim.addressType === slice.addressType && ownedBy(victim, service)) {
      // generateName stays, as kube's update of the reused slice keeps it.
      const reused: Slice = { ...slice, metadata: { ...slice.metadata, name: victim.metadata.name ?? '', resourceVersion: victim.metadata.resourceVersion ?? '', uid: victim.metadata.uid ?? '' } };
      toCreate = toCreate.slice(0, -1);
      toUpdate = [...toUpdate, reused];
      toDelete = [...toDelete.slice(0, i), ...toDelete.slice(i + 1)];
    } else {
      i++;
    }
  }
  return { create: toCreate, update: toUpdate, delete: toDelete, errors };
}

/** kube's reconcileByPortMapping (see the file comment). `desired` is consumed. */
function planByPorts(
  service: KubeObject,
  existing: readonly Slice[],
  desired: Map<string, Endpoint>,
  ports: EndpointPort[],
  addressType: AddressType,
  max: number,
  names: SliceNames,
): { create: Slice[]; update: Slice[]; delete: Slice[] } {
  const byName = new Map<string, Slice>();
  const unchanged = new Set<string>();
  const toUpdate = new Set<string>();
  const toDelete = new Set<string>();

  for (const slice of existing) {
    const name = slice.metadata.name ?? '';
    byName.set(name, slice);
    const kept: Endpoint[] = [];
    let endpointChanged = false;
    for (const ep of slice.endpoints ?? []) {
      const k = endpointKey(ep);
      const want = desired.get(k);
      if (want === undefined) continue;
      kept.push(want);
      if (!endpointsEqualBeyondKey(want, ep)) endpointChanged = true;
      desired.delete(k);
    }
    const { labels, changed: labelsChanged } = sliceLabels(slice, service, names);
    if (endpointChanged || kept.length !== (slice.endpoints ?? []).length) {
      if (kept.length === 0) {
        toDelete.add(name);
      } else {
        const copy = copySlice(slice);
        copy.endpoints = kept;
        copy.metadata.labels = labels;
        byName.set(name, copy);
        toUpdate.add(name);
      }
    } else if (labelsChanged) {
      const copy = copySlice(slice);
      copy.metadata.labels = labels;
      byName.set(name, copy);
      toUpdate.add(name);
    } else {
      unchanged.add(name);
    }
  }

  const take = (): Endpoint => {
    const [k, ep] = desired.entries().next().value as [string, Endpoint];
    desired.delete(k);
    return ep;
  };

  // Fill the slices being updated anyway, the fullest first.
  if (desired.size > 0 && toUpdate.size > 0) {
    const slices = [...toUpdate].map((n) => byName.get(n)!).sort((a, b) => (b.endpoints?.length ?? 0) - (a.endpoints?.length ?? 0));
    for (const slice of slices) {
      slice.endpoints ??= [];
      while (desired.size > 0 && slice.endpoints.length < max) slice.endpoints.push(take());
    }
  }

  const create: Slice[] = [];
  while (desired.size > 0) {
    let fill: Slice | undefined;
    if (desired.size < max && unchanged.size > 0) {
      // The unchanged slice closest to full once the rest is added.
      let closest = max;
      for (const n of unchanged) {
        const s = byName.get(n)!;
        const diff = max - (desired.size + (s.endpoints?.length ?? 0));
        if (diff >= 0 && diff < closest) {
          closest = diff;
          fill = s;
          if (diff === 0) break;
        }
      }
    }
    if (fill === undefined) {
      fill = newSlice(service, ports.map((p) => ({ ...p })), addressType, names);
    } else {
      fill = copySlice(fill);
      byName.set(fill.metadata.name ?? '', fill);
    }
    fill.endpoints ??= [];
    while (desired.size > 0 && fill.endpoints.length < max) fill.endpoints.push(take());
    if ((fill.metadata.name ?? '') !== '') {
      toUpdate.add(fill.metadata.name!);
      unchanged.delete(fill.metadata.name!);
    } else {
      create.push(fill);
    }
  }

  return {
    create,
    update: [...toUpdate].map((n) => byName.get(n)!),
    delete: [...toDelete].map((n) => byName.get(n)!),
  };
}
