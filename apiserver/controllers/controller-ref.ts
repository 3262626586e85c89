/**
 * Controller references, after kube's ControllerRefManager: which controller owns an object (the one
 * ownerReference with `controller: true`), how a controller adopts orphans its selector matches, and how it
 * releases objects it owns that its selector no longer matches.
 *
 * Edge cases, as kube:
 * - an object owned by another controller is never touched;
 * - nothing is adopted by an owner being deleted, nor is an object being deleted adopted; an owner being
 *   deleted keeps what it owns even when its selector no longer matches (the garbage collector decides);
 * - adoption is confirmed once per claim by `canAdopt` (the owner read fresh from the store still has the
 *   uid the caller saw and no deletionTimestamp), so a stale cache never makes a deleted owner adopt;
 * - adoption and release are patches that first check the object is still the one seen (its uid), and do
 *   nothing when it changed owner meanwhile; an object gone (404) is simply not claimed.
 */
import type { KubeObject, OwnerReference } from '../api/object.js';
import { isStatusError } from '../errors/status-error.js';
import { conflict } from '../errors/constructors.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import { CONTROLLER_FIELD_MANAGER } from './field-manager.js';

export type { OwnerReference };

/** The controller reference of `obj`, if any. */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** A controller reference to `owner` (controller and blockOwnerDeletion set, as kube's controllers write them). */
export function controllerRefTo(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** An informer index function: the uid of the object's controller. */
export const controllerUidIndex = (obj: KubeObject): readonly string[] => {
  const ref = controllerRefOf(obj);
  return ref === undefined ? [] : [ref.uid];
};

export interface ClaimOptions {
  /** The registry of the claimed objects (pods, revisions ...). */
  readonly registry: GenericRegistry;
  readonly owner: KubeObject;
  readonly ownerType: { readonly apiVersion: string; readonly kind: string };
  /** Whether the owner's selector matches the object. */
  matches(obj: KubeObject): boolean;
  /** The objects to consider: usually every object of the owner's namespace, from an informer. */
  readonly candidates: readonly KubeObject[];
  /** The fresh check before the first adoption (see the file comment). */
  canAdopt(): Promise<boolean>;
  readonly signal?: AbortSignal;
}

/**
 * The objects `owner` controls after adopting and releasing as described above. Returned objects are the
 * candidates (shared, unchanged) or, for adopted ones, the patched objects.
 */
export async function claimObjects(o: ClaimOptions): Promise<KubeObject[]> {
  const ownerUid = o.owner.metadata.uid ?? '';
  const ownerDeleting = o.owner.metadata.deletionTimestamp !== undefined;
  const namespace = o.owner.metadata.namespace ?? '';
  const claimed: KubeObject[] = [];
  let adoptable: Promise<boolean> | undefined;

  for (const obj of o.candidates) {
    if ((obj.metadata.namespace ?? '') !== namespace) continue;
    const ref = controllerRefOf(obj);
    if (ref !== undefined) {
      if (ref.uid !== ownerUid) continue;
      if (o.matches(obj) || ownerDeleting) {
        claimed.push(obj);
        continue;
      }
      await release(o, obj).catch(ignoreGone);
      continue;
    }
    if (ownerDeleting || !o.matches(obj) || obj.metadata.deletionTimestamp !== undefined) continue;
    adoptable ??= o.canAdopt();
    if (!(await adoptable)) continue;
    const adopted = await adopt(o, obj).catch(ignoreGone);
    if (adopted !== undefined) claimed.push(adopted);
  }
  return claimed;
}

/** 404 (gone) and 409 (changed owner or uid meanwhile) mean "not ours": anything else is a real failure. */
function ignoreGone(err: unknown): undefined {
  if (isStatusError(err) && (err.code === 404 || err.code === 409)) return undefined;
  throw err;
}

async function adopt(o: ClaimOptions, obj: KubeObject): Promise<KubeObject> {
  const ref = controllerRefTo(o.owner, o.ownerType.apiVersion, o.ownerType.kind);
  const { registry } = o;
  const result = await registry.patch(
    obj.metadata.namespace ?? '',
    obj.metadata.name ?? '',
    (current) => {
      if (current.metadata.uid !== obj.metadata.uid || controllerRefOf(current) !== undefined || current.metadata.deletionTimestamp !== undefined) {
        throw conflict(registry.context.gr, obj.metadata.name ?? '', 'the object changed before it could be adopted');
      }
      const refs = (current.metadata.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
      return { ...current, metadata: { ...current.metadata, ownerReferences: [...refs, ref] } };
    },
    { fieldManager: CONTROLLER_FIELD_MANAGER, ...(o.signal === undefined ? {} : { signal: o.signal }) },
  );
  return result.object;
}

async function release(o: ClaimOptions, obj: KubeObject): Promise<void> {
  const uid = o.owner.metadata.uid ?? '';
  const { registry } = o;
  await registry.patch(
    obj.metadata.namespace ?? '',
    obj.metadata.name ?? '',
    (current) => {
      if (current.metadata.uid !== obj.metadata.uid) throw conflict(registry.context.gr, obj.metadata.name ?? '', 'the object changed before it could be released');
      const refs = (current.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      const metadata = { ...current.metadata };
      if (refs.length > 0) metadata.ownerReferences = refs;
      else delete metadata.ownerReferences;
      return { ...current, metadata };
    },
    { fieldManager: CONTROLLER_FIELD_MANAGER, ...(o.signal === undefined ? {} : { signal: o.signal }) },
  );
}
