/**
 * Which pods a replication controller deletes first when it has too many: kube's getPodsToDelete over
 * `ActivePodsWithRanks` (pkg/controller/controller_utils.go, v1.32, with PodDeletionCost and
 * LogarithmicScaleDown on as they are by default). The least valuable pod comes first:
 *
 * 1. not scheduled (no `spec.nodeName`) before scheduled;
 * 2. Pending before Unknown before Running;
 * 3. not ready before ready;
 * 4. lower `controller.<legacy domain>/pod-deletion-cost` before higher (absent or not an int32: 0);
 * 5. more related active pods on the same node ("doubled up") before fewer;
 * 6. both ready: ready for a shorter time first, compared on a log2 scale of the time since (same bucket:
 *    the smaller uid first); an unknown ready time counts as the most recent;
 * 7. more container restarts before fewer;
 * 8. newer before older, on the same log2 scale of the time since creation (same bucket: the smaller uid).
 *
 * Ranks (rule 5) count the controller's related pods — pods of the controllers that share its own
 * controller — per node; a controller without an owner has none, so every rank is 0.
 */
import type { KubeObject } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import { isPodActive, isPodReady, maxContainerRestarts, podReadyTime, podSpec, podStatus } from './pod-state.js';

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/** The annotation of the pod deletion cost (`controller.kubernetes.io/pod-deletion-cost` under k8s.io). */
export const podDeletionCostAnnotation = (naming: Naming): string => `controller.${naming.legacyDomain}/pod-deletion-cost`;

/** kube's GetDeletionCostFromPodAnnotations: an int32 in decimal, else 0. */
export function deletionCost(pod: KubeObject, annotation: string): number {
  const v = pod.metadata.annotations?.[annotation];
  if (v === undefined || !/^[+-]?\d+$/.test(v.trim()) || v.trim() !== v) return 0;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : 0;
}

/** int64(log2(nanoseconds since)) of kube's logarithmicRankDiff; -1 for a time not in the past. */
function logBucket(t: number, now: number): number {
  const ns = (now - t) * 1e6;
  return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
}

const timeOf = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
};

/** kube's afterOrZero: is `a` after `b`, an unknown time counting as after any known one. */
function afterOrZero(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === undefined;
  return a > b;
}

/** Negative when `a` is less valuable (deleted first), positive when `b` is, 0 when they tie. */
function compare(a: KubeObject, ra: number, b: KubeObject, rb: number, now: number, costAnnotation: string): number {
  const na = podSpec(a).nodeName ?? '';
  const nb = podSpec(b).nodeName ?? '';
  if (na !== nb && (na === '' || nb === '')) return na === '' ? -1 : 1;
  const pa = PHASE_ORDINAL[podStatus(a).phase ?? ''] ?? 0;
  const pb = PHASE_ORDINAL[podStatus(b).phase ?? ''] ?? 0;
  if (pa !== pb) return pa - pb;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  const ca = deletionCost(a, costAnnotation);
  const cb = deletionCost(b, costAnnotation);
  if (ca !== cb) return ca - cb;
  if (ra !== rb) return rb - ra;
  const uidOrder = (): number => ((a.metadata.uid ?? '') < (b.metadata.uid ?? '') ? -1 : (a.metadata.uid ?? '') > (b.metadata.uid ?? '') ? 1 : 0);
  const byTime = (ta: number | undefined, tb: number | undefined): number => {
    if (ta === undefined || tb === undefined) return afterOrZero(ta, tb) ? -1 : 1;
    const diff = logBucket(ta, now) - logBucket(tb, now);
    return diff === 0 ? uidOrder() : diff;
  };
  if (readyA && readyB) {
    const ta = podReadyTime(a);
    const tb = podReadyTime(b);
    if (ta !== tb) return byTime(ta, tb);
  }
  const rsa = maxContainerRestarts(a);
  const rsb = maxContainerRestarts(b);
  if (rsa !== rsb) return rsb - rsa;
  const cta = timeOf(a.metadata.creationTimestamp);
  const ctb = timeOf(b.metadata.creationTimestamp);
  if (cta !== ctb) return byTime(cta, ctb);
  return 0;
}

/**
 * The `count` pods of `pods` to delete first (all of them when `count` is at least their number), ranked
 * against `relatedPods` as described above; `now` is the reference for the log2 buckets.
 */
export function podsToDelete(pods: readonly KubeObject[], relatedPods: readonly KubeObject[], count: number, now: number, naming: Naming): KubeObject[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const p of relatedPods) {
    if (!isPodActive(p)) continue;
    const node = podSpec(p).nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const costAnnotation = podDeletionCostAnnotation(naming);
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(podSpec(pod).nodeName ?? '') ?? 0 }));
  ranked.sort((x, y) => compare(x.pod, x.rank, y.pod, y.rank, now, costAnnotation));
  return ranked.slice(0, count).map((r) => r.pod);
}
