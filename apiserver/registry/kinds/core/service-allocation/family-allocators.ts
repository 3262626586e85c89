/**
 * Cluster IP allocation for one IP family, in either of Kubernetes' two ways:
 *
 * - `bitmapFamily`: the range's bitmap record (`<prefix>/ranges/serviceips` for the primary range,
 *   `<prefix>/ranges/secondaryserviceips` for the secondary), see bitmap-allocator.ts;
 * - `ipAddressFamily` (`networking.<domain>/v1beta1` served): one IPAddress object per address, named by the
 *   address and pointing at its Service, created through the IPAddress registry, which refuses a second
 *   create of the same name: the store decides. The ranges are the flag's (the default ServiceCIDR) and
 *   those of the other ServiceCIDRs of the family that are not being deleted, in that order. A free address
 *   is found by random picks from a range's upper band first; after a run of taken picks, by listing what is
 *   taken; then the next range.
 *
 * `allocate` / `allocateNext` with `dryRun` only look: they reserve nothing.
 */
import { randomInt } from 'node:crypto';
import type { KubeObject } from '../../../../api/object.js';
import type { GenericRegistry } from '../../../generic/generic-registry.js';
import type { Naming } from '../../../../naming/naming.js';
import { ipAddressForService, type ServiceRef } from '../../networking/ip-address-object.js';
import { legacyDomain } from '../../shared/legacy-domain.js';
import { BitmapAllocator } from './bitmap-allocator.js';
import { indexOf, ipAt, staticBandSize, type ServiceIPRange } from './ip-range.js';
import type { Store } from '../../../../../storage/interface.js';

export interface FamilyAllocator {
  /** The primary range of the family (`--service-cluster-ip-range`'s). */
  readonly range: ServiceIPRange;
  /** Whether `ip` lies in a range this family allocates from. */
  contains(ip: string): Promise<boolean>;
  /** Takes `ip` (inside the range) for `owner`: false when it is taken. */
  allocate(ip: string, owner: ServiceRef, dryRun: boolean): Promise<boolean>;
  /** Takes a free address: undefined when the range is full. */
  allocateNext(owner: ServiceRef, dryRun: boolean): Promise<string | undefined>;
  /** Frees `ip` when `owner` holds it (the bitmap cannot tell owners apart and frees it). */
  release(ip: string, owner: ServiceRef): Promise<void>;
  /** Every address taken now, with its owner when the mode records one (repair). */
  inUse(): Promise<Map<string, ServiceRef | undefined>>;
}

export function bitmapFamily(store: Store, key: string, range: ServiceIPRange): FamilyAllocator & { readonly bitmap: BitmapAllocator } {
  const bitmap = new BitmapAllocator({ store, key, range: range.cidr, size: range.size, offset: staticBandSize(range.size, 16, 256) });
  return {
    range,
    bitmap,
    contains: async (ip) => indexOf(range, ip) !== undefined,
    async allocate(ip, _owner, dryRun) {
      const i = indexOf(range, ip)!;
      return (dryRun ? await bitmap.peek(i) : await bitmap.allocate(i)).ok;
    },
    async allocateNext(_owner, dryRun) {
      const out = dryRun ? await bitmap.peekNext() : await bitmap.allocateNext();
      return out.ok ? ipAt(range, out.index) : undefined;
    },
    async release(ip) {
      const i = indexOf(range, ip);
      if (i !== undefined) await bitmap.release(i);
    },
    async inUse() {
      return new Map((await bitmap.allocated()).map((i) => [ipAt(range, i), undefined]));
    },
  };
}

const isAlreadyExists = (err: unknown): boolean => (err as { reason?: string } | null)?.reason === 'AlreadyExists';
const isNotFound = (err: unknown): boolean => (err as { reason?: string } | null)?.reason === 'NotFound';
const RANDOM_PICKS = 16;

const parentOf = (obj: KubeObject): ServiceRef | undefined => {
  const ref = (obj.spec as { parentRef?: { resource?: string; namespace?: string; name?: string } } | undefined)?.parentRef;
  return ref?.resource === 'services' ? { namespace: ref.namespace ?? '', name: ref.name ?? '' } : undefined;
};

/** The ranges of the ServiceCIDRs there are now (the allocator filters them by family). */
export type ExtraRanges = () => Promise<readonly ServiceIPRange[]>;

export function ipAddressFamily(registry: () => GenericRegistry, naming: Naming, range: ServiceIPRange, extra: ExtraRanges = async () => []): FamilyAllocator {
  const labels = {
    [`ipaddress.${legacyDomain(naming)}/ip-family`]: range.family,
    [`ipaddress.${legacyDomain(naming)}/managed-by`]: `ipallocator.${naming.domain}`,
  };
  const object = (ip: string, owner: ServiceRef): KubeObject => {
    const o = ipAddressForService(naming, ip, owner);
    o.metadata.labels = { ...labels };
    return o;
  };
  const exists = async (ip: string): Promise<boolean> => {
    try {
      await registry().get('', ip);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  };
  const take = async (ip: string, owner: ServiceRef, dryRun: boolean): Promise<boolean> => {
    if (dryRun) return !(await exists(ip));
    try {
      await registry().create('', object(ip, owner));
      return true;
    } catch (err) {
      if (isAlreadyExists(err)) return false;
      throw err;
    }
  };
  /** The flag's range first, then the other ServiceCIDRs' of this family (each CIDR once). */
  const ranges = async (): Promise<ServiceIPRange[]> => {
    const out = [range];
    for (const r of await extra()) if (r.family === range.family && !out.some((x) => x.cidr === r.cidr)) out.push(r);
    return out;
  };
  const inUse = async (): Promise<Map<string, ServiceRef | undefined>> => {
    const list = await registry().list('');
    const all = await ranges();
    const out = new Map<string, ServiceRef | undefined>();
    for (const item of list.items) {
      const name = item.metadata.name ?? '';
      if (all.some((r) => indexOf(r, name) !== undefined)) out.set(name, parentOf(item));
    }
    return out;
  };
  const nextIn = async (r: ServiceIPRange, owner: ServiceRef, dryRun: boolean, taken: () => Promise<Map<string, unknown>>): Promise<string | undefined> => {
    const offset = staticBandSize(r.size, 16, 256);
    const randomIndex = (): number => (r.size - offset > 0 ? offset + randomInt(r.size - offset) : randomInt(r.size));
    for (let k = 0; k < RANDOM_PICKS; k++) {
      const ip = ipAt(r, randomIndex());
      if (await take(ip, owner, dryRun)) return ip;
    }
    // Crowded: pick among what the list says is free (upper band first), still racing on create.
    for (;;) {
      const used = await taken();
      const free: number[] = [];
      for (let i = offset; i < r.size; i++) if (!used.has(ipAt(r, i))) free.push(i);
      for (let i = 0; i < offset && free.length === 0; i++) if (!used.has(ipAt(r, i))) free.push(i);
      if (free.length === 0) return undefined;
      const ip = ipAt(r, free[randomInt(free.length)]!);
      if (await take(ip, owner, dryRun)) return ip;
    }
  };
  return {
    range,
    contains: async (ip) => (await ranges()).some((r) => indexOf(r, ip) !== undefined),
    allocate: take,
    async allocateNext(owner, dryRun) {
      for (const r of await ranges()) {
        const ip = await nextIn(r, owner, dryRun, inUse);
        if (ip !== undefined) return ip;
      }
      return undefined;
    },
    async release(ip, owner) {
      try {
        const current = await registry().get('', ip);
        const parent = parentOf(current);
        if (parent === undefined || parent.namespace !== owner.namespace || parent.name !== owner.name) return;
        await registry().delete('', ip, { preconditions: { uid: current.metadata.uid ?? '' } });
      } catch (err) {
        if (!isNotFound(err) && (err as { reason?: string } | null)?.reason !== 'Conflict') throw err;
      }
    },
    inUse,
  };
}
