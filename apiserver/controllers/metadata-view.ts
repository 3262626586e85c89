/**
 * What a metadata informer keeps of an object (kube's garbage collector watches PartialObjectMetadata, of
 * which it reads the identity, owners, finalizers and deletion): apiVersion, kind, and of the metadata the
 * name, namespace, uid, resourceVersion, deletionTimestamp, ownerReferences and finalizers. Every view has
 * all of these members, some undefined, so all share one shape (a rest-spread copy of whatever metadata an
 * object has makes as many shapes as there are metadata layouts). The arrays are shared with `obj`,
 * which must therefore not change afterwards (the watch cache's objects never do).
 */
import type { KubeObject } from '../api/object.js';

export function metadataView(obj: KubeObject): KubeObject {
  const m = obj.metadata;
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      deletionTimestamp: m.deletionTimestamp,
      ownerReferences: m.ownerReferences,
      finalizers: m.finalizers,
    },
  };
}
