/**
 * Service account tokens (JWTs this server, or one sharing its keys, signed) as a bearer token
 * authenticator, after kube 1.32's JWT token authenticator and its service account validator:
 *
 * 1. The issuer is peeked at before anything else: a token that is not a JWS, or whose `iss` is none of
 *    `--service-account-issuer`, is someone else's (no opinion: the next token authenticator, or 401).
 * 2. The signature must verify with one of the verification keys; then the issuer is checked again.
 * 3. The audiences must meet the requested ones (`--api-audiences` for requests; a TokenReview's own);
 *    with no audiences configured there is no audience check, as kube.
 * 4. Times as go-jose judges them with its one-minute leeway: `exp` passed more than 60 s ago is
 *    expired, `nbf` or `iat` more than 60 s ahead is not valid yet.
 * 5. The service account must still exist with the claimed uid (deleted, or deleted and recreated, is
 *    invalid); so must a bound Secret, Pod or Node. An object whose deletion began more than 60 s ago
 *    counts as deleted. Objects are read through the watch caches (`ObjectLookup`), never a store read
 *    per request.
 * From step 2 on, a failure is invalid credentials (401), with the reason given to `onRejected` only.
 *
 * The user: `system:serviceaccount:<ns>:<name>`, uid = the service account's, groups
 * `system:serviceaccounts`, `system:serviceaccounts:<ns>`, `system:authenticated`; extra
 * `authentication.kubernetes.io/credential-id` = `JTI=<jti>`, and for a Pod-bound token its
 * `pod-name`/`pod-uid`, and `node-name`/`node-uid` when the claims name a node.
 */
import type { KubeObject } from '../../api/object.js';
import { InvalidCredentials, type BearerTokenAuthenticator, type TokenForAudiences } from '../authenticator.js';
import { authenticatedGroup, type UserInfo } from '../user-info.js';
import { parseClaims, serviceAccountUsername, type ObjectRef, type ParsedClaims } from './claims.js';
import { parseJws, verifyJws } from './jws.js';
import type { VerificationKey } from './keys.js';

/** go-jose's DefaultLeeway, which kube's validation uses for exp, nbf, iat and deletions. */
export const leewaySeconds = 60;

/** The extra key holding the token's id. */
export const credentialIdKey = 'authentication.kubernetes.io/credential-id';
const podNameKey = 'authentication.kubernetes.io/pod-name';
const podUidKey = 'authentication.kubernetes.io/pod-uid';
const nodeNameKey = 'authentication.kubernetes.io/node-name';
const nodeUidKey = 'authentication.kubernetes.io/node-uid';

/** Reads an object by namespace ('' for cluster-scoped) and name; undefined when there is none. */
export type ObjectLookup = (namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface ServiceAccountTokenOptions {
  /** `--service-account-issuer`: every one is accepted. */
  readonly issuers: readonly string[];
  readonly keys: readonly VerificationKey[];
  /** `--api-audiences`. */
  readonly apiAudiences: readonly string[];
  readonly serviceAccounts: ObjectLookup;
  readonly secrets?: ObjectLookup;
  /** Absent when Pods are not served (`--runtime-config`): a Pod-bound token is then invalid. */
  readonly pods?: ObjectLookup;
  readonly nodes?: ObjectLookup;
  /** Epoch ms; default Date.now. */
  readonly now?: () => number;
  /** Why a token of ours was refused (debug logs); never given the token. */
  readonly onRejected?: (reason: string) => void;
}

export function serviceAccountTokenAuthenticator(o: ServiceAccountTokenOptions): BearerTokenAuthenticator {
  const issuers = new Set(o.issuers);
  const now = o.now ?? Date.now;
  const reject = (reason: string): never => {
    o.onRejected?.(reason);
    throw new InvalidCredentials(reason);
  };

  /** A live object with the claimed uid, or the reason it is not. */
  async function checkObject(kind: string, lookup: ObjectLookup | undefined, namespace: string, ref: ObjectRef, nowSec: number): Promise<KubeObject> {
    if (lookup === undefined) return reject(`${kind} ${ref.name} cannot be checked (not served)`);
    const obj = await lookup(namespace, ref.name);
    if (obj === undefined) return reject(`${kind} ${namespace}/${ref.name} not found`);
    const deleted = obj.metadata.deletionTimestamp;
    if (typeof deleted === 'string' && Date.parse(deleted) / 1000 < nowSec - leewaySeconds) return reject(`${kind} ${namespace}/${ref.name} has been deleted`);
    if (obj.metadata.uid !== ref.uid) return reject(`${kind} UID (${String(obj.metadata.uid)}) does not match claim (${ref.uid})`);
    return obj;
  }

  async function authenticate(token: string, requested: readonly string[]): Promise<TokenForAudiences | undefined> {
    const jws = parseJws(token);
    if (jws === undefined || typeof jws.payload.iss !== 'string' || !issuers.has(jws.payload.iss)) return undefined;
    if (verifyJws(jws, o.keys) === undefined) return reject('the token signature does not verify with any service account key');
    const claims = parseClaims(jws.payload);
    if (typeof claims === 'string') return reject(claims);
    if (!issuers.has(claims.issuer)) return reject(`token issuer "${claims.issuer}" is invalid`);
    const audiences = claims.audiences.filter((a) => requested.includes(a));
    if (audiences.length === 0 && requested.length > 0) {
      return reject(`token audiences ${JSON.stringify(claims.audiences)} is invalid for the target audiences ${JSON.stringify(requested)}`);
    }
    const nowSec = now() / 1000;
    if (claims.exp !== undefined && nowSec > claims.exp + leewaySeconds) return reject('service account token has expired');
    if (claims.nbf !== undefined && nowSec < claims.nbf - leewaySeconds) return reject('service account token is not valid yet');
    if (claims.iat !== undefined && nowSec < claims.iat - leewaySeconds) return reject('service account token is issued in the future');
    const sa = await checkObject('service account', o.serviceAccounts, claims.namespace, claims.serviceAccount, nowSec);
    if (claims.bound.secret !== undefined) await checkObject('secret', o.secrets, claims.namespace, claims.bound.secret, nowSec);
    if (claims.bound.pod !== undefined) await checkObject('pod', o.pods, claims.namespace, claims.bound.pod, nowSec);
    if (claims.bound.node !== undefined && claims.bound.pod === undefined) await checkObject('node', o.nodes, '', claims.bound.node, nowSec);
    return { user: userOf(claims, String(sa.metadata.uid)), audiences };
  }

  return {
    name: 'service-account-token',
    async authenticateToken(token) {
      return (await authenticate(token, o.apiAudiences))?.user;
    },
    authenticateTokenForAudiences(token, audiences) {
      return authenticate(token, audiences);
    },
  };
}

function userOf(c: ParsedClaims, uid: string): UserInfo {
  const extra: Record<string, readonly string[]> = {};
  if (c.bound.pod !== undefined) {
    extra[podNameKey] = [c.bound.pod.name];
    extra[podUidKey] = [c.bound.pod.uid];
  }
  if (c.bound.node !== undefined) {
    extra[nodeNameKey] = [c.bound.node.name];
    extra[nodeUidKey] = [c.bound.node.uid];
  }
  if (c.jti !== '') extra[credentialIdKey] = [`JTI=${c.jti}`];
  return Object.freeze({
    name: serviceAccountUsername(c.namespace, c.serviceAccount.name),
    uid,
    groups: Object.freeze(['system:serviceaccounts', `system:serviceaccounts:${c.namespace}`, authenticatedGroup]),
    ...(Object.keys(extra).length > 0 ? { extra: Object.freeze(extra) } : {}),
  });
}
