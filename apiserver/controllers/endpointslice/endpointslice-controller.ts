/**
 * The EndpointSlice controller (kube-controller-manager's `endpointslice-controller`,
 * pkg/controller/endpointslice in Kubernetes v1.32): for every Service with a selector (not ExternalName),
 * the EndpointSlices of its pods, labelled `<legacy domain>/service-name: <service>` and
 * `endpointslice.<legacy domain>/managed-by: endpointslice-controller.<domain>`, owned by the Service
 * (controller reference: the garbage collector removes them with it), at most `maxEndpointsPerSlice`
 * endpoints each (reconciler.ts decides the slices; endpoints.ts the endpoints).
 *
 * - Slices other writers manage (another managed-by value or none, such as the `kubernetes` Service's) are
 *   never read nor written; Services without a selector get nothing (and keep what they had, as kube).
 * - A deleted Service's slices are left to the garbage collector (kube); a Service being deleted gets no new
 *   slices.
 * - Writes: create with generateName, update with the resourceVersion read, delete with a uid precondition;
 *   each carries the last-change-trigger-time annotation (trigger-time.ts).
 * - A sync works only from an informer that has seen the controller's own earlier writes (slice-tracker.ts);
 *   otherwise it is retried with back-off, so two passes never create the same slices.
 * - Failures: event `FailedToUpdateEndpointSlices` (Warning) "Error updating Endpoint Slices for Service
 *   <ns>/<name>: <error>", and the Service is synced again with back-off (kube's 1 s start).
 */
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import { referenceOf } from '../../events/object-reference.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { CONTROLLER_FIELD_MANAGER } from '../field-manager.js';
import type { InformerFactory } from '../informer.js';
import { keyOf, splitKey, startWorkQueue } from '../work-queue.js';
import { isPodReady, isPodTerminal, labelsMatch, podSpec, podStatus } from '../replication/pod-state.js';
import { serviceSpec } from './endpoints.js';
import { planSlices, type Slice } from './reconciler.js';
import { sliceNames } from './slice-names.js';
import { createSliceTracker } from './slice-tracker.js';
import { createTriggerTimeTracker, rfc3339Nano } from './trigger-time.js';

export interface EndpointSliceControllerOptions {
  readonly informers: InformerFactory;
  readonly services: GenericRegistry;
  readonly pods: GenericRegistry;
  readonly endpointSlices: GenericRegistry;
  readonly nodes: GenericRegistry;
  readonly naming: Naming;
  /** Events about Services (component `endpoint-slice-controller`). Default: none. */
  readonly recorder?: EventRecorder;
  readonly onError?: (err: unknown, key: string) => void;
  /** kube's --max-endpoints-per-slice. Default 100. */
  readonly maxEndpointsPerSlice?: number;
  /** kube's --concurrent-service-endpoint-syncs. Default 5. */
  readonly workers?: number;
  /** kube's --endpointslice-updates-batch-period: delay of a pod change's sync. Default 0. */
  readonly updatesBatchPeriodMs?: number;
  /** Delay of a sync after another writer changed one of the controller's slices. Default 1 s (kube's). */
  readonly sliceChangeMinSyncDelayMs?: number;
  /** First retry delay after a failed sync. Default 1 s (kube's defaultSyncBackOff). */
  readonly syncBackOffMs?: number;
  /** Longest retry delay. Default 1,000 s (kube's maxSyncBackOff). */
  readonly maxSyncBackOffMs?: number;
}

export interface EndpointSliceController {
  stop(): Promise<void>;
}

/** The informer has not yet seen the controller's own writes: retried, not reported. */
export class StaleInformerCache extends Error {
  constructor() {
    super('EndpointSlice informer cache is out of date');
  }
}

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const hasSelector = (svc: KubeObject): boolean => Object.keys(serviceSpec(svc).selector ?? {}).length > 0;

export function startEndpointSliceController(o: EndpointSliceControllerOptions): EndpointSliceController {
  const names = sliceNames(o.naming);
  const max = o.maxEndpointsPerSlice ?? 100;
  const batch = o.updatesBatchPeriodMs ?? 0;
  const sliceDelay = Math.max(o.sliceChangeMinSyncDelayMs ?? 1000, batch);
  const services = o.informers.informer(o.services);
  const pods = o.informers.informer(o.pods);
  const slices = o.informers.informer(o.endpointSlices);
  const nodes = o.informers.informer(o.nodes);
  const tracker = createSliceTracker();
  const triggers = createTriggerTimeTracker();

  const queue = startWorkQueue((key) => sync(key), {
    workers: o.workers ?? 5,
    baseDelayMs: o.syncBackOffMs ?? 1000,
    maxDelayMs: o.maxSyncBackOffMs ?? 1_000_000,
    onError: (err, key) => {
      if (!(err instanceof StaleInformerCache)) o.onError?.(err, key);
    },
  });

  /** Keys of the Services of the pod's namespace whose selector matches `labels`. */
  const servicesFor = (namespace: string, labels: Readonly<Record<string, string>> | undefined): Set<string> => {
    const keys = new Set<string>();
    for (const svc of services.list(namespace)) if (hasSelector(svc) && labelsMatch(serviceSpec(svc).selector, labels)) keys.add(keyOf(svc));
    return keys;
  };
  const queuePodServices = (keys: Iterable<string>): void => {
    for (const k of keys) if (batch > 0) queue.addAfter(k, batch);
    else queue.add(k);
  };
  const ips = (p: KubeObject): string => JSON.stringify((podStatus(p).podIPs ?? []).map((x) => x.ip));
  const podUpdated = (old: KubeObject, cur: KubeObject): void => {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    const labelsChanged =
      JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(cur.metadata.labels ?? {}) ||
      podSpec(old).hostname !== podSpec(cur).hostname ||
      podSpec(old).subdomain !== podSpec(cur).subdomain;
    const podChanged =
      old.metadata.deletionTimestamp !== cur.metadata.deletionTimestamp ||
      isPodReady(old) !== isPodReady(cur) ||
      ips(old) !== ips(cur) ||
      isPodTerminal(old) !== isPodTerminal(cur) ||
      (podStatus(old).podIP ?? '') !== (podStatus(cur).podIP ?? '');
    if (!podChanged && !labelsChanged) return;
    const namespace = cur.metadata.namespace ?? '';
    const now = servicesFor(namespace, cur.metadata.labels);
    if (!labelsChanged) return queuePodServices(now);
    const before = servicesFor(namespace, old.metadata.labels);
    // Labels changed: every Service of either set when the endpoint changed too, else those of one set only.
    const keys = podChanged ? new Set([...now, ...before]) : new Set([...[...now].filter((k) => !before.has(k)), ...[...before].filter((k) => !now.has(k))]);
    queuePodServices(keys);
  };

  const managed = (slice: KubeObject): boolean => slice.metadata.labels?.[names.managedBy] === names.controllerName;
  const serviceKeyOf = (slice: KubeObject): string | undefined => {
    const svc = slice.metadata.labels?.[names.serviceName];
    return svc === undefined || svc === '' ? undefined : `${slice.metadata.namespace ?? ''}/${svc}`;
  };
  const queueForSlice = (slice: KubeObject): void => {
    const key = serviceKeyOf(slice);
    if (key !== undefined) queue.addAfter(key, sliceDelay);
  };

  const unsubscribe = [
    services.on({ added: (s) => queue.add(keyOf(s)), updated: (_o, s) => queue.add(keyOf(s)), deleted: (s) => queue.add(keyOf(s)) }),
    pods.on({
      added: (p) => queuePodServices(servicesFor(p.metadata.namespace ?? '', p.metadata.labels)),
      updated: podUpdated,
      deleted: (p) => queuePodServices(servicesFor(p.metadata.namespace ?? '', p.metadata.labels)),
    }),
    slices.on({
      added: (s) => {
        const key = serviceKeyOf(s);
        if (key !== undefined && managed(s) && tracker.shouldSync(key, s)) queueForSlice(s);
      },
      updated: (old, s) => {
        if (old.metadata.labels?.[names.serviceName] !== s.metadata.labels?.[names.serviceName]) {
          queueForSlice(s);
          queueForSlice(old);
          return;
        }
        const key = serviceKeyOf(s);
        if (managed(old) !== managed(s) || (key !== undefined && managed(s) && tracker.shouldSync(key, s))) queueForSlice(s);
      },
      deleted: (s) => {
        const key = serviceKeyOf(s);
        if (key !== undefined && managed(s) && tracker.has(key, s) && !tracker.handleDeletion(key, s)) queueForSlice(s);
      },
    }),
  ];

  const annotate = (slice: Slice, trigger: number | undefined): Slice => {
    const annotations = { ...(slice.metadata.annotations ?? {}) };
    if (trigger !== undefined) annotations[names.lastChangeTriggerTime] = rfc3339Nano(trigger);
    else delete annotations[names.lastChangeTriggerTime];
    const metadata = { ...slice.metadata };
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
    return { ...slice, metadata };
  };

  const reconcile = async (key: string, svc: KubeObject, selected: KubeObject[], existing: Slice[], trigger: number | undefined): Promise<void> => {
    const namespace = svc.metadata.namespace ?? '';
    const where = `Service ${namespace}/${svc.metadata.name ?? ''}`;
    const plan = planSlices({ service: svc, pods: selected, existing, node: (n) => (n === '' ? undefined : nodes.get('', n)), maxEndpointsPerSlice: max, names });
    const opts = { fieldManager: CONTROLLER_FIELD_MANAGER };
    // A Service being deleted gets no new slices: the garbage collector would race them.
    if (svc.metadata.deletionTimestamp === undefined) {
      for (const slice of plan.create) {
        try {
          const created = await o.endpointSlices.create(namespace, annotate(slice, trigger), opts);
          tracker.update(key, created.object);
        } catch (err) {
          if (isStatusError(err) && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating')) return;
          throw new Error(`failed to create EndpointSlice for ${where}: ${errorMessage(err)}`);
        }
      }
    }
    for (const slice of plan.update) {
      try {
        const updated = await o.endpointSlices.update(namespace, slice.metadata.name ?? '', annotate(slice, trigger), opts);
        tracker.update(key, updated.object);
      } catch (err) {
        throw new Error(`failed to update ${slice.metadata.name ?? ''} EndpointSlice for ${where}: ${errorMessage(err)}`);
      }
    }
    for (const slice of plan.delete) {
      try {
        await o.endpointSlices.delete(namespace, slice.metadata.name ?? '', { preconditions: { uid: slice.metadata.uid ?? '' } });
        tracker.expectDeletion(key, slice);
      } catch (err) {
        if (isStatusError(err) && err.code === 404) continue;
        throw new Error(`failed to delete ${slice.metadata.name ?? ''} EndpointSlice for ${where}: ${errorMessage(err)}`);
      }
    }
    if (plan.errors.length > 0) throw new Error(plan.errors.length === 1 ? plan.errors[0] : `[${plan.errors.join(', ')}]`);
  };

  // kube's WaitForCacheSync: no sync decides from a partial picture.
  let stopNow!: () => void;
  const stopping = new Promise<false>((resolve) => (stopNow = () => resolve(false)));
  const synced = Promise.all([services.synced, pods.synced, slices.synced, nodes.synced]);

  const sync = async (key: string): Promise<void> => {
    if ((await Promise.race([synced.then(() => true), stopping])) !== true) return;
    const { namespace, name } = splitKey(key);
    const svc = services.get(namespace, name);
    if (svc === undefined) {
      // Its slices carry its controller reference: the garbage collector removes them.
      triggers.deleteService(key);
      tracker.deleteService(key);
      return;
    }
    if (serviceSpec(svc).type === 'ExternalName' || !hasSelector(svc)) return;
    const selector = serviceSpec(svc).selector;
    const selected = pods.list(namespace).filter((p) => labelsMatch(selector, p.metadata.labels));
    const existing = slices
      .list(namespace)
      .filter((s) => s.metadata.labels?.[names.serviceName] === name && managed(s) && s.metadata.deletionTimestamp === undefined) as Slice[];
    if (tracker.stale(key, existing)) throw new StaleInformerCache();
    const trigger = triggers.compute(key, svc, selected);
    try {
      await reconcile(key, svc, selected, existing, trigger);
    } catch (err) {
      void o.recorder?.event(referenceOf(svc), 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${namespace}/${name}: ${errorMessage(err)}`);
      throw err;
    }
  };

  return {
    async stop() {
      stopNow();
      for (const off of unsubscribe) off();
      await queue.stop();
    },
  };
}
