/**
 * Options and results of the registry's verbs, already parsed from the query or body by the handlers
 * (query booleans, DeleteOptions decoding and `dryRun=All` checks happen there).
 */
import type { KubeObject } from '../../api/object.js';
import type { FieldSelector, LabelSelector } from '../../selectors/selector.js';
import type { Requester } from '../../authorization/access.js';

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
}

export interface UpdateOptions extends WriteOptions {
  /**
   * '' for the main resource, `status` for the status sub-resource. `scale`: a main-resource update made
   * through the scale sub-resource (managedFields record it under sub-resource `scale`).
   */
  readonly subresource?: '' | 'status' | 'scale';
}

export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export interface DeleteOptions {
  readonly dryRun?: boolean;
  readonly preconditions?: Preconditions;
  /** Accepted; the kinds of this server delete at once (no graceful deletion strategy yet). */
  readonly gracePeriodSeconds?: number;
  /** `Orphan`, `Background` or `Foreground`; validated. No garbage collector runs yet, so no GC finalizers. */
  readonly propagationPolicy?: string;
  /** Deprecated; with `false`, a delete that only marks the object answers 202 (as kube). */
  readonly orphanDependents?: boolean;
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
