/**
 * The shapes every API object shares. Objects are plain JSON values; kinds add their own fields (`spec`,
 * `status`, `data` ...) through their schemas, not through TypeScript types.
 */

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  readonly manager?: string;
  readonly operation?: 'Apply' | 'Update';
  readonly apiVersion?: string;
  readonly time?: string;
  readonly fieldsType?: 'FieldsV1';
  readonly fieldsV1?: Record<string, unknown>;
  readonly subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

export interface KubeList<T = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** The API verbs of resources (discovery lists them; authorization checks them). */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** `apiVersion` of a group/version: `v1` for the core group, else `group/version`. */
export const apiVersionOf = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);
