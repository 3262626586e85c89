/**
 * What admission plugins see of a request (Kubernetes' `admission.Attributes`): the operation, the object
 * as it is about to be stored and the object as it is stored now, who asks, which resource and kind, the
 * options of the verb, and whether it is a dry run. Plugins add warnings (answered as `Warning` headers)
 * and audit annotations (kept with the request for the audit log).
 *
 * Objects: CREATE has `object` only, UPDATE both, DELETE `oldObject` only; CONNECT-like sub-resources
 * (`serviceaccounts/<name>/token`) are CREATE of the sub-resource's own kind with `object` the request
 * body. Mutating plugins may change `object` in place; validating plugins never change anything.
 */
import type { KubeObject } from '../api/object.js';
import type { UserInfo } from '../auth/user-info.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  /** The new object (CREATE, UPDATE, CONNECT); undefined for DELETE. Mutating plugins may change it. */
  readonly object: KubeObject | undefined;
  /** The current object (UPDATE, DELETE); undefined otherwise. Never changed. */
  readonly oldObject: KubeObject | undefined;
  /** The object's name; '' for a create with only `generateName` (named later, as in Kubernetes). */
  readonly name: string;
  /** '' for cluster-scoped resources. */
  readonly namespace: string;
  readonly resource: GroupVersionResource;
  /** '' for the main resource; `status`, `scale`, `token` ... */
  readonly subresource: string;
  readonly kind: GroupVersionKind;
  /** The verb's options as Kubernetes sends them in an AdmissionRequest (CreateOptions, UpdateOptions, DeleteOptions, PatchOptions). */
  readonly options: Readonly<Record<string, unknown>>;
  readonly dryRun: boolean;
  /** Who the request acts as (after impersonation); undefined for the server's own writes. */
  readonly userInfo: UserInfo | undefined;
  /** A warning for the client (`Warning: 299 - "<text>"`). */
  addWarning(text: string): void;
  /** An audit annotation (`<key>` -> value) of this request; the first value of a key stays. */
  addAuditAnnotation(key: string, value: string): void;
}
