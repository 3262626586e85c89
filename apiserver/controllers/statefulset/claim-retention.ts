/**
 * The PersistentVolumeClaim retention policy (`spec.persistentVolumeClaimRetentionPolicy`, StatefulSetAutoDeletePVC,
 * beta and on in v1.32) as owner references on the claims, after kube's stateful_set_utils.go: the
 * controller never deletes a claim itself; the garbage collector does once every owner is gone.
 *
 * | whenScaled | whenDeleted | claim of a pod in range | claim of a scaled-down (condemned) pod |
 * |---|---|---|---|
 * | Retain | Retain | no reference to set or pod | same |
 * | Retain | Delete | reference to the set | same |
 * | Delete | Retain | none | reference to the pod |
 * | Delete | Delete | reference to the set | reference to the pod (the set's removed) |
 *
 * References are plain (not controller) owner references, as kube writes them. A claim that names a set or
 * pod of the same name with another uid (stale: a previous incarnation) is not touched until the collector
 * is done with it, and a pod whose claim is stale is not created yet (`claimIsStale`).
 */
import type { KubeObject, OwnerReference } from '../../api/object.js';
import { isObject } from '../../api/json.js';
import { inOrdinalRange, specOf, STATEFUL_SET_API_VERSION, STATEFUL_SET_KIND } from './stateful-pods.js';

export interface RetentionPolicy {
  readonly whenDeleted: 'Retain' | 'Delete';
  readonly whenScaled: 'Retain' | 'Delete';
}

export function retentionPolicyOf(set: KubeObject): RetentionPolicy {
  const p = specOf(set).persistentVolumeClaimRetentionPolicy;
  const pick = (v: unknown): 'Retain' | 'Delete' => (v === 'Delete' ? 'Delete' : 'Retain');
  return isObject(p) ? { whenDeleted: pick(p.whenDeleted), whenScaled: pick(p.whenScaled) } : { whenDeleted: 'Retain', whenScaled: 'Retain' };
}

const hasOwnerRef = (target: KubeObject, owner: KubeObject): boolean =>
  (target.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid);

/** A reference to an owner of the same name but another uid (or to a pod not created yet). */
export const hasStaleOwnerRef = (target: KubeObject, owner: KubeObject, kind: string): boolean =>
  (target.metadata.ownerReferences ?? []).some((r) => r.kind === kind && r.name === owner.metadata.name && r.uid !== (owner.metadata.uid ?? ''));

/** claimOwnerMatchesSetAndPod: whether the claim's references already follow the policy. */
export function claimMatchesPolicy(claim: KubeObject, set: KubeObject, pod: KubeObject): boolean {
  if (hasStaleOwnerRef(claim, set, STATEFUL_SET_KIND) || hasStaleOwnerRef(claim, pod, 'Pod')) return true;
  const { whenScaled, whenDeleted } = retentionPolicyOf(set);
  const scaledDown = !inOrdinalRange(pod, set);
  const wantSet = whenDeleted === 'Delete' && !(whenScaled === 'Delete' && scaledDown);
  const wantPod = whenScaled === 'Delete' && scaledDown;
  return hasOwnerRef(claim, set) === wantSet && hasOwnerRef(claim, pod) === wantPod;
}

/** updateClaimOwnerRefForSetAndPod: the claim's owner references per the policy (the claim is changed). */
export function applyPolicy(claim: KubeObject, set: KubeObject, pod: KubeObject): void {
  const { whenScaled, whenDeleted } = retentionPolicyOf(set);
  const scaledDown = !inOrdinalRange(pod, set);
  const wantSet = whenDeleted === 'Delete' && !(whenScaled === 'Delete' && scaledDown);
  const wantPod = whenScaled === 'Delete' && scaledDown;
  let refs: OwnerReference[] = [...(claim.metadata.ownerReferences ?? [])];
  const setRef = (owner: KubeObject, apiVersion: string, kind: string, want: boolean): void => {
    const has = refs.some((r) => r.uid === owner.metadata.uid);
    if (want && !has) refs.push({ apiVersion, kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '' });
    if (!want && has) refs = refs.filter((r) => r.uid !== owner.metadata.uid);
  };
  setRef(set, STATEFUL_SET_API_VERSION, STATEFUL_SET_KIND, wantSet);
  setRef(pod, 'v1', 'Pod', wantPod);
  if (refs.length > 0) claim.metadata.ownerReferences = refs;
  else delete claim.metadata.ownerReferences;
}
