/**
 * The generic registry: the one store of every kind, parameterised by the kind's strategy. Handlers call
 * these verbs with parsed parameters; every failure is a StatusError with Kubernetes' reason and message
 * (storage errors are translated here, once). Objects returned by get and list may be the watch cache's
 * shared objects and must never be mutated (invariant 8); those of the write verbs are the caller's.
 */
import type { KubeList, KubeObject } from '../../api/object.js';
import { deleteCollection } from './delete-collection.js';
import { deleteObject } from './delete.js';
import { getObject } from './get.js';
import { listObjects } from './list.js';
import { createObject } from './create.js';
import type { DeleteOptions, DeleteResult, GetOptions, ListOptions, UpdateOptions, UpdateResult, WriteOptions, WriteResult } from './options.js';
import { registryContext, type GenericRegistryConfig, type RegistryContext } from './registry-context.js';
import { patchObject, updateObject } from './update.js';
import { watchObjects, type WatchRequest } from './watch.js';
import type { CacheWatcher } from '../../../storage/cache/types.js';

export interface GenericRegistry {
  readonly context: RegistryContext;
  /** 404 when missing; see GetOptions for resourceVersion. */
  get(namespace: string, name: string, opts?: GetOptions): Promise<KubeObject>;
  /** `namespace` '' lists every namespace of a namespaced kind. */
  list(namespace: string, opts?: ListOptions): Promise<KubeList>;
  /** A running watch (410 / 504 thrown before it starts); see watch.ts for where it starts. */
  watch(namespace: string, req: WatchRequest): Promise<CacheWatcher<KubeObject>>;
  /** 409 AlreadyExists, 422 Invalid, 400 namespace mismatch. The object passed in is consumed (changed). */
  create(namespace: string, obj: KubeObject, opts?: WriteOptions): Promise<WriteResult>;
  /** PUT; the object passed in is not changed. */
  update(namespace: string, name: string, obj: KubeObject, opts?: UpdateOptions): Promise<UpdateResult>;
  /** PATCH through `apply` (JSON patch, merge patch ... of the handler), retried like update. */
  patch(namespace: string, name: string, apply: (current: KubeObject) => KubeObject, opts?: UpdateOptions): Promise<UpdateResult>;
  delete(namespace: string, name: string, opts?: DeleteOptions): Promise<DeleteResult>;
  deleteCollection(namespace: string, listOpts?: ListOptions, deleteOpts?: DeleteOptions): Promise<KubeList>;
}

export function createGenericRegistry(config: GenericRegistryConfig): GenericRegistry {
  return genericRegistryOver(registryContext(config));
}

/**
 * The verbs over a ready context. Tracing serves a sampled request through a copy of its resource's context
 * whose store opens a span per call under the request's span (apiserver/tracing/traced-resource.ts).
 */
export function genericRegistryOver(ctx: RegistryContext): GenericRegistry {
  return Object.freeze({
    context: ctx,
    get: (ns: string, name: string, opts?: GetOptions) => getObject(ctx, ns, name, opts),
    list: (ns: string, opts?: ListOptions) => listObjects(ctx, ns, opts),
    watch: (ns: string, req: WatchRequest) => watchObjects(ctx, ns, req),
    create: (ns: string, obj: KubeObject, opts?: WriteOptions) => createObject(ctx, ns, obj, opts),
    update: (ns: string, name: string, obj: KubeObject, opts?: UpdateOptions) => updateObject(ctx, ns, name, obj, opts),
    patch: (ns: string, name: string, apply: (current: KubeObject) => KubeObject, opts?: UpdateOptions) => patchObject(ctx, ns, name, apply, opts),
    delete: (ns: string, name: string, opts?: DeleteOptions) => deleteObject(ctx, ns, name, opts),
    deleteCollection: (ns: string, listOpts?: ListOptions, deleteOpts?: DeleteOptions) => deleteCollection(ctx, ns, listOpts, deleteOpts),
  });
}
