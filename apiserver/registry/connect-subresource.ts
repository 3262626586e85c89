/**
 * A sub-resource a kind serves with a handler of its own instead of the generic registry's verbs, as
 * kube's "connecter" and named-creater REST storages do: `serviceaccounts/<name>/token` (TokenRequest),
 * later `pods/<name>/eviction`, `.../binding`. The kind declares it as data plus one hook on its strategy
 * (`KindStrategy.connectSubresources`); the resource router serves it (endpoints/handlers/connect.ts):
 *
 *   POST .../<resource>/<name>/<subresource>: negotiate the response (406 first) -> decode the body as
 *   `kind` (JSON, YAML, protobuf by `kind.schema`'s field numbers, CBOR behind its gate; apiVersion/kind
 *   defaulted or checked; unknown fields per `fieldValidation`) -> schema defaults -> `create` -> 201 with
 *   what it returns, stamped with `kind`'s apiVersion and kind.
 *
 * Every other verb is 405. Authorization sees the request as any sub-resource request (verb `create`,
 * resource and sub-resource from the URL), so RBAC grants it as `serviceaccounts/token`.
 */
import type { KubeObject, Verb } from '../api/object.js';
import type { UserInfo } from '../auth/user-info.js';
import type { Naming } from '../naming/naming.js';
import type { GenericRegistry } from './generic/generic-registry.js';
import type { KindStrategy, ServerServices } from './kind-strategy.js';

export interface ConnectSubresource {
  /** The URL segment after the object's name: `token`. */
  readonly name: string;
  /**
   * The kind of the request and response bodies (TokenRequest in `authentication.<domain>/v1`): its
   * identity, schema (with field numbers for protobuf) and table. Not served as a resource of its own.
   */
  readonly kind: KindStrategy;
  /** Served verbs; only `create` (POST) is routed so far. */
  readonly verbs: readonly Verb[];
  /**
   * The answer to `obj` (decoded, defaulted, owned: may be changed and returned) for the parent object
   * `name` in `ctx.namespace`. Throws a StatusError for what kube refuses (404 for a missing parent,
   * 422 with field causes, 400, 409).
   */
  create(name: string, obj: KubeObject, ctx: ConnectContext): Promise<KubeObject>;
}

export interface ConnectContext {
  readonly naming: Naming;
  /** The request's namespace ('' for a cluster-scoped parent). */
  readonly namespace: string;
  readonly dryRun: boolean;
  /** Who the request acts as; undefined only where no authentication ran (tests). */
  readonly user: UserInfo | undefined;
  /** What the server lends its kinds (the service account token issuer ...). */
  readonly services: ServerServices;
  /** The parent resource's registry (reads of the parent object). */
  readonly parent: GenericRegistry;
  /** The registry of another served resource (a token's bound Secret or Pod); undefined when not served. */
  registry(group: string, version: string, resource: string): GenericRegistry | undefined;
  /** Adds a `Warning` header to the response (absent where no response is written: tests). */
  readonly warn?: (message: string) => void;
}
