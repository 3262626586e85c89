/**
 * The `kubernetes` Service in `default` and its EndpointSlice `kubernetes`, kept by the leader as
 * kube-apiserver's bootstrap controller and lease endpoint reconciler keep them:
 *
 * - the Service: ClusterIP, the first address of the primary service range, port 443 `https` to the
 *   replicas' secure port, no selector, labels `component=apiserver`, `provider=kubernetes`; created when
 *   missing (through the registry, so the address is reserved like any other), its port put back when changed;
 * - the EndpointSlice: label `<legacy domain>/service-name: kubernetes` (`kubernetes.io/service-name` under
 *   k8s.io), one ready endpoint per live replica of the primary family (the identity records of
 *   master-lease.ts), the port `https` of the leader's own secure port (as Kubernetes, replicas are expected
 *   to share one port), written only when it differs.
 *
 * A pass runs at start and every `intervalMs`; failures go to `onError` and the next pass tries again.
 */
import type { KubeObject } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { jsonEqual } from '../../registry/patch/json-value.js';
import { ipAt, ipToBig, type ServiceIPRange } from '../../registry/kinds/core/service-allocation/ip-range.js';
import { legacyKey } from '../../registry/kinds/shared/legacy-domain.js';
import type { Store } from '../../../storage/interface.js';
import { passLoop } from '../pass-loop.js';
import { listMasterLeases } from './master-lease.js';

export interface KubernetesServiceOptions {
  readonly store: Store;
  /** `--etcd-prefix`. */
  readonly prefix: string;
  readonly naming: Naming;
  readonly services: GenericRegistry;
  readonly endpointSlices: GenericRegistry;
  /** The primary service range (its first address is the Service's). */
  readonly range: ServiceIPRange;
  /** Resolves with this replica's secure port once it listens: a pass runs then (one before does nothing). */
  readonly listening: Promise<number>;
  /** Default 10 s. */
  readonly intervalMs?: number;
  readonly onError?: (err: unknown) => void;
}

export interface KubernetesServiceController {
  /** Runs one pass now (tests). */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

const NAME = 'kubernetes';
const NAMESPACE = 'default';
const isNotFound = (err: unknown): boolean => (err as { reason?: string } | null)?.reason === 'NotFound';

export function startKubernetesServiceController(o: KubernetesServiceOptions): KubernetesServiceController {
  const clusterIP = ipAt(o.range, 0);
  const manager = { fieldManager: 'platform-apiserver' };

  const get = async (registry: GenericRegistry): Promise<KubeObject | undefined> => {
    try {
      return await registry.get(NAMESPACE, NAME);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  async function ensureService(port: number): Promise<void> {
    const ports = [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }];
    const current = await get(o.services);
    if (current === undefined) {
      await o.services.create(NAMESPACE, {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: { type: 'ClusterIP', clusterIP, clusterIPs: [clusterIP], ports, sessionAffinity: 'None', ipFamilyPolicy: 'SingleStack', ipFamilies: [o.range.family] },
      }, manager);
      return;
    }
    const spec = (current.spec ?? {}) as Record<string, unknown>;
    if (jsonEqual(spec.ports, ports)) return;
    await o.services.update(NAMESPACE, NAME, { ...current, spec: { ...spec, ports } }, manager);
  }

  async function ensureSlice(port: number): Promise<void> {
    const leases = await listMasterLeases(o.store, o.prefix);
    const ips = [...new Set(leases.map((l) => l.ip).filter((ip) => ipToBig(ip)?.family === o.range.family))].sort();
    const want = {
      addressType: o.range.family,
      endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    };
    const labels = { [legacyKey(o.naming, 'service-name')]: NAME };
    const current = await get(o.endpointSlices);
    if (current === undefined) {
      await o.endpointSlices.create(NAMESPACE, {
        apiVersion: `${o.naming.group('discovery')}/v1`,
        kind: 'EndpointSlice',
        metadata: { name: NAME, namespace: NAMESPACE, labels },
        ...want,
      }, manager);
      return;
    }
    const same = current.addressType === want.addressType
      && jsonEqual(current.endpoints ?? [], want.endpoints)
      && jsonEqual(current.ports ?? [], want.ports)
      && jsonEqual(current.metadata.labels ?? {}, labels);
    if (same) return;
    await o.endpointSlices.update(NAMESPACE, NAME, { ...current, ...want, metadata: { ...current.metadata, labels } }, manager);
  }

  let port: number | undefined;
  const pass = async (): Promise<void> => {
    if (port === undefined) return;
    await ensureService(port);
    await ensureSlice(port);
  };
  // Passes never overlap (`pass()` of a test waits for the loop's running one).
  let chain: Promise<void> = Promise.resolve();
  const serialized = (): Promise<void> => {
    const run = chain.then(pass);
    chain = run.catch(() => undefined);
    return run;
  };
  const loop = passLoop(serialized, o.intervalMs ?? 10_000, o.onError);
  loop.kick();
  void o.listening.then((p) => {
    port = p;
    loop.kick();
  });
  return { pass: serialized, stop: () => loop.stop() };
}
