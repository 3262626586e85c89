/** Checks shared by the write verbs: namespace and name agreement, uid preconditions. */
import type { KubeObject } from '../../api/object.js';
import { badRequest, conflict } from '../../errors/constructors.js';
import type { RegistryContext } from './registry-context.js';

/**
 * The object's namespace must be the request's: an empty one is filled in, cluster-scoped kinds drop it,
 * anything else is 400 (kube's EnsureObjectNamespaceMatchesRequestNamespace).
 */
export function ensureNamespace(ctx: RegistryContext, obj: KubeObject, namespace: string): void {
  const want = ctx.strategy.namespaced ? namespace : '';
  const have = obj.metadata.namespace ?? '';
  if (have === want) return;
  if (want === '') delete obj.metadata.namespace;
  else if (have === '') obj.metadata.namespace = want;
  else throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/** An empty body name takes the URL's; a different one is 400 (kube's checkName). */
export function ensureName(obj: KubeObject, name: string): void {
  const have = obj.metadata.name ?? '';
  if (have === '') obj.metadata.name = name;
  else if (have !== name) throw badRequest(`the name of the object (${have}) does not match the name on the URL (${name})`);
}

/** 409 when the caller named a uid other than the stored object's. */
export function checkUid(ctx: RegistryContext, name: string, wanted: string | undefined, current: KubeObject): void {
  if (wanted === undefined || wanted === '' || wanted === current.metadata.uid) return;
  throw conflict(ctx.gr, name, `Precondition failed: UID in precondition: ${wanted}, UID in object meta: ${current.metadata.uid ?? ''}`);
}

/**
 * ObjectMeta's maps and lists are `omitempty` in kube: an empty `labels`/`annotations` map or an empty
 * `finalizers`/`ownerReferences` list is the same as none and is never stored or returned (removing the
 * last annotation with a merge patch leaves no `annotations: {}`). `managedFields: []` is left alone: on
 * update it means "reset".
 */
export function omitEmptyMetadata(obj: KubeObject): void {
  const meta = obj.metadata as Record<string, unknown>;
  for (const key of ['labels', 'annotations'] as const) {
    const v = meta[key];
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) delete meta[key];
  }
  for (const key of ['finalizers', 'ownerReferences'] as const) {
    const v = meta[key];
    if (Array.isArray(v) && v.length === 0) delete meta[key];
  }
}
