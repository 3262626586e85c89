/**
 * Service allocation for one replica: the cluster IP allocators of `--service-cluster-ip-range` (bitmap
 * records, or IPAddress objects when `networking.<domain>/v1beta1` ipaddresses are served, as Kubernetes
 * 1.32 switches with the MultiCIDRServiceAllocator beta; that mode also allocates from the ServiceCIDRs
 * users add, after the default range), the node port bitmap of
 * `--service-node-port-range`, and the registry WriteHooks that use them for `services`.
 *
 * The IPAddress registry exists only once the resources are served, which needs the hooks first: `bind`
 * hands the served resources over before the first request.
 */
import type { Store } from '../../storage/interface.js';
import type { ServerConfig } from '../config/server-config.js';
import { parseNodePortRange, parseServiceClusterIPRanges } from '../config/service-range-flags.js';
import type { ServedResources } from '../registry/served-resources.js';
import type { Logger } from '../log/logger.js';
import type { Naming } from '../naming/naming.js';
import type { WriteHooks } from '../registry/kind-strategy.js';
import { BitmapAllocator } from '../registry/kinds/core/service-allocation/bitmap-allocator.js';
import { bitmapFamily, ipAddressFamily, type FamilyAllocator } from '../registry/kinds/core/service-allocation/family-allocators.js';
import { parseServiceRange, staticBandSize, type ServiceIPRange } from '../registry/kinds/core/service-allocation/ip-range.js';
import { serviceWriteHooks, type ServiceAllocators } from '../registry/kinds/core/service-allocation/service-allocator.js';
import type { RuntimeConfig } from '../config/runtime-config.js';
import type { KubeObject } from '../api/object.js';
import { networkInterfaces } from 'node:os';

export interface ServiceAllocation {
  readonly mode: 'bitmap' | 'ipaddress';
  readonly ranges: readonly ServiceIPRange[];
  readonly allocators: ServiceAllocators;
  readonly hooks: WriteHooks;
  /** Gives the IPAddress mode its registry (call once the resources are served). */
  bind(resources: ServedResources): void;
}

export function assembleServiceAllocation(config: ServerConfig, store: Store, names: Naming, runtime: RuntimeConfig, logger: Logger): ServiceAllocation {
  const ranges = config.serviceClusterIPRanges ?? parseServiceClusterIPRanges('');
  const portRange = config.serviceNodePortRange ?? parseNodePortRange('');
  const networking = names.group('networking');
  const mode = runtime.enabled(networking, 'v1beta1', 'ipaddresses') ? 'ipaddress' : 'bitmap';
  let resources: ServedResources | undefined;
  const ipAddresses = () => {
    const r = resources?.lookup(networking, 'v1beta1', 'ipaddresses')?.registry;
    if (r === undefined) throw new Error('the IPAddress resource is not served');
    return r;
  };
  // The ServiceCIDRs users add (besides the default `kubernetes` one) widen what the IPAddress mode allocates from.
  const cidrRanges = async (): Promise<ServiceIPRange[]> => {
    const registry = resources?.lookup(networking, 'v1beta1', 'servicecidrs')?.registry;
    if (registry === undefined) return [];
    const out: ServiceIPRange[] = [];
    for (const cidr of (await registry.list('')).items) {
      if (cidr.metadata.deletionTimestamp !== undefined) continue;
      const list = (cidr.spec as { cidrs?: unknown } | undefined)?.cidrs;
      for (const text of Array.isArray(list) ? list : []) {
        const r = typeof text === 'string' ? parseServiceRange(text) : undefined;
        if (r !== undefined) out.push(r);
      }
    }
    return out;
  };
  const families: FamilyAllocator[] = ranges.map((range, i) =>
    mode === 'ipaddress'
      ? ipAddressFamily(ipAddresses, names, range, cidrRanges)
      : bitmapFamily(store, `${config.storagePrefix}/ranges/${i === 0 ? 'serviceips' : 'secondaryserviceips'}`, range),
  );
  const nodePorts = new BitmapAllocator({
    store,
    key: `${config.storagePrefix}/ranges/servicenodeports`,
    range: `${portRange.base}-${portRange.base + portRange.size - 1}`,
    size: portRange.size,
    offset: staticBandSize(portRange.size, 32, 128),
  });
  const log = logger.child({ component: 'service-allocation' });
  const allocators: ServiceAllocators = {
    families,
    nodePorts,
    nodePortRange: portRange,
    onError: (err, what) => log.warn({ err }, `service allocation: ${what} failed (the repair pass will free it)`),
  };
  return {
    mode,
    ranges,
    allocators,
    hooks: serviceWriteHooks(allocators),
    bind(r) {
      resources = r;
    },
  };
}

/**
 * The default ServiceCIDR `kubernetes` from `--service-cluster-ip-range` (IPAddress mode), as
 * kube-apiserver's bootstrap controller creates it; every replica tries, the first create wins.
 */
export async function ensureDefaultServiceCIDR(resources: ServedResources, names: Naming, ranges: readonly ServiceIPRange[]): Promise<void> {
  const registry = resources.lookup(names.group('networking'), 'v1beta1', 'servicecidrs')?.registry;
  if (registry === undefined) return;
  const obj: KubeObject = {
    apiVersion: `${names.group('networking')}/v1beta1`,
    kind: 'ServiceCIDR',
    metadata: { name: 'kubernetes' },
    spec: { cidrs: ranges.map((r) => r.cidr) },
  };
  try {
    await registry.create('', obj);
  } catch (err) {
    if ((err as { reason?: string } | null)?.reason !== 'AlreadyExists') throw err;
  }
}

/**
 * The address this replica publishes as a `kubernetes` endpoint: `--advertise-address`, else the bind
 * address when it names one non-loopback address, else the host's first non-internal IPv4 address (then
 * IPv6); undefined when the host has none (the replica then publishes no endpoint).
 */
export function advertiseAddressOf(config: ServerConfig): string | undefined {
  if (config.advertiseAddress !== undefined) return config.advertiseAddress;
  const bind = config.bindAddress;
  if (bind !== '0.0.0.0' && bind !== '::' && !bind.startsWith('127.') && bind !== '::1') return bind;
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []).filter((a) => !a.internal);
  return (all.find((a) => a.family === 'IPv4') ?? all.find((a) => a.family === 'IPv6' && !a.address.startsWith('fe80')))?.address;
}
