/**
 * The repair pass of Service allocation (Kubernetes' ipallocator and portallocator repair controllers),
 * run by the leader: it frees what no Service holds any more, which a crash between a reservation and the
 * object's write (or between a delete and the release) leaves behind.
 *
 * Each pass lists the Services (from the store, so it sees every write before the pass), then reads what is
 * taken: the cluster IPs (bitmap records, or IPAddress objects with their parent Service) and the node
 * ports. A value no Service holds is a leak candidate; it is freed only when it is still a candidate in a
 * pass at least `graceMs` after it was first seen, so a create that has reserved but not yet stored its
 * Service (in flight on any replica) is never robbed. An IPAddress object whose parent is another live
 * Service than the one holding the address, or whose parent is gone, counts the same way.
 *
 * The other way round, an address or node port a stored Service holds but the allocator does not record
 * (a restored store, a removed record or IPAddress object) is recorded again at once.
 */
import type { KubeObject } from '../../api/object.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { ServiceAllocators } from '../../registry/kinds/core/service-allocation/service-allocator.js';
import type { ServiceRef } from '../../registry/kinds/networking/ip-address-object.js';
import { clusterIPsOf, needsClusterIP, needsHealthCheck, needsNodePorts, portsOf } from '../../registry/kinds/core/service-defaults.js';
import { passLoop } from '../pass-loop.js';

export interface RepairOptions {
  readonly services: GenericRegistry;
  readonly allocators: ServiceAllocators;
  /** Default 60 s. */
  readonly intervalMs?: number;
  /** How long a value must stay unheld before it is freed. Default 60 s. */
  readonly graceMs?: number;
  readonly now?: () => number;
  readonly onError?: (err: unknown) => void;
  /** Called with the values Services hold that a pass recorded again (addresses, node ports as text). */
  readonly onRepaired?: (values: string[]) => void;
  /** Called with what a pass freed (logs, tests). */
  readonly onFreed?: (freed: { ips: string[]; nodePorts: number[] }) => void;
}

export interface RepairController {
  /** Runs one pass now and waits for it (tests). */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

type Rec = Record<string, unknown>;
const sameService = (a: ServiceRef, b: ServiceRef): boolean => a.namespace === b.namespace && a.name === b.name;

export function startServiceAllocationRepair(o: RepairOptions): RepairController {
  const now = o.now ?? Date.now;
  const grace = o.graceMs ?? 60_000;
  const ipSeen = new Map<string, number>();
  const portSeen = new Map<number, number>();

  async function pass(): Promise<void> {
    const list = await o.services.list('');
    const heldIPs = new Map<string, ServiceRef>();
    const heldPorts = new Set<number>();
    for (const svc of list.items as KubeObject[]) {
      const s = (svc.spec as Rec | undefined) ?? {};
      const owner: ServiceRef = { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' };
      if (needsClusterIP(s)) for (const ip of clusterIPsOf(s)) heldIPs.set(ip, owner);
      if (needsNodePorts(s)) for (const p of portsOf(s)) if (typeof p.nodePort === 'number') heldPorts.add(p.nodePort);
      if (needsHealthCheck(s) && typeof s.healthCheckNodePort === 'number') heldPorts.add(s.healthCheckNodePort);
    }
    const t = now();
    const freedIPs: string[] = [];
    const candidates = new Set<string>();
    const repaired: string[] = [];
    for (const fam of o.allocators.families) {
      const taken = await fam.inUse();
      // A Service holding an address its allocator does not record (a restored store, a removed record or
      // object): recorded again, as Kubernetes' repair does.
      for (const [ip, holder] of heldIPs) {
        if (taken.has(ip) || !(await fam.contains(ip))) continue;
        if (await fam.allocate(ip, holder, false)) repaired.push(ip);
      }
      for (const [ip, parent] of taken) {
        const holder = heldIPs.get(ip);
        if (holder !== undefined && (parent === undefined || sameService(parent, holder))) continue;
        candidates.add(ip);
        const first = ipSeen.get(ip);
        if (first === undefined) ipSeen.set(ip, t);
        else if (t - first >= grace) {
          await fam.release(ip, parent ?? { namespace: '', name: '' });
          ipSeen.delete(ip);
          freedIPs.push(ip);
        }
      }
    }
    for (const ip of [...ipSeen.keys()]) if (!candidates.has(ip)) ipSeen.delete(ip);

    const { base } = o.allocators.nodePortRange;
    const freedPorts: number[] = [];
    const portCandidates = new Set<number>();
    const allocatedPorts = await o.allocators.nodePorts.allocated();
    const recorded = new Set(allocatedPorts.map((i) => base + i));
    for (const port of heldPorts) {
      const i = port - base;
      if (recorded.has(port) || i < 0 || i >= o.allocators.nodePortRange.size) continue;
      if ((await o.allocators.nodePorts.allocate(i)).ok) repaired.push(String(port));
    }
    for (const i of allocatedPorts) {
      const port = base + i;
      if (heldPorts.has(port)) continue;
      portCandidates.add(port);
      const first = portSeen.get(port);
      if (first === undefined) portSeen.set(port, t);
      else if (t - first >= grace) {
        await o.allocators.nodePorts.release(i);
        portSeen.delete(port);
        freedPorts.push(port);
      }
    }
    for (const p of [...portSeen.keys()]) if (!portCandidates.has(p)) portSeen.delete(p);
    if (freedIPs.length + freedPorts.length > 0) o.onFreed?.({ ips: freedIPs, nodePorts: freedPorts });
    if (repaired.length > 0) o.onRepaired?.(repaired);
  }

  // Passes never overlap: one asked for by `pass()` waits for the loop's running one, and the other way round.
  let chain: Promise<void> = Promise.resolve();
  const serialized = (): Promise<void> => {
    const run = chain.then(pass);
    chain = run.catch(() => undefined);
    return run;
  };
  const loop = passLoop(serialized, o.intervalMs ?? 60_000, o.onError);
  loop.kick();
  return {
    pass: serialized,
    stop: () => loop.stop(),
  };
}
