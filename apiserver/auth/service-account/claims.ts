/**
 * The claims of a service account token, as kube-apiserver 1.32 writes them (pkg/serviceaccount claims):
 * the registered claims `aud` (always a list), `exp`, `iat`, `iss`, `jti` (a random UUID: the
 * ServiceAccountTokenJTI gate is on in 1.32), `nbf`, `sub` = `system:serviceaccount:<ns>:<name>`, and the
 * private claim `kubernetes.io` with `namespace`, `serviceaccount` {name, uid} and the object the token is
 * bound to (`pod`, `secret`, `node`: {name, uid}) when it is, and `warnafter` (a NumericDate) for a token
 * whose expiry was extended (`--service-account-extend-token-expiration`). Keys are written in sorted
 * order, as the Go encoder does, so our tokens decode to the same JSON text as kube's.
 */
import { randomUUID } from 'node:crypto';

/** The private claim key. */
export const kubernetesClaim = 'kubernetes.io';

export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** The objects a token is bound to: it is valid only while they exist with these uids. */
export interface BoundObjects {
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

export interface TokenClaimsInput {
  readonly issuer: string;
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly bound: BoundObjects;
  /** Epoch ms of issuance. */
  readonly now: number;
  /** For an extended token: the requested validity, after which using it is reported as stale. */
  readonly warnAfterSeconds?: number;
  /** Default: a random UUID. */
  readonly jti?: string;
}

/** The user name of a service account. */
export const serviceAccountUsername = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`;

export function tokenClaims(i: TokenClaimsInput): Record<string, unknown> {
  const iat = Math.floor(i.now / 1000);
  const ref = (r: ObjectRef) => ({ name: r.name, uid: r.uid });
  const k8s: Record<string, unknown> = { namespace: i.namespace };
  if (i.bound.node !== undefined) k8s.node = ref(i.bound.node);
  if (i.bound.pod !== undefined) k8s.pod = ref(i.bound.pod);
  if (i.bound.secret !== undefined) k8s.secret = ref(i.bound.secret);
  k8s.serviceaccount = ref(i.serviceAccount);
  if (i.warnAfterSeconds !== undefined) k8s.warnafter = iat + i.warnAfterSeconds;
  return {
    aud: [...i.audiences],
    exp: iat + i.expirationSeconds,
    iat,
    iss: i.issuer,
    jti: i.jti ?? randomUUID(),
    [kubernetesClaim]: k8s,
    nbf: iat,
    sub: serviceAccountUsername(i.namespace, i.serviceAccount.name),
  };
}

/** The claims a verified token must carry; undefined fields were absent. */
export interface ParsedClaims {
  readonly issuer: string;
  readonly audiences: readonly string[];
  /** Epoch seconds. */
  readonly exp: number | undefined;
  readonly nbf: number | undefined;
  readonly iat: number | undefined;
  readonly jti: string;
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly bound: BoundObjects;
}

const isRef = (v: unknown): v is ObjectRef =>
  v !== null && typeof v === 'object' && typeof (v as ObjectRef).name === 'string' && typeof (v as ObjectRef).uid === 'string';

const numericDate = (v: unknown): number | undefined | 'bad' => (v === undefined ? undefined : typeof v === 'number' && Number.isFinite(v) ? v : 'bad');

/** Reads the claims of a payload; a string with what is wrong when a claim is missing or ill-typed. */
export function parseClaims(payload: Record<string, unknown>): ParsedClaims | string {
  const iss = payload.iss;
  if (typeof iss !== 'string') return 'the token has no issuer';
  const aud = payload.aud;
  // RFC 7519: a single audience may be a string.
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) && aud.every((a) => typeof a === 'string') ? (aud as string[]) : aud === undefined ? [] : undefined;
  if (audiences === undefined) return 'the token audience claim is malformed';
  const exp = numericDate(payload.exp);
  const nbf = numericDate(payload.nbf);
  const iat = numericDate(payload.iat);
  if (exp === 'bad' || nbf === 'bad' || iat === 'bad') return 'the token has a malformed time claim';
  const k8s = payload[kubernetesClaim] as Record<string, unknown> | undefined;
  if (k8s === null || typeof k8s !== 'object') return 'the token has no kubernetes.io claim';
  if (typeof k8s.namespace !== 'string' || k8s.namespace === '') return 'the token has no namespace claim';
  if (!isRef(k8s.serviceaccount)) return 'the token has no service account claim';
  const bound: { pod?: ObjectRef; secret?: ObjectRef; node?: ObjectRef } = {};
  for (const key of ['pod', 'secret', 'node'] as const) {
    const r = k8s[key];
    if (r === undefined || r === null) continue;
    if (!isRef(r)) return `the token's ${key} claim is malformed`;
    bound[key] = r;
  }
  return {
    issuer: iss,
    audiences,
    exp,
    nbf,
    iat,
    jti: typeof payload.jti === 'string' ? payload.jti : '',
    namespace: k8s.namespace,
    serviceAccount: k8s.serviceaccount,
    bound,
  };
}
