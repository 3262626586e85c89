/**
 * kube's EndpointSliceTracker: the generation of every slice the controller wrote, per Service, so that
 *
 * - a sync never works from an informer that has not yet seen the controller's own writes (`stale`: a slice
 *   written is missing or older in the informer, or a slice deleted is still there) — it is retried
 *   instead, which is what keeps a second pass from creating the same slices again;
 * - the controller's own writes coming back through the informer do not queue the Service again
 *   (`shouldSync` is false for a generation it wrote), while anybody else's change to a slice does.
 */
import type { KubeObject } from '../../api/object.js';

const DELETION_EXPECTED = -1;

export interface SliceTracker {
  has(serviceKey: string, slice: KubeObject): boolean;
  /** True unless the slice is tracked at exactly this generation. */
  shouldSync(serviceKey: string, slice: KubeObject): boolean;
  stale(serviceKey: string, slices: readonly KubeObject[]): boolean;
  /** Records a slice the controller created or updated. */
  update(serviceKey: string, slice: KubeObject): void;
  expectDeletion(serviceKey: string, slice: KubeObject): void;
  /** Forgets a deleted slice; false when its deletion was not expected (someone else deleted it). */
  handleDeletion(serviceKey: string, slice: KubeObject): boolean;
  deleteService(serviceKey: string): void;
}

export function createSliceTracker(): SliceTracker {
  const byService = new Map<string, Map<string, number>>();
  const uid = (s: KubeObject): string => s.metadata.uid ?? '';
  const gen = (s: KubeObject): number => s.metadata.generation ?? 0;
  const of = (key: string): Map<string, number> => {
    let m = byService.get(key);
    if (m === undefined) byService.set(key, (m = new Map()));
    return m;
  };
  return {
    has: (key, slice) => byService.get(key)?.has(uid(slice)) ?? false,
    shouldSync(key, slice) {
      const g = byService.get(key)?.get(uid(slice));
      return g === undefined || g !== gen(slice);
    },
    stale(key, slices) {
      const tracked = byService.get(key);
      if (tracked === undefined) return false;
      const provided = new Set<string>();
      for (const s of slices) {
        provided.add(uid(s));
        const g = tracked.get(uid(s));
        if (g !== undefined && (g === DELETION_EXPECTED || g > gen(s))) return true;
      }
      for (const [u, g] of tracked) if (g !== DELETION_EXPECTED && !provided.has(u)) return true;
      return false;
    },
    update: (key, slice) => void of(key).set(uid(slice), gen(slice)),
    expectDeletion: (key, slice) => void of(key).set(uid(slice), DELETION_EXPECTED),
    handleDeletion(key, slice) {
      const tracked = byService.get(key);
      if (tracked === undefined) return true;
      const g = tracked.get(uid(slice));
      tracked.delete(uid(slice));
      return g === undefined || g === DELETION_EXPECTED;
    },
    deleteService: (key) => void byService.delete(key),
  };
}
