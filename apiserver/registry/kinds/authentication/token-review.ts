/**
 * TokenReview (authentication/v1): "who is this bearer token?", answered with the server's own token
 * authenticators (static, service account, bootstrap ... in the order requests use them). Virtual: never
 * stored; create is the only verb; cluster-scoped.
 *
 * Audiences, as kube: the review asks for `spec.audiences`, or the server's (`--api-audiences`) when it names
 * none. An audience-aware authenticator (service account JWTs) checks the token against them and reports
 * the ones it is valid for; an audience-agnostic one (static, bootstrap tokens) answers only when the
 * asked audiences include one of the server's, and is then valid for those. A token no authenticator
 * accepts gets `authenticated` unset and kube's `invalid bearer token` error; nothing about the token is
 * logged or echoed in errors.
 */
import type { KubeObject } from '../../../api/object.js';
import { InvalidCredentials, type BearerTokenAuthenticator, type TokenForAudiences } from '../../../auth/authenticator.js';
import { badRequest } from '../../../errors/constructors.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { KindStrategy, VirtualContext } from '../../kind-strategy.js';
import { bool, obj, str, stringList, struct } from '../shared/schema-builders.js';
import { userInfoSchema, userInfoValue } from './user-info-schema.js';

const schema = kindSchema(
  'TokenReview authenticates a token against the server\'s token authenticators; Nothing is stored.',
  {
    spec: struct(obj('The token to authenticate.', {
      token: str('The opaque bearer token.'),
      audiences: stringList('The audiences the token must be valid for (at least one of them). Empty: the server\'s own audiences.'),
    }, undefined, { protobuf: { token: 1, audiences: 2 } }), 'The token to authenticate.'),
    status: obj('Filled in by the server: whether the token authenticated and as whom.', {
      authenticated: bool('True when the token is valid.'),
      user: { ...userInfoSchema, description: 'The user the token belongs to.' },
      audiences: stringList('The asked audiences the token is valid for (the server\'s when none were asked). A client checking audiences must check this list.'),
      error: str('Why the token could not be authenticated.'),
    }, undefined, { protobuf: { authenticated: 1, user: 2, error: 3, audiences: 4 } }),
  },
  ['spec'],
  { spec: 2, status: 3 },
);

/** kube's message for a token that no authenticator accepts (the bearer token authenticator's). */
export const invalidBearerToken = 'invalid bearer token';

const intersect = (a: readonly string[], b: readonly string[]): string[] => a.filter((x, i) => b.includes(x) && a.indexOf(x) === i);

async function authenticateFor(a: BearerTokenAuthenticator, token: string, audiences: readonly string[], apiAudiences: readonly string[]): Promise<TokenForAudiences | undefined> {
  // No audiences anywhere: the authenticator's own checks decide (as a request's bearer token).
  if (audiences.length === 0) {
    const user = await a.authenticateToken(token);
    return user === undefined ? undefined : { user, audiences: [] };
  }
  if (a.authenticateTokenForAudiences !== undefined) {
    const got = await a.authenticateTokenForAudiences(token, audiences);
    return got !== undefined && intersect(audiences, got.audiences).length > 0 ? got : undefined;
  }
  const implicit = intersect(audiences, apiAudiences);
  if (implicit.length === 0) return undefined;
  const user = await a.authenticateToken(token);
  return user === undefined ? undefined : { user, audiences: implicit };
}

async function review(token: string, asked: readonly string[], ctx: VirtualContext): Promise<Record<string, unknown>> {
  const audiences = asked.length > 0 ? asked : ctx.services.apiAudiences;
  for (const a of ctx.services.tokenAuthenticators) {
    let got: TokenForAudiences | undefined;
    try {
      got = await authenticateFor(a, token, audiences, ctx.services.apiAudiences);
    } catch (err) {
      if (err instanceof InvalidCredentials) continue;
      throw err;
    }
    if (got === undefined) continue;
    return { authenticated: true, user: userInfoValue(got.user), ...(got.audiences.length > 0 ? { audiences: [...got.audiences] } : {}) };
  }
  return { user: {}, error: invalidBearerToken };
}

export const tokenReviews = Object.freeze({
  group: '',
  groupPrefix: 'authentication',
  version: 'v1',
  kind: 'TokenReview',
  resource: 'tokenreviews',
  singular: 'tokenreview',
  namespaced: false,
  verbs: Object.freeze(['create'] as const),
  schema,
  // A status sent in is output only.
  prepareForCreate: (o: KubeObject) => void delete o.status,
  virtual: {
    async create(obj: KubeObject, ctx: VirtualContext): Promise<KubeObject> {
      const spec = obj.spec as { token?: string; audiences?: string[] };
      if ((spec.token ?? '') === '') throw badRequest('token is required for TokenReview in authentication');
      obj.status = await review(spec.token!, spec.audiences ?? [], ctx);
      return obj;
    },
  },
} satisfies KindStrategy);
