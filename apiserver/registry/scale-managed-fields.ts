/**
 * managedFields across the scale sub-resource for server-side apply of a Scale, as Kubernetes' ScaleHandler
 * moves them: the parent's managers that own its replicas field become owners of the Scale's
 * `spec.replicas` (`toScaleManagedFields`); after the apply, the Scale's managers go back onto the parent
 * (`toParentManagedFields`): a parent manager that lost `spec.replicas` in the Scale loses the replicas
 * field (it was "stolen"), and a Scale manager owning `spec.replicas` that the parent does not know gets
 * the replicas field under the parent's apiVersion with sub-resource `scale`.
 *
 * Updates (PUT and the non-apply patches) need none of this: they run the parent's generic update with
 * sub-resource `scale`, which gives the same ownership. Deviation: an entry moved back keeps the time the
 * apply gave it (Kubernetes looks the time up under the Scale's identity among the parent's entries and
 * usually finds none).
 */
import type { KubeObject, ManagedFieldsEntry } from '../api/object.js';
import { fieldPE, type Path } from './fieldmanager/fieldpath/path-element.js';
import { FieldSet } from './fieldmanager/fieldpath/set.js';
import { decodeManagedFields, encodeManagedFields, ManagedFieldsError, managerId, type Managers } from './fieldmanager/managers.js';
import { pathFields } from './scale-subresource.js';

const SCALE_API_VERSION = 'autoscaling/v1';
const replicasInScale: Path = [fieldPE('spec'), fieldPE('replicas')];

const replicasPathOf = (specReplicasPath: string): Path => pathFields(specReplicasPath).map(fieldPE);

/** The parent's managers, or none when its list does not decode (then nobody owns anything). */
function decodeOrEmpty(entries: unknown): Managers {
  try {
    return decodeManagedFields(entries);
  } catch (err) {
    if (err instanceof ManagedFieldsError) return new Map();
    throw err;
  }
}

/** The Scale's managedFields for the parent's (`parent.metadata.managedFields`). */
export function toScaleManagedFields(parent: KubeObject, specReplicasPath: string): ManagedFieldsEntry[] | undefined {
  const path = replicasPathOf(specReplicasPath);
  const out: Managers = new Map();
  for (const e of decodeOrEmpty(parent.metadata.managedFields).values()) {
    if (!e.set.has(path)) continue;
    const entry = { ...e, apiVersion: SCALE_API_VERSION, set: FieldSet.of(replicasInScale) };
    out.set(managerId(entry), entry);
  }
  return encodeManagedFields(out);
}

/**
 * The parent's managedFields after an apply of the Scale: `parentEntries` are the parent's before it,
 * `scaleEntries` the Scale's after it; `apiVersion` is the parent's.
 */
export function toParentManagedFields(
  parentEntries: unknown,
  scaleEntries: unknown,
  specReplicasPath: string,
  apiVersion: string,
): ManagedFieldsEntry[] | undefined {
  const path = replicasPathOf(specReplicasPath);
  const parent = decodeOrEmpty(parentEntries);
  const scale = decodeOrEmpty(scaleEntries);
  const out: Managers = new Map();
  for (const [id, e] of parent) {
    if (!e.set.has(path)) {
      out.set(id, e);
    } else if (scale.has(id)) {
      // Still owns the Scale's replicas (an applier keeps one identity across versions): unchanged.
      out.set(id, e);
      scale.delete(id);
    } else {
      const rest = e.set.difference(FieldSet.of(path));
      if (!rest.empty()) out.set(id, { ...e, set: rest });
    }
  }
  for (const e of scale.values()) {
    if (!e.set.has(replicasInScale)) continue;
    const entry = { ...e, apiVersion, set: FieldSet.of(path) };
    out.set(managerId(entry), entry);
  }
  return encodeManagedFields(out);
}
