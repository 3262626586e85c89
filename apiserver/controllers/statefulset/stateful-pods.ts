/**
 * The identity of a StatefulSet's pods and claims, after kube 1.32's stateful_set_utils.go:
 * - pod `<set>-<ordinal>` for ordinals `start` .. `start + replicas - 1` (`spec.ordinals.start`);
 * - hostname `<pod name>` and subdomain `spec.serviceName`, set when the pod is made (immutable afterwards);
 * - labels `statefulset.<legacy domain>/pod-name` (the pod's name), `apps.<legacy domain>/pod-index` (the
 *   ordinal; PodIndexLabel is on in v1.32) and `controller-revision-hash` (the revision the pod was made
 *   from; a domain-free name in Kubernetes too); ControllerRevisions carry `controller.<legacy domain>/hash`;
 * - claims `<template>-<set>-<ordinal>`, labelled with the set's `matchLabels` over the template's labels,
 *   and a volume of the template's name in the pod naming each claim (claims win over template volumes).
 * A pod's parent and ordinal come from its name alone (`(.*)-([0-9]+)$`), as kube reads them.
 */
import type { KubeObject } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import { isObject, type JsonObject } from '../../api/json.js';
import { controllerRefTo } from '../controller-ref.js';
import { podFromTemplate, type PodTemplateLike } from '../pod-from-template.js';

export const STATEFUL_SET_API_VERSION = 'apps/v1';
export const STATEFUL_SET_KIND = 'StatefulSet';
/** apps/v1 ControllerRevisionHashLabelKey (no domain in Kubernetes either). */
export const REVISION_LABEL = 'controller-revision-hash';

export interface StatefulSetLabels {
  /** `statefulset.kubernetes.io/pod-name` in Kubernetes' names. */
  readonly podName: string;
  /** `apps.kubernetes.io/pod-index` in Kubernetes' names. */
  readonly podIndex: string;
  /** The hash label of a ControllerRevision (pkg/controller/history): `controller.kubernetes.io/hash` in Kubernetes' names. */
  readonly revisionHash: string;
}

export function statefulSetLabels(n: Naming): StatefulSetLabels {
  return Object.freeze({
    podName: `statefulset.${n.legacyDomain}/pod-name`,
    podIndex: `apps.${n.legacyDomain}/pod-index`,
    revisionHash: `controller.${n.legacyDomain}/hash`,
  });
}

export const specOf = (obj: KubeObject): JsonObject => (isObject(obj.spec) ? obj.spec : {});
export const statusOf = (obj: KubeObject): JsonObject => (isObject(obj.status) ? obj.status : {});
const num = (o: JsonObject | undefined, key: string, dflt = 0): number => (o !== undefined && typeof o[key] === 'number' ? (o[key] as number) : dflt);
const obj = (o: JsonObject, key: string): JsonObject | undefined => (isObject(o[key]) ? o[key] : undefined);

export const replicasOf = (set: KubeObject): number => num(specOf(set), 'replicas', 1);
export const startOrdinal = (set: KubeObject): number => num(obj(specOf(set), 'ordinals'), 'start');
export const endOrdinal = (set: KubeObject): number => startOrdinal(set) + replicasOf(set) - 1;
export const minReadySecondsOf = (set: KubeObject): number => num(specOf(set), 'minReadySeconds');
export const serviceNameOf = (set: KubeObject): string => (typeof specOf(set).serviceName === 'string' ? (specOf(set).serviceName as string) : '');
export const isParallel = (set: KubeObject): boolean => specOf(set).podManagementPolicy === 'Parallel';
export const updateStrategyOf = (set: KubeObject): JsonObject => obj(specOf(set), 'updateStrategy') ?? {};
export const templateOf = (set: KubeObject): JsonObject => obj(specOf(set), 'template') ?? {};

const ORDINAL_NAME = /^(.*)-([0-9]+)$/;

/** The parent name and ordinal of a pod's name; ordinal -1 when the name has none. */
export function parentAndOrdinal(podName: string): { parent: string; ordinal: number } {
  const m = ORDINAL_NAME.exec(podName);
  if (m === null) return { parent: '', ordinal: -1 };
  const ordinal = Number(m[2]);
  // Go's Atoi into an int32-sized int fails on overflow: such a name has no ordinal.
  if (!Number.isSafeInteger(ordinal) || ordinal > 2 ** 31 - 1) return { parent: '', ordinal: -1 };
  return { parent: m[1]!, ordinal };
}

export const ordinalOf = (pod: KubeObject): number => parentAndOrdinal(pod.metadata.name ?? '').ordinal;
export const podName = (set: KubeObject, ordinal: number): string => `${set.metadata.name ?? ''}-${ordinal}`;
export const claimName = (template: string, set: KubeObject, ordinal: number): string => `${template}-${set.metadata.name ?? ''}-${ordinal}`;
export const isMemberOf = (set: KubeObject, pod: KubeObject): boolean => parentAndOrdinal(pod.metadata.name ?? '').parent === set.metadata.name;
export const inOrdinalRange = (pod: KubeObject, set: KubeObject): boolean => {
  const ord = ordinalOf(pod);
  return ord >= startOrdinal(set) && ord <= endOrdinal(set);
};

// ---- pod state -------------------------------------------------------------------------------------------

const phaseOf = (pod: KubeObject): string => (typeof statusOf(pod).phase === 'string' ? (statusOf(pod).phase as string) : '');
export const isCreated = (pod: KubeObject): boolean => phaseOf(pod) !== '';
export const isPending = (pod: KubeObject): boolean => phaseOf(pod) === 'Pending';
export const isFailed = (pod: KubeObject): boolean => phaseOf(pod) === 'Failed';
export const isSucceeded = (pod: KubeObject): boolean => phaseOf(pod) === 'Succeeded';
export const isTerminating = (pod: KubeObject): boolean => pod.metadata.deletionTimestamp !== undefined;

function readyCondition(pod: KubeObject): JsonObject | undefined {
  const conditions = statusOf(pod).conditions;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find((c): c is JsonObject => isObject(c) && c.type === 'Ready');
}

export const isRunningAndReady = (pod: KubeObject): boolean => phaseOf(pod) === 'Running' && readyCondition(pod)?.status === 'True';

/** podutil.IsPodAvailable: Ready, and for `minReadySeconds` (by the condition's lastTransitionTime). */
export function isRunningAndAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds === 0) return true;
  const since = typeof ready.lastTransitionTime === 'string' ? Date.parse(ready.lastTransitionTime) : Number.NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now;
}

export const isHealthy = (pod: KubeObject): boolean => isRunningAndReady(pod) && !isTerminating(pod);
export const podRevision = (pod: KubeObject): string => pod.metadata.labels?.[REVISION_LABEL] ?? '';

// ---- claims and identity ------------------------------------------------------------------------------------

/** The claim templates' names, in the set's order. */
export function claimTemplates(set: KubeObject): JsonObject[] {
  const list = specOf(set).volumeClaimTemplates;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

const templateName = (t: JsonObject): string => {
  const m = obj(t, 'metadata');
  return m !== undefined && typeof m.name === 'string' ? m.name : '';
};

/** getPersistentVolumeClaims: each template's claim for the pod of `ordinal`, keyed by template name. */
export function claimsFor(set: KubeObject, ordinal: number): Map<string, KubeObject> {
  const matchLabels = (obj(obj(specOf(set), 'selector') ?? {}, 'matchLabels') ?? {}) as Record<string, string>;
  const claims = new Map<string, KubeObject>();
  for (const t of claimTemplates(set)) {
    const name = templateName(t);
    const copy = structuredClone(t) as JsonObject;
    const meta = (obj(copy, 'metadata') ?? {}) as KubeObject['metadata'];
    const claim: KubeObject = {
      ...copy,
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { ...meta, name: claimName(name, set, ordinal), namespace: set.metadata.namespace ?? '', labels: { ...(meta.labels ?? {}), ...matchLabels } },
    };
    delete claim.status;
    delete claim.metadata.resourceVersion;
    delete claim.metadata.uid;
    delete claim.metadata.creationTimestamp;
    claims.set(name, claim);
  }
  return claims;
}

/** The pod's volumes with one per claim template first (template order), then its other volumes. */
export function updateStorage(set: KubeObject, pod: KubeObject): void {
  const spec = (pod.spec ??= {}) as JsonObject;
  const claims = claimsFor(set, ordinalOf(pod));
  const current = Array.isArray(spec.volumes) ? spec.volumes.filter(isObject) : [];
  const volumes: JsonObject[] = [];
  for (const [name, claim] of claims) volumes.push({ name, persistentVolumeClaim: { claimName: claim.metadata.name ?? '' } });
  for (const v of current) if (!claims.has(typeof v.name === 'string' ? v.name : '')) volumes.push(v);
  if (volumes.length > 0) spec.volumes = volumes;
}

/** storageMatches: every claim template has a volume of its name naming this pod's claim. */
export function storageMatches(set: KubeObject, pod: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = specOf(pod).volumes;
  const byName = new Map<string, JsonObject>();
  if (Array.isArray(volumes)) for (const v of volumes) if (isObject(v) && typeof v.name === 'string') byName.set(v.name, v);
  for (const t of claimTemplates(set)) {
    const name = templateName(t);
    const source = obj(byName.get(name) ?? {}, 'persistentVolumeClaim');
    if (source === undefined || source.claimName !== claimName(name, set, ordinal)) return false;
  }
  return true;
}

/** updateIdentity: name, namespace and the identity labels. */
export function updateIdentity(set: KubeObject, pod: KubeObject, labels: StatefulSetLabels): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace ?? '';
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [labels.podName]: pod.metadata.name, [labels.podIndex]: String(ordinal) };
}

/** identityMatches: the pod has the name, namespace and pod-name label of its ordinal in this set. */
export function identityMatches(set: KubeObject, pod: KubeObject, labels: StatefulSetLabels): boolean {
  const name = pod.metadata.name ?? '';
  const { parent, ordinal } = parentAndOrdinal(name);
  return ordinal >= 0 && parent === set.metadata.name && name === podName(set, ordinal) &&
    pod.metadata.namespace === set.metadata.namespace && pod.metadata.labels?.[labels.podName] === name;
}

/** newStatefulSetPod: the pod of `ordinal` from the set's template, with its identity and storage. */
export function newStatefulSetPod(set: KubeObject, ordinal: number, labels: StatefulSetLabels): KubeObject {
  const ref = controllerRefTo(set, STATEFUL_SET_API_VERSION, STATEFUL_SET_KIND);
  const pod = podFromTemplate(templateOf(set) as PodTemplateLike, set, ref, { name: podName(set, ordinal) });
  updateIdentity(set, pod, labels);
  const spec = (pod.spec ??= {}) as JsonObject;
  spec.hostname = pod.metadata.name;
  spec.subdomain = serviceNameOf(set);
  updateStorage(set, pod);
  return pod;
}

/**
 * newVersionedStatefulSetPod: ordinals below the partition (or, without rollingUpdate, below
 * `status.currentReplicas`) of a RollingUpdate set are made from the current revision, the rest from the
 * update revision; the pod carries its revision's name in `controller-revision-hash`.
 */
export function newVersionedPod(
  currentSet: KubeObject, updateSet: KubeObject, currentRevision: string, updateRevision: string, ordinal: number, labels: StatefulSetLabels,
): KubeObject {
  const strategy = updateStrategyOf(currentSet);
  const rolling = obj(strategy, 'rollingUpdate');
  const start = startOrdinal(currentSet);
  const fromCurrent = strategy.type === 'RollingUpdate' && (
    (rolling === undefined && ordinal < start + num(statusOf(currentSet), 'currentReplicas')) ||
    (rolling !== undefined && ordinal < start + num(rolling, 'partition'))
  );
  const pod = newStatefulSetPod(fromCurrent ? currentSet : updateSet, ordinal, labels);
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [REVISION_LABEL]: fromCurrent ? currentRevision : updateRevision };
  return pod;
}
