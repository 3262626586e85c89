/**
 * `serviceaccounts/<name>/token`: TokenRequest (authentication.<domain>/v1), a connect-like sub-resource
 * of ServiceAccount (registry/connect-subresource.ts), as kube 1.32's TokenREST answers it:
 *
 * - `metadata.name`/`namespace` in the body, when given, must be the URL's (422);
 * - the service account must exist (404 `serviceaccounts "x" not found`);
 * - `spec.audiences` defaults to `--api-audiences`, `spec.expirationSeconds` to 3600 and must be at least
 *   600 and at most 2^32 (422 with kube's messages, object name "");
 * - `spec.boundObjectRef` binds the token to a Secret, a Pod (running as this account) or a Node of the
 *   same namespace (cluster for Nodes); another kind is 400 `cannot bind
 *   token to object of type /v1, Kind=ConfigMap`; a uid differing from the object's is 409;
 * - over `--service-account-max-token-expiration` (when set), `expirationSeconds` is shortened to it,
 *   with kube's Warning `requested expiration of N seconds shortened to M seconds`;
 * - with `--service-account-extend-token-expiration` (default on), a token bound to a Pod, asked for
 *   exactly 3607 s (what kube's admission gives projected volumes) and only for the API's audiences is
 *   signed valid for a year with a `warnafter` claim at 3607 s, while the response still says 3607 s (kube's
 *   safe transition from legacy tokens);
 * - status gets the signed token and `expirationTimestamp` (issuance + spec.expirationSeconds).
 * Nothing is stored. The token is only ever in the response body.
 */
import type { KubeObject } from '../../../api/object.js';
import type { BoundObjects } from '../../../auth/service-account/claims.js';
import type { ServiceAccountTokenIssuer } from '../../../auth/service-account/token-issuer.js';
import { badRequest, conflict, internalError, invalid, notFound } from '../../../errors/constructors.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import { invalidValue, toCauses, type FieldError } from '../../../validation/field-error.js';
import type { ConnectContext, ConnectSubresource } from '../../connect-subresource.js';
import { groupOf, type KindStrategy } from '../../kind-strategy.js';
import { int64, obj, str, stringList, struct, time } from '../shared/schema-builders.js';

/** kube's TokenRequest bounds. */
export const defaultExpirationSeconds = 3600;
const minExpirationSeconds = 600;
const maxExpirationSeconds = 2 ** 32;
/** kube's WarnOnlyBoundTokenExpirationSeconds: what admission requests for projected tokens (1h + 7s). */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/** kube's ExpirationExtensionSeconds: how long an extended token is really valid (a year). */
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;

const schema = kindSchema(
  'TokenRequest requests a token for a service account. Nothing is stored.',
  {
    spec: struct(obj('What the token is for.', {
      audiences: stringList('Intended audiences of the token. A recipient must identify itself with one of them. Default: the API server\'s audiences.'),
      expirationSeconds: int64('Requested validity in seconds (at least 600). The issuer may return a token with a different duration.', { default: defaultExpirationSeconds }),
      boundObjectRef: obj('The object the token is bound to: it stops being valid when that object is deleted.', {
        kind: str('Kind of the referent: Pod, Secret or Node.'),
        apiVersion: str('API version of the referent.'),
        name: str('Name of the referent.'),
        uid: str('UID of the referent.'),
      }, undefined, { protobuf: { kind: 1, apiVersion: 2, name: 3, uid: 4 } }),
    }, undefined, { protobuf: { audiences: 1, boundObjectRef: ptr(3), expirationSeconds: ptr(4) } }), 'What the token is for.'),
    status: struct(obj('The issued token.', {
      token: str('The opaque bearer token.'),
      expirationTimestamp: time('When the token expires.'),
    }, undefined, { protobuf: { token: 1, expirationTimestamp: 2 } }), 'The issued token.'),
  },
  ['spec'],
  { spec: 2, status: 3 },
);

/** The request and response kind (not served as a resource of its own). */
export const tokenRequests = Object.freeze({
  group: '',
  groupPrefix: 'authentication',
  version: 'v1',
  kind: 'TokenRequest',
  resource: 'tokenrequests',
  singular: 'tokenrequest',
  namespaced: true,
  verbs: Object.freeze(['create'] as const),
  schema,
} satisfies KindStrategy);

interface BoundRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

/** Go's schema.FromAPIVersionAndKind(...).String(): `/v1, Kind=Pod`, `apps/v1, Kind=Deployment`. */
function gvkString(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

const groupOfApiVersion = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

async function getBoundObject(ctx: ConnectContext, resource: string, namespace: string, name: string): Promise<KubeObject> {
  const registry = ctx.registry('', 'v1', resource);
  // Not served: kube's getter would not find it either.
  if (registry === undefined) throw notFound({ group: '', resource }, name);
  return registry.get(namespace, name);
}

/** The bound object, checked as kube checks it, or a StatusError. */
async function resolveBound(ref: BoundRef, saName: string, ctx: ConnectContext): Promise<BoundObjects> {
  const kind = ref.kind ?? '';
  const apiVersion = ref.apiVersion ?? '';
  const name = ref.name ?? '';
  const core = groupOfApiVersion(apiVersion) === '';
  let object: KubeObject;
  let bound: BoundObjects;
  if (core && kind === 'Pod') {
    object = await getBoundObject(ctx, 'pods', ctx.namespace, name);
    const podSa = (object.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? '';
    if (podSa !== saName) throw badRequest(`cannot bind token for serviceaccount "${saName}" to pod running with serviceaccount "${podSa}"`);
    bound = { pod: { name: object.metadata.name ?? name, uid: String(object.metadata.uid ?? '') } };
  } else if (core && kind === 'Node') {
    object = await getBoundObject(ctx, 'nodes', '', name);
    bound = { node: { name: object.metadata.name ?? name, uid: String(object.metadata.uid ?? '') } };
  } else if (core && kind === 'Secret') {
    object = await getBoundObject(ctx, 'secrets', ctx.namespace, name);
    bound = { secret: { name: object.metadata.name ?? name, uid: String(object.metadata.uid ?? '') } };
  } else {
    throw badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
  }
  const uid = String(object.metadata.uid ?? '');
  if ((ref.uid ?? '') !== '' && ref.uid !== uid) {
    throw conflict(
      { group: groupOfApiVersion(apiVersion), resource: kind },
      name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return bound;
}

function validateTokenRequest(spec: { expirationSeconds?: number }): FieldError[] {
  const exp = spec.expirationSeconds ?? defaultExpirationSeconds;
  const errs: FieldError[] = [];
  if (exp < minExpirationSeconds) errs.push(invalidValue('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
  if (exp > maxExpirationSeconds) errs.push(invalidValue('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

/** What the issuer is told to sign, and the warning for the response. */
export interface TokenExpiration {
  /** The validity the response reports (spec.expirationSeconds), capped. */
  readonly requested: number;
  /** The token's real validity (`exp` - `iat`): `requested`, or a year for an extended token. */
  readonly signed: number;
  /** The `warnafter` offset of an extended token. */
  readonly warnAfter?: number;
  readonly warning?: string;
}

/**
 * kube's TokenREST after validation: the cap of `--service-account-max-token-expiration`, then the
 * extension of pod-bound 3607 s tokens whose audiences are all API audiences.
 */
export function tokenExpiration(
  expirationSeconds: number,
  audiences: readonly string[],
  bound: BoundObjects,
  issuer: Pick<ServiceAccountTokenIssuer, 'apiAudiences' | 'maxExpirationSeconds' | 'extendExpiration'>,
): TokenExpiration {
  let requested = expirationSeconds;
  let warning: string | undefined;
  if (issuer.maxExpirationSeconds > 0 && requested > issuer.maxExpirationSeconds) {
    warning = `requested expiration of ${requested} seconds shortened to ${issuer.maxExpirationSeconds} seconds`;
    requested = issuer.maxExpirationSeconds;
  }
  const apiAudiences = new Set(issuer.apiAudiences);
  const extend = issuer.extendExpiration
    && bound.pod !== undefined
    && requested === warnOnlyBoundTokenExpirationSeconds
    && audiences.every((a) => apiAudiences.has(a));
  return {
    requested,
    signed: extend ? expirationExtensionSeconds : requested,
    ...(extend ? { warnAfter: requested } : {}),
    ...(warning === undefined ? {} : { warning }),
  };
}

export const serviceAccountToken: ConnectSubresource = Object.freeze({
  name: 'token',
  kind: tokenRequests,
  verbs: Object.freeze(['create'] as const),

  async create(name: string, req: KubeObject, ctx: ConnectContext): Promise<KubeObject> {
    const gk = { group: groupOf(tokenRequests, ctx.naming), kind: tokenRequests.kind };
    const meta = req.metadata;
    if ((meta.name ?? '') !== '' && meta.name !== name) {
      throw invalid(gk, name, toCauses([invalidValue('metadata.name', meta.name, 'must match the service account name if specified')]));
    }
    if ((meta.namespace ?? '') !== '' && meta.namespace !== ctx.namespace) {
      throw invalid(gk, name, toCauses([invalidValue('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]));
    }
    const issuer = ctx.services.serviceAccountTokens;
    if (issuer === undefined) throw internalError('this server issues no service account tokens');
    const sa = await ctx.parent.get(ctx.namespace, name);

    const spec = (req.spec ??= {}) as { audiences?: string[]; expirationSeconds?: number; boundObjectRef?: BoundRef | null };
    if (spec.audiences === undefined || spec.audiences.length === 0) spec.audiences = [...issuer.apiAudiences];
    spec.expirationSeconds ??= defaultExpirationSeconds;
    req.metadata = { ...meta, name: sa.metadata.name, namespace: sa.metadata.namespace };
    delete req.status;
    const errs = validateTokenRequest(spec);
    if (errs.length > 0) throw invalid(gk, '', toCauses(errs));

    const bound = spec.boundObjectRef === undefined || spec.boundObjectRef === null ? {} : await resolveBound(spec.boundObjectRef, name, ctx);
    const expiration = tokenExpiration(spec.expirationSeconds, spec.audiences, bound, issuer);
    if (expiration.warning !== undefined) ctx.warn?.(expiration.warning);
    spec.expirationSeconds = expiration.requested;
    const issued = issuer.issue({
      namespace: ctx.namespace,
      serviceAccount: { name, uid: String(sa.metadata.uid ?? '') },
      audiences: spec.audiences,
      expirationSeconds: expiration.signed,
      bound,
      ...(expiration.warnAfter === undefined ? {} : { warnAfterSeconds: expiration.warnAfter }),
    });
    req.metadata.creationTimestamp = rfc3339(issued.issuedAt);
    // The requested validity, also for an extended token (kube reports spec.expirationSeconds here).
    req.status = { token: issued.token, expirationTimestamp: rfc3339(issued.issuedAt + expiration.requested * 1000) };
    return req;
  },
});

const rfc3339 = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`;
