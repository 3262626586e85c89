/**
 * The `finalize` step of a namespace: removes one entry of `spec.finalizers`, and removes the namespace
 * from the store once no finalizer of either kind is left. A system write (the main endpoint never changes
 * `spec.finalizers`), compare-and-swapped like every write.
 */
import { isStorageError } from '../../../storage/errors.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { decodeObject, encodeObject } from '../../registry/generic/object-codec.js';

/** Returns true when the namespace is gone afterwards. */
export async function finalizeNamespace(namespaces: GenericRegistry, name: string, finalizer: string): Promise<boolean> {
  const { store, keys } = namespaces.context;
  const key = keys.objectKey('', name);
  let kv = (await store.get(key)).kv;
  for (;;) {
    if (kv === undefined) return true;
    const ns = decodeObject(kv);
    const spec = (ns.spec ?? {}) as { finalizers?: string[] };
    const remaining = (spec.finalizers ?? []).filter((f) => f !== finalizer);
    try {
      if (remaining.length === 0 && (ns.metadata.finalizers ?? []).length === 0) {
        await store.delete(key, kv.modRevision);
        return true;
      }
      if (remaining.length === (spec.finalizers ?? []).length) return false;
      ns.spec = { ...spec, finalizers: remaining };
      await store.update(key, encodeObject(ns), kv.modRevision);
      return false;
    } catch (err) {
      if (isStorageError(err, 'Conflict')) {
        kv = err.current;
        continue;
      }
      if (isStorageError(err, 'NotFound')) return true;
      throw err;
    }
  }
}
