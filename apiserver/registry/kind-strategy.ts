/**
 * What a kind supplies to the generic registry: data (identity, scope, schema, table columns) plus small
 * hooks for what a schema cannot say. One frozen object per kind in `registry/kinds/<group>/<kind>.ts`,
 * declared `satisfies KindStrategy`; shared behaviour is composed by spreading helper objects. The generic
 * registry owns the order in which the hooks run:
 *
 *   create: reset system fields -> namespace match -> defaults (schema) -> prepareForCreate -> validate
 *           (schema, then ObjectMeta, then the kind's `validate`) -> warnings -> canonicalize -> store
 *   update: pin uid/creationTimestamp/deletionTimestamp -> defaults -> prepareForUpdate(new, old) ->
 *           validate + validateUpdate -> warnings -> canonicalize -> store (skipped when unchanged)
 *   status: prepareForStatusUpdate(new, old) (default: keep everything of `old` but `status`) ->
 *           validateStatusUpdate -> store
 *
 * Hooks receive objects they may change in place (fresh copies owned by the request); they never touch
 * objects read from the store or the cache (invariant 8).
 */
import type { KubeObject, Verb } from '../api/object.js';
import type { BearerTokenAuthenticator } from '../auth/authenticator.js';
import type { UserInfo } from '../auth/user-info.js';
import type { Requester } from '../authorization/access.js';
import { NO_OPINION, type Authorizer } from '../authorization/authorizer.js';
import { unlistableRules, type RulesResolver } from '../authorization/rules.js';
import type { Naming } from '../naming/naming.js';
import type { ServiceAccountTokenIssuer } from '../auth/service-account/token-issuer.js';
import type { ConnectSubresource } from './connect-subresource.js';
import type { GenericRegistry } from './generic/generic-registry.js';
import type { ScaleSubresource } from './scale-subresource.js';
import type { Schema } from '../schema/schema.js';
import type { FieldError } from '../validation/field-error.js';
import type { VersionedStorage } from './versioned-storage.js';

/** The sub-resources the generic registry serves with the object's own kind (`KindStrategy.subresources`). */
export type GenericSubresource = 'status' | 'approval';

/** `status` or `approval` for those path segments, else '' (the main resource, or another sub-resource). */
export const genericSubresourceOf = (subresource: string): '' | GenericSubresource =>
  subresource === 'status' || subresource === 'approval' ? subresource : '';

export interface StrategyContext {
  readonly naming: Naming;
  /** The request's namespace ('' for cluster-scoped kinds). */
  readonly namespace: string;
  readonly dryRun: boolean;
  /** '' for the main resource, `status`, `approval` or `scale` for those sub-resources. */
  readonly subresource: string;
  /**
   * The write the hooks run for: `validate` runs for both, so a kind whose create rules differ from its
   * update rules (Event, as Kubernetes' Validate and ValidateUpdate) tells them apart here.
   */
  readonly operation: 'create' | 'update';
  /**
   * Who writes and what decides what they may do (user, authorizer, RBAC rules), for checks that depend on
   * the writer (the RBAC kinds' escalation prevention). Undefined for the server's own writes (bootstrap,
   * controllers), which such checks let through.
   */
  readonly requester?: Requester;
}

/** The OpenAPI actions whose published query parameters a kind may reduce (`KindStrategy.publishedQueryParameters`). */
export type PublishedAction = 'list' | 'namespacedList' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

/** How `metadata.name` is validated. Most kinds: DNS subdomain. Namespace: DNS label. Service: DNS-1035 label. */
export type NameRule = 'dns-subdomain' | 'dns-label' | 'dns-1035-label' | 'path-segment';

export interface TableColumn {
  readonly name: string;
  /** OpenAPI type of the cells: `string`, `integer`, `number`, `boolean`, `date`. */
  readonly type: string;
  /** `name` for the NAME column, `date` for AGE-like ones, else ''. */
  readonly format: string;
  readonly description: string;
  /** 0: always shown; >0 only with `-o wide`. */
  readonly priority: number;
}

export interface TableConvention {
  readonly columns: readonly TableColumn[];
  /** One cell per column, in order. `now` lets AGE cells be computed consistently for a whole list. */
  cells(obj: KubeObject, now: Date): readonly unknown[];
}

export interface KindStrategy {
  /** The API group: '' for the core group, or a full group name. Use `groupPrefix` for groups under the domain. */
  readonly group: string;
  /** For groups under the group domain: `certificates` -> `certificates.<domain>` (wins over `group`). */
  readonly groupPrefix?: string;
  readonly version: string;
  readonly kind: string;
  /** URL name, plural lower-case: `secrets`. */
  readonly resource: string;
  /** Singular lower-case: `secret`. */
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /** Default: all eight verbs. */
  readonly verbs?: readonly Verb[];
  /**
   * Sub-resources served through the generic verbs (get, update, patch): `status`, and `approval`
   * (CertificateSigningRequest). Writes to either go through prepareForStatusUpdate /
   * validateStatusUpdate with `ctx.subresource` naming which, and are recorded in managedFields under that
   * sub-resource. (`scale` is `scale`, others `connectSubresources`.)
   */
  readonly subresources?: readonly GenericSubresource[];
  /**
   * The `scale` sub-resource: an autoscaling/v1 Scale over the object's replica count (a CRD's
   * `subresources.scale` paths, or a built-in workload's fields). See `ScaleSubresource`.
   */
  readonly scale?: ScaleSubresource;
  /**
   * Set for a deprecated version: every request of the resource (sub-resources and errors included)
   * answers with this text as a `Warning: 299` header, as Kubernetes does for a CRD's deprecated versions.
   */
  readonly deprecationWarning?: string;
  /** The whole object's schema: apiVersion, kind, metadata (ObjectMeta) and the kind's own fields. */
  readonly schema: Schema;
  /** Default `dns-subdomain`. */
  readonly nameRule?: NameRule;
  /** PUT of a missing object creates it. */
  readonly allowCreateOnUpdate?: boolean;
  /** DELETE answers with the deleted object instead of a Status. */
  readonly deleteReturnsObject?: boolean;
  /**
   * PATCH takes `application/strategic-merge-patch+json` (default true, as for every built-in kind; custom
   * resources set false and answer it 415). The merge reads the schema's `x-kubernetes-patch-*` extensions.
   */
  readonly strategicMergePatch?: boolean;
  /** `metadata.generation` starts at 1 and is bumped by every change outside metadata and status. */
  readonly tracksGeneration?: boolean;
  /** Table columns for `kubectl get` (default: NAME and CREATED AT). */
  readonly table?: TableConvention;
  /**
   * Field selector labels this kind supports beyond `metadata.name` and `metadata.namespace`, with the
   * value of each for an object (`type` -> `obj.type` for Secrets). Unlisted labels are 400.
   */
  readonly selectableFields?: Readonly<Record<string, (obj: KubeObject) => string>>;
  /**
   * Set when this kind serves another resource's objects in its own shape (events.k8s.io/v1 Event serves
   * the core `events`). See `StoredAs`; custom resource versions use `versionedStorage` instead.
   */
  readonly storedAs?: StoredAs;
  /**
   * Set when the kind's objects are stored in one version of several and converted at the storage
   * boundary, per object's apiVersion (the served versions of a custom resource). See `VersionedStorage`.
   */
  readonly versionedStorage?: VersionedStorage;
  /**
   * Set for a kind that is never stored (the review APIs): create computes an answer from the request
   * instead of writing, and no other verb exists (`verbs` should be `['create']`); it has no keys and no
   * watch cache. See `VirtualKind`.
   */
  readonly virtual?: VirtualKind;
  /**
   * Document 2's reduced query parameter sets ("Endpoints": ServiceAccount, HorizontalPodAutoscaler,
   * PodTemplate): per OpenAPI action (`list` also covers the watch actions), the query parameters the
   * published operations list, besides `pretty`, in the documents' names (under `k8s.io` the documents
   * publish Kubernetes' full sets). Requests still honor every standard parameter (kubectl and informers send
   * them: docs/differences.md). Unset actions publish the standard set.
   */
  readonly publishedQueryParameters?: Readonly<Partial<Record<PublishedAction, readonly string[]>>>;
  /** Sub-resources served by a handler of the kind (`serviceaccounts/<name>/token`). See `ConnectSubresource`. */
  readonly connectSubresources?: readonly ConnectSubresource[];

  /**
   * Unknown fields inside parts of the schema that are free-form (`x-kubernetes-preserve-unknown-fields`)
   * but typed in Kubernetes (CustomResourceDefinition's JSONSchemaProps): removes them from a decoded body
   * and returns their paths, which then count as unknown fields for `fieldValidation` (400 under Strict).
   */
  unknownFields?(obj: Record<string, unknown>, naming: Naming): string[];
  /**
   * A check of the writer against the object, before prepareForCreate / prepareForUpdate (Kubernetes runs
   * its RBAC policy checks before the standard storage): `old` is undefined on create. Throws a
   * StatusError (403 for escalation). Main resource only.
   */
  admit?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): void;
  prepareForCreate?(obj: KubeObject, ctx: StrategyContext): void;
  validate?(obj: KubeObject, ctx: StrategyContext): FieldError[];
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
  /** Warnings returned as `Warning: 299 - "..."` headers (create and update). */
  warnings?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): string[];
  /** Normalizes the object right before it is stored (sorting, dropping write-only fields). */
  canonicalize?(obj: KubeObject): void;
  /**
   * Called when a delete finds the object (not yet marked). Return true to keep it, marked for deletion
   * (`deletionTimestamp` set), as objects with `metadata.finalizers` are kept; the hook may change `obj`
   * (a Namespace turns Terminating and waits for its `spec.finalizers`). Runs for objects with
   * metadata finalizers too, so the kind's own marking happens either way. `naming` names domain-bearing
   * finalizers (a CustomResourceDefinition adds `customresourcecleanup.apiextensions.<domain>`).
   */
  markForDeletion?(obj: KubeObject, naming: Naming): boolean;
  /**
   * Graceful deletion (kube's CheckGracefulDelete; Pods): the grace period in seconds a DELETE of `obj`
   * (not yet marked) waits, given the request's `gracePeriodSeconds` (undefined when not sent, never
   * negative). A positive period keeps the object with `deletionTimestamp` = now + period and
   * `deletionGracePeriodSeconds` = period until a DELETE with 0 (or a shorter period that reaches it) removes
   * it; 0 removes it at once. See registry/generic/graceful-delete.ts.
   */
  gracefulDeletion?(obj: KubeObject, requestedGracePeriodSeconds: number | undefined): number;
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[];
}

/**
 * A kind that is a view of another kind's stored objects, as Kubernetes serves one stored resource under
 * several group versions: the same keys (`<prefix>/<stored resource>/<ns>/<name>`), the same objects,
 * written in the stored kind's shape, and ONE watch cache per key prefix shared by every view. The generic
 * registry converts at the storage boundary: what it reads (store or cache) goes through `fromStorage`,
 * what it writes through `toStorage`; every hook of the view (defaults, validate, table cells ...) sees the
 * view's shape, and managedFields record the view's apiVersion, as Kubernetes records the request's.
 * A watch cache object is converted once per view and memoized in its memo (registry/generic/stored-shape.ts).
 *
 * Errors name the stored resource and kind (`events "x" not found`), as Kubernetes' view storage does.
 * `selectableFields` of a view read the STORED object (the cache filters stored objects without converting
 * them), the way Kubernetes maps a view's field labels to the stored kind's.
 */
export interface StoredAs {
  /** The kind whose resource holds the objects (its resource names the keys; its apiVersion is stored). */
  readonly kind: KindStrategy;
  /**
   * The stored shape of a view object. Must not change `obj` and may share nested values with it (both are
   * then treated as `obj` is). apiVersion and kind are set by the registry.
   */
  toStorage(obj: KubeObject): KubeObject;
  /** The view's shape of a stored object; same rules. `fromStorage(toStorage(x))` must equal `x`. */
  fromStorage(obj: KubeObject): KubeObject;
}

/**
 * Create of a kind that is never stored. The handler decodes the body as for any kind (media types,
 * unknown fields per `fieldValidation`), stamps apiVersion and kind, applies the schema's defaults, runs
 * `prepareForCreate`, validates against the schema and runs the kind's `validate` (422 with its field errors) and calls
 * `create`, answering 201 with what it returns. Nothing else of the write pipeline runs: no system fields,
 * no managedFields, no namespace lifecycle admission (kube exempts the access reviews), no store.
 */
export interface VirtualKind {
  /**
   * The answer to `obj` (owned: may be changed and returned). Throws a StatusError for a bad request
   * (kube's reviews answer some mistakes with 400 rather than 422).
   */
  create(obj: KubeObject, ctx: VirtualContext): KubeObject | Promise<KubeObject>;
}

export interface VirtualContext extends StrategyContext {
  /** Who the request acts as (after impersonation); undefined only where no authentication ran (tests). */
  readonly user: UserInfo | undefined;
  readonly services: ServerServices;
  /**
   * The registry of another served resource (the legacy `bindings` resource writes pods); absent where no
   * server wiring lends one (tests), undefined for a resource not served.
   */
  readonly registry?: (group: string, version: string, resource: string) => GenericRegistry | undefined;
}

/**
 * What the server lends virtual kinds: the reviews answer with the server's own authenticators and
 * authorizer. One object per server, built by its wiring (start-server).
 */
export interface ServerServices {
  /** The authorizer of every request (`--authorization-mode`). */
  readonly authorizer: Authorizer;
  /** Lists what a user may do in a namespace (SelfSubjectRulesReview). */
  readonly rules: RulesResolver;
  /** The bearer token authenticators, in the order requests use them (TokenReview). */
  readonly tokenAuthenticators: readonly BearerTokenAuthenticator[];
  /** `--api-audiences`: the audiences a TokenReview without `spec.audiences` asks for (may be empty). */
  readonly apiAudiences: readonly string[];
  /** Signs service account tokens (TokenRequest); absent where the server issues none (tests). */
  readonly serviceAccountTokens?: ServiceAccountTokenIssuer;
}

/**
 * The services of a server whose wiring lends none (tests serving kinds without a server): no authorizer
 * has an opinion, no rules are listed, no token is known.
 */
export const noServerServices: ServerServices = Object.freeze({
  authorizer: Object.freeze({ authorize: () => NO_OPINION }),
  rules: unlistableRules,
  tokenAuthenticators: Object.freeze([]),
  apiAudiences: Object.freeze([]),
});

/**
 * A per-server asynchronous step of one resource's main-resource writes, for what a kind reserves outside
 * its object (Service: cluster IPs and node ports), as Kubernetes' BeginCreate/BeginUpdate and AfterDelete.
 * Supplied by the server's wiring (`GenericRegistryConfig.writeHooks`), not by the frozen KindStrategy,
 * because it holds the server's state. The generic registry runs it:
 *
 *   create / create-on-update / apply-create: ... validate -> managedFields -> canonicalize ->
 *     beginWrite(obj, undefined) -> validating admission -> store -> finish(true | false)
 *   update (every attempt of the update loop): ... canonicalize -> beginWrite(obj, current) -> validating
 *     admission -> store -> finish(true), or finish(false) on a conflict (the next attempt begins again),
 *     an unchanged object, a dry run, a denial or any error
 *   delete: afterDelete(obj) once the key is gone (a direct delete, or the update that removed the last
 *     finalizer); never for a dry run or an object only marked for deletion.
 *
 * `beginWrite` may change `obj` (fill in what it reserved); it throws a StatusError to refuse (422 for a
 * value already taken). With `ctx.dryRun` it must reserve nothing. `finish` is called exactly once per
 * `beginWrite` that returned; `finish(false)` releases what the write took, `finish(true)` releases what
 * the write gave up (an update's old values). Neither `finish` nor `afterDelete` throws: a failed release
 * is the hook's to log and a repair pass's to clean up.
 */
export interface WriteHooks {
  beginWrite(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): Promise<FinishWrite>;
  afterDelete(obj: KubeObject): Promise<void>;
}

/** Ends one `beginWrite`: `committed` is true when the object was stored. */
export type FinishWrite = (committed: boolean) => Promise<void>;

/** The resource whose keys hold a kind's objects: its own, or the one it is stored as. */
export const storedResourceOf = (s: KindStrategy): string => s.storedAs?.kind.resource ?? s.resource;

/** The resolved group of a strategy under a naming. */
export const groupOf = (s: KindStrategy, n: Naming): string => (s.groupPrefix !== undefined ? n.group(s.groupPrefix) : s.group);
