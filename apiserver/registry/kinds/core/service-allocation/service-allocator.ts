/**
 * The Service kind's write hooks (registry `WriteHooks`): cluster IPs and node ports reserved before the
 * object is stored, released when the write fails, when an update gives them up and when the Service is
 * deleted (Kubernetes' BeginCreate / BeginUpdate / AfterDelete of the service REST storage).
 *
 * beginWrite(svc, old):
 * 1. unless ExternalName: ipFamilyPolicy and ipFamilies from the cluster's ranges (ip-families.ts);
 * 2. when the Service needs cluster IPs: one per family; an address the client gave is taken if it is in
 *    the family's range and free (else 422 as Kubernetes words it: `spec.clusterIPs: Invalid value:
 *    []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: provided IP is already allocated`, or the
 *    not-in-range message), else a free one is picked; an update keeps the old ones;
 * 3. when it needs node ports (NodePort, LoadBalancer unless allocateLoadBalancerNodePorts is false): each
 *    port's nodePort as in 2 (`spec.ports[i].nodePort: Invalid value: 30080: provided port is already
 *    allocated`, `provided port is not in the valid range. The range of valid ports is 30000-32767`), a
 *    port given twice for two protocols taken once, and on create ports of one number (53/TCP, 53/UDP)
 *    sharing one node port; likewise the healthCheckNodePort of a LoadBalancer with externalTrafficPolicy
 *    Local (a 422 where Kubernetes answers 500, since the value is the client's);
 * 4. the cluster IP fields are validated again with what was filled in.
 * A full range is a 500 `failed to allocate a serviceIP: range is full` (`a nodePort`), as Kubernetes.
 * A dry run fills in values it picked without reserving them (they differ from a real request's).
 */
import type { KubeObject } from '../../../../api/object.js';
import { internalError, invalid } from '../../../../errors/constructors.js';
import { FieldPath, invalidValue, toCauses, type FieldError } from '../../../../validation/field-error.js';
import type { FinishWrite, StrategyContext, WriteHooks } from '../../../kind-strategy.js';
import type { ServiceRef } from '../../networking/ip-address-object.js';
import { clusterIPsOf, needsClusterIP, needsHealthCheck, needsNodePorts, portsOf, specOf, typeOf } from '../service-defaults.js';
import { validateClusterIPFields } from '../service-validation.js';
import type { BitmapAllocator } from './bitmap-allocator.js';
import type { FamilyAllocator } from './family-allocators.js';
import { initIPFamilies } from './ip-families.js';
import { canonicalIP, ipToBig, type IPFamily } from './ip-range.js';

type Rec = Record<string, unknown>;

export interface NodePortRange {
  readonly base: number;
  readonly size: number;
}

export interface ServiceAllocators {
  /** Primary family first. */
  readonly families: readonly FamilyAllocator[];
  readonly nodePorts: BitmapAllocator;
  readonly nodePortRange: NodePortRange;
  /** Where release failures go (they are left to the repair pass). */
  readonly onError?: (err: unknown, what: string) => void;
}

const SERVICE_GK = { group: '', kind: 'Service' };
const spec = FieldPath.root('spec');
const rangeText = (r: NodePortRange): string => `${r.base}-${r.base + r.size - 1}`;

/** What one write took (to release if it fails) and gave up (to release once it is stored). */
class Reservation {
  readonly takenIPs: [FamilyAllocator, string][] = [];
  readonly takenPorts: number[] = [];
  readonly givenUpIPs: [FamilyAllocator, string][] = [];
  readonly givenUpPorts: number[] = [];
  constructor(readonly owner: ServiceRef, readonly dryRun: boolean) {}
}

export function serviceWriteHooks(a: ServiceAllocators): WriteHooks {
  const familyOf = (f: IPFamily): FamilyAllocator | undefined => a.families.find((x) => x.range.family === f);
  const clusterFamilies = a.families.map((x) => x.range.family);
  const report = (err: unknown, what: string): void => a.onError?.(err, what);
  /** Stored addresses with the allocator of their family (an address of no cluster family is left out). */
  const withFamily = (ips: readonly string[]): [FamilyAllocator, string][] =>
    ips.flatMap((ip): [FamilyAllocator, string][] => {
      const fam = familyOf(ipToBig(ip)?.family ?? 'IPv4');
      return fam === undefined ? [] : [[fam, ip]];
    });

  const releaseIPs = async (list: readonly [FamilyAllocator, string][], owner: ServiceRef): Promise<void> => {
    await Promise.all(list.map(([f, ip]) => f.release(ip, owner).catch((err: unknown) => report(err, `release ${ip}`))));
  };
  const releasePorts = async (ports: readonly number[]): Promise<void> => {
    await Promise.all(ports.map((p) => a.nodePorts.release(p - a.nodePortRange.base).catch((err: unknown) => report(err, `release node port ${p}`))));
  };

  async function allocateIPs(s: Rec, old: Rec | undefined, name: string, r: Reservation): Promise<void> {
    const oldIPs = old !== undefined && needsClusterIP(old) ? clusterIPsOf(old) : [];
    const families = (s.ipFamilies as IPFamily[] | undefined) ?? [];
    const wanted = clusterIPsOf(s);
    // Kubernetes reports a chosen address it cannot take on `spec.clusterIPs` with the whole list, and stops there.
    const refuse = (ip: string, why: string): never => {
      throw invalid(SERVICE_GK, name, toCauses([{
        type: 'FieldValueInvalid',
        field: 'spec.clusterIPs',
        detail: `[]string{${wanted.map((x) => JSON.stringify(x)).join(', ')}}: failed to allocate IP ${ip}: ${why}`,
      }]));
    };
    const out: string[] = [];
    for (let i = 0; i < families.length; i++) {
      const fam = familyOf(families[i]!);
      if (fam === undefined) continue; // initIPFamilies refused it already
      const given = wanted[i] ?? '';
      if (given !== '' && oldIPs[i] === given) {
        out.push(given);
        continue;
      }
      if (given !== '') {
        const ip = canonicalIP(given) ?? given;
        // An address of the other family is validation's to report (it runs again below).
        if (ipToBig(ip)?.family !== fam.range.family) {
          out.push(given);
          continue;
        }
        if (!(await fam.contains(ip))) refuse(given, `the provided IP (${given}) is not in the valid range. The range of valid IPs is ${fam.range.cidr}`);
        if (!(await fam.allocate(ip, r.owner, r.dryRun))) refuse(given, 'provided IP is already allocated');
        if (!r.dryRun) r.takenIPs.push([fam, ip]);
        out.push(given);
        continue;
      }
      const ip = await fam.allocateNext(r.owner, r.dryRun);
      if (ip === undefined) throw internalError('failed to allocate a serviceIP: range is full');
      if (!r.dryRun) r.takenIPs.push([fam, ip]);
      out.push(ip);
    }
    s.clusterIPs = out;
    s.clusterIP = out[0];
    r.givenUpIPs.push(...withFamily(oldIPs.filter((ip) => ip !== 'None' && !out.includes(ip))));
  }

  const oldNodePorts = (old: Rec | undefined): Set<number> => {
    const out = new Set<number>();
    if (old === undefined) return out;
    if (needsNodePorts(old)) for (const p of portsOf(old)) if (typeof p.nodePort === 'number' && p.nodePort > 0) out.add(p.nodePort);
    if (needsHealthCheck(old) && typeof old.healthCheckNodePort === 'number' && old.healthCheckNodePort > 0) out.add(old.healthCheckNodePort);
    return out;
  };

  /** Takes `port` (`field` for the error) unless `kept` (already the Service's); undefined when it worked. */
  async function takePort(port: number, path: FieldPath, detailPrefix: string, r: Reservation, kept: Set<number>, picked: Set<number>): Promise<FieldError | undefined> {
    if (kept.has(port) || picked.has(port)) return undefined;
    const i = port - a.nodePortRange.base;
    if (i < 0 || i >= a.nodePortRange.size) {
      return invalidValue(path, port, `${detailPrefix}provided port is not in the valid range. The range of valid ports is ${rangeText(a.nodePortRange)}`);
    }
    const ok = r.dryRun ? (await a.nodePorts.peek(i)).ok : (await a.nodePorts.allocate(i)).ok;
    if (!ok) return invalidValue(path, port, `${detailPrefix}provided port is already allocated`);
    picked.add(port);
    if (!r.dryRun) r.takenPorts.push(port);
    return undefined;
  }

  async function nextPort(r: Reservation, picked: Set<number>): Promise<number> {
    for (let k = 0; k < 16; k++) {
      const out = r.dryRun ? await a.nodePorts.peekNext() : await a.nodePorts.allocateNext();
      if (!out.ok) break;
      const port = a.nodePortRange.base + out.index;
      // A dry run's picks are not reserved, so one request could pick the same port twice.
      if (picked.has(port)) continue;
      picked.add(port);
      if (!r.dryRun) r.takenPorts.push(port);
      return port;
    }
    throw internalError('failed to allocate a nodePort: range is full');
  }

  async function allocatePorts(s: Rec, old: Rec | undefined, name: string, r: Reservation): Promise<void> {
    const kept = oldNodePorts(old);
    const picked = new Set<number>();
    const errs: FieldError[] = [];
    const wantPorts = needsNodePorts(s);
    const ports = portsOf(s);
    if (wantPorts) {
      for (let i = 0; i < ports.length; i++) {
        const p = ports[i]!;
        if (typeof p.nodePort === 'number' && p.nodePort !== 0) {
          const e = await takePort(p.nodePort, spec.child('ports').index(i).child('nodePort'), '', r, kept, picked);
          if (e !== undefined) errs.push(e);
        }
      }
      // On create, ports with the same number (53/TCP and 53/UDP) share one node port, a chosen one if any.
      const byNumber = new Map<unknown, number>();
      if (old === undefined) for (const p of ports) if (typeof p.nodePort === 'number' && p.nodePort !== 0 && !byNumber.has(p.port)) byNumber.set(p.port, p.nodePort);
      for (const p of ports) {
        if (p.nodePort !== undefined && p.nodePort !== 0) continue;
        const shared = old === undefined ? byNumber.get(p.port) : undefined;
        p.nodePort = shared ?? (await nextPort(r, picked));
        if (old === undefined) byNumber.set(p.port, p.nodePort as number);
      }
    }
    if (needsHealthCheck(s)) {
      const hc = typeof s.healthCheckNodePort === 'number' ? s.healthCheckNodePort : 0;
      if (hc !== 0) {
        const e = await takePort(hc, spec.child('healthCheckNodePort'), `failed to allocate requested HealthCheck NodePort ${hc}: `, r, kept, picked);
        if (e !== undefined) errs.push(e);
      } else s.healthCheckNodePort = await nextPort(r, picked);
    }
    if (errs.length > 0) throw invalid(SERVICE_GK, name, toCauses(errs));
    const now = new Set<number>();
    if (wantPorts) for (const p of ports) if (typeof p.nodePort === 'number') now.add(p.nodePort);
    if (needsHealthCheck(s) && typeof s.healthCheckNodePort === 'number') now.add(s.healthCheckNodePort);
    for (const p of kept) if (!now.has(p)) r.givenUpPorts.push(p);
  }

  return {
    async beginWrite(svc: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): Promise<FinishWrite> {
      const s = specOf(svc);
      const o = old === undefined ? undefined : (old.spec as Rec | undefined) ?? {};
      const name = svc.metadata.name ?? '';
      const r = new Reservation({ namespace: ctx.namespace !== '' ? ctx.namespace : svc.metadata.namespace ?? '', name }, ctx.dryRun);
      try {
        if (typeOf(s) !== 'ExternalName') {
          const errs = initIPFamilies(s, o, clusterFamilies);
          if (errs.length > 0) throw invalid(SERVICE_GK, name, toCauses(errs));
        }
        if (needsClusterIP(s)) await allocateIPs(s, o, name, r);
        else if (o !== undefined && needsClusterIP(o)) r.givenUpIPs.push(...withFamily(clusterIPsOf(o)));
        await allocatePorts(s, o, name, r);
        const errs = validateClusterIPFields(s);
        if (errs.length > 0) throw invalid(SERVICE_GK, name, toCauses(errs));
      } catch (err) {
        await releaseIPs(r.takenIPs, r.owner);
        await releasePorts(r.takenPorts);
        throw err;
      }
      return async (committed) => {
        if (r.dryRun) return;
        if (committed) {
          await releaseIPs(r.givenUpIPs, r.owner);
          await releasePorts(r.givenUpPorts);
        } else {
          await releaseIPs(r.takenIPs, r.owner);
          await releasePorts(r.takenPorts);
        }
      };
    },

    async afterDelete(svc: KubeObject): Promise<void> {
      const s = (svc.spec as Rec | undefined) ?? {};
      const owner = { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' };
      if (needsClusterIP(s)) await releaseIPs(withFamily(clusterIPsOf(s)), owner);
      await releasePorts([...oldNodePorts(s)]);
    },
  };
}
