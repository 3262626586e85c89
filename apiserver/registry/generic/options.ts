/**
 * Options and results of the registry's verbs, already parsed from the query or body by the handlers
 * (query booleans, DeleteOptions decoding and `dryRun=All` checks happen there).
 */
import type { KubeObject } from '../../api/object.js';
import type { FieldSelector, LabelSelector } from '../../selectors/selector.js';
import type { Requester } from '../../authorization/access.js';
import type { GenericSubresource } from '../kind-strategy.js';

export interface GetOptions {
  /** '' (default): most recent; '0': any; N: not older than N (504 when the store is behind N). */
  readonly resourceVersion?: string;
}

export interface ListOptions {
  readonly labelSelector?: LabelSelector;
  readonly fieldSelector?: FieldSelector;
  /** Page size; 0 or unset: everything. */
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  /** `Exact` or `NotOlderThan` (requires resourceVersion). */
  readonly resourceVersionMatch?: string;
}

export interface WriteOptions {
  readonly dryRun?: boolean;
  /** The managedFields manager: `fieldManager`, else derived from the user agent by the handler. */
  readonly fieldManager?: string;
  /** Internal: server-side apply already set `metadata.managedFields`, so no Update entry is tracked. */
  readonly applied?: boolean;
  /** The writer (from the request), for the kind's `admit` hook; undefined for the server's own writes. */
  readonly requester?: Requester | undefined;
  /** The admission of this write (the request's chain); absent for the server's own writes. */
  readonly admission?: WriteAdmission | undefined;
  /**
   * The request's signal (deadline, client gone, shutdown): checked right before each store write and
   * between retries, so a request already answered 504 never writes afterwards.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The admission chain as the registry calls it, the request's attributes already bound (the handler builds
 * it, apiserver/admission/). The operation follows from the objects: CREATE (`obj` only), UPDATE (both),
 * DELETE (`old` only).
 *
 * create:  mutate(obj) -> the kind's pipeline (defaults, prepare, validate) -> validate(obj) -> store
 * update:  (on every attempt of the update loop) mutate(obj, current) -> pipeline -> validate(obj, current) -> store
 * delete:  mutate(undefined, current) -> validate(undefined, current) -> delete (or mark)
 */
export interface WriteAdmission {
  /** Mutating phase: may change `obj`. Throws a StatusError to deny. */
  mutate(obj: KubeObject | undefined, old: KubeObject | undefined): Promise<void>;
  /** Validating phase: changes nothing. Throws a StatusError to deny. */
  validate(obj: KubeObject | undefined, old: KubeObject | undefined): Promise<void>;
}

export interface UpdateOptions extends WriteOptions {
  /**
   * '' for the main resource, `status` (or `approval`) for those sub-resources (KindStrategy.subresources).
   * `scale`: a main-resource update made through the scale sub-resource (managedFields record it under
   * sub-resource `scale`).
   */
  readonly subresource?: '' | GenericSubresource | 'scale';
}

export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface DeleteOptions {
  readonly dryRun?: boolean;
  readonly preconditions?: Preconditions;
  /** The grace period asked for; only kinds with `gracefulDeletion` (Pods) wait (generic/graceful-delete.ts). */
  readonly gracePeriodSeconds?: number;
  /** `Orphan`, `Background` or `Foreground`: the garbage collector finalizers a delete leaves (generic/delete-propagation.ts). */
  readonly propagationPolicy?: string;
  /** Deprecated; with `false`, a delete that only marks the object answers 202 (as kube). */
  readonly orphanDependents?: boolean;
  /** See WriteOptions.admission. */
  readonly admission?: WriteAdmission | undefined;
  /** See WriteOptions.signal. */
  readonly signal?: AbortSignal | undefined;
}

export interface WriteResult {
  readonly object: KubeObject;
  /** For `Warning: 299 - "..."` headers. */
  readonly warnings: readonly string[];
}

export interface UpdateResult extends WriteResult {
  /** True when a PUT (allowCreateOnUpdate) created the object: answer 201. */
  readonly created: boolean;
}

/** `kind: Status` with `status: Success`, as kube answers a delete of kinds that do not return the object. */
export interface SuccessStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Record<string, never>;
  readonly status: 'Success';
  readonly details: { readonly name: string; readonly group?: string; readonly kind: string; readonly uid: string };
}

export interface DeleteResult {
  /** The deleted object (deleteReturnsObject), a Success Status, or the object marked for deletion. */
  readonly object: KubeObject | SuccessStatus;
  /** False when the object only got a deletionTimestamp (finalizers pending) or was already being deleted. */
  readonly deleted: boolean;
  /** 200, or 202 when not deleted and `orphanDependents` was false (kube's rule). */
  readonly code: 200 | 202;
}
