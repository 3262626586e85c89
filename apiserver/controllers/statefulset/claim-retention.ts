/**
 * The PersistentVolumeClaim retention policy (`spec.persistentVolumeClaimRetentionPolicy`, StatefulSetAutoDeletePVC,
 * beta and on in v1.32) as owner references on the claims, after kube's stateful_set_utils.go: the
 * controller never deletes a claim itself; the garbage collector does once its owner is gone.
 *
 * | whenScaled | whenDeleted | claim of a pod in range | claim of a scaled-down (condemned) pod |
 * |---|---|---|---|
 * | Retain | Retain | no reference to set or pod | same |
 * | Retain | Delete | controller reference to the set | same |
 * | Delete | Retain | none | controller reference to the pod |
 * | Delete | Delete | controller reference to the set | controller reference to the pod (the set's removed) |
 *
 * References are controller references (controller and blockOwnerDeletion true), as kube 1.32 writes them;
 * a plain (non-controller) reference to the set or pod is rewritten. A claim is left alone when it names a set
 * or pod of the same name with another uid (stale: a previous incarnation; the collector decides), and, under
 * a Delete policy, when another controller owns it (only our own references are then removed). A pod whose
 * claim is stale is not created until the claim is gone (`claimIsStale`).
 */
import type { KubeObject, OwnerReference } from '../../api/object.js';
import { isObject } from '../../api/json.js';
import { inOrdinalRange, specOf, STATEFUL_SET_API_VERSION, STATEFUL_SET_KIND } from './stateful-pods.js';

export interface RetentionPolicy {
  readonly whenDeleted: 'Retain' | 'Delete';
  readonly whenScaled: 'Retain' | 'Delete';
}

interface Gvk {
  readonly apiVersion: string;
  readonly kind: string;
}
const SET_GVK: Gvk = { apiVersion: STATEFUL_SET_API_VERSION, kind: STATEFUL_SET_KIND };
const POD_GVK: Gvk = { apiVersion: 'v1', kind: 'Pod' };

export function retentionPolicyOf(set: KubeObject): RetentionPolicy {
  const p = specOf(set).persistentVolumeClaimRetentionPolicy;
  const pick = (v: unknown): 'Retain' | 'Delete' => (v === 'Delete' ? 'Delete' : 'Retain');
  return isObject(p) ? { whenDeleted: pick(p.whenDeleted), whenScaled: pick(p.whenScaled) } : { whenDeleted: 'Retain', whenScaled: 'Retain' };
}

const refsOf = (claim: KubeObject): readonly OwnerReference[] => claim.metadata.ownerReferences ?? [];
const uidOf = (obj: KubeObject): string => obj.metadata.uid ?? '';
/** matchesRef: the reference names this object's kind and name (whatever its uid). */
const matchesRef = (ref: OwnerReference, obj: KubeObject, gvk: Gvk): boolean =>
  ref.apiVersion === gvk.apiVersion && ref.kind === gvk.kind && ref.name === obj.metadata.name;
const hasOwnerRef = (claim: KubeObject, owner: KubeObject): boolean => refsOf(claim).some((r) => r.uid === uidOf(owner));

/** hasStaleOwnerRef: the first reference naming the object has another uid (a pod not created yet has none). */
export function hasStaleOwnerRef(claim: KubeObject, obj: KubeObject, gvk: Gvk = POD_GVK): boolean {
  const ref = refsOf(claim).find((r) => matchesRef(r, obj, gvk));
  return ref !== undefined && ref.uid !== uidOf(obj);
}

/** hasUnexpectedController: under a Delete policy, another controller (or a stale set/pod) owns the claim. */
function hasUnexpectedController(claim: KubeObject, set: KubeObject, pod: KubeObject): boolean {
  const { whenScaled, whenDeleted } = retentionPolicyOf(set);
  if (whenScaled === 'Retain' && whenDeleted === 'Retain') return false;
  for (const ref of refsOf(claim)) {
    if (matchesRef(ref, set, SET_GVK)) {
      if (ref.uid !== uidOf(set)) return true;
      continue;
    }
    if (matchesRef(ref, pod, POD_GVK)) {
      if (ref.uid !== uidOf(pod)) return true;
      continue;
    }
    if (ref.controller === true) return true;
  }
  return false;
}

const hasNonControllerOwner = (claim: KubeObject, set: KubeObject, pod: KubeObject): boolean =>
  refsOf(claim).some((r) => (r.uid === uidOf(set) || r.uid === uidOf(pod)) && r.controller !== true);

/** What the policy wants for this claim: a reference to the set, to the pod. */
function wanted(set: KubeObject, pod: KubeObject): { set: boolean; pod: boolean } {
  const { whenScaled, whenDeleted } = retentionPolicyOf(set);
  const scaledDown = !inOrdinalRange(pod, set);
  return { set: whenDeleted === 'Delete' && !(whenScaled === 'Delete' && scaledDown), pod: whenScaled === 'Delete' && scaledDown };
}

/** isClaimOwnerUpToDate: whether the claim's references already follow the policy (or must not be touched). */
export function claimMatchesPolicy(claim: KubeObject, set: KubeObject, pod: KubeObject): boolean {
  if (hasStaleOwnerRef(claim, set, SET_GVK) || hasStaleOwnerRef(claim, pod, POD_GVK)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const want = wanted(set, pod);
  return hasOwnerRef(claim, set) === want.set && hasOwnerRef(claim, pod) === want.pod;
}

const controllerRef = (owner: KubeObject, gvk: Gvk): OwnerReference => ({
  apiVersion: gvk.apiVersion, kind: gvk.kind, name: owner.metadata.name ?? '', uid: uidOf(owner), controller: true, blockOwnerDeletion: true,
});

/** updateClaimOwnerRefForSetAndPod: our references scrubbed, then the policy's added (the claim is changed). */
export function applyPolicy(claim: KubeObject, set: KubeObject, pod: KubeObject): void {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const refs = refsOf(claim).filter((r) => !matchesRef(r, set, SET_GVK) && !matchesRef(r, pod, POD_GVK));
  if (!unexpected) {
    const want = wanted(set, pod);
    if (want.set) refs.push(controllerRef(set, SET_GVK));
    if (want.pod) refs.push(controllerRef(pod, POD_GVK));
  }
  if (refs.length > 0) claim.metadata.ownerReferences = refs;
  else delete claim.metadata.ownerReferences;
}
