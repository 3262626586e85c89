import type { KubeObject } from '../../../api/object.js';
import { InvalidCredentials, type BearerTokenAuthenticator } from '../../../auth/authenticator.js';
import { isStatusError } from '../../../errors/status-error.js';
import { noServerServices, type ServerServices, type VirtualContext } from '../../kind-strategy.js';
import { testContext } from '../shared/test-context.js';
import { tokenReviews } from './token-review.js';

const alice = { name: 'alice', uid: 'a1', groups: ['devs', 'system:authenticated'], extra: { scope: ['x'] } };
const robot = { name: 'system:serviceaccount:ns:robot', uid: 'r1', groups: ['system:serviceaccounts', 'system:authenticated'] };

/** A static table: audience-agnostic. */
const statics: BearerTokenAuthenticator = { name: 'static', authenticateToken: (t) => (t === 'static-alice' ? alice : undefined) };

/** A JWT-like authenticator: tokens `jwt:<aud>,<aud>`, valid for the audiences they name; `jwt:` with none is malformed. */
const audienceAware: BearerTokenAuthenticator = {
  name: 'sa',
  authenticateToken: (t) => {
    if (!t.startsWith('jwt:')) return undefined;
    if (!t.slice(4).split(',').includes('https://api')) throw new InvalidCredentials('wrong audience');
    return robot;
  },
  authenticateTokenForAudiences: async (t, audiences) => {
    if (!t.startsWith('jwt:')) return undefined;
    const own = t.slice(4).split(',').filter((a) => a !== '');
    if (own.length === 0) throw new InvalidCredentials('malformed');
    const ok = audiences.filter((a) => own.includes(a));
    return ok.length === 0 ? undefined : { user: robot, audiences: ok };
  },
};

const services = (apiAudiences: string[]): ServerServices => ({ ...noServerServices, tokenAuthenticators: [statics, audienceAware], apiAudiences });
const ctx = (apiAudiences: string[]): VirtualContext => ({ ...testContext('platform.io', ''), user: undefined, services: services(apiAudiences) });

async function review(spec: object, apiAudiences: string[] = ['https://api']): Promise<Record<string, unknown>> {
  const out = await tokenReviews.virtual.create({ metadata: {}, spec } as KubeObject, ctx(apiAudiences));
  return out.status as Record<string, unknown>;
}

it('a static token: valid for the server\'s audiences, by default or when asked for one of them', async () => {
  const user = { username: 'alice', uid: 'a1', groups: ['devs', 'system:authenticated'], extra: { scope: ['x'] } };
  expect(await review({ token: 'static-alice' })).toEqual({ authenticated: true, user, audiences: ['https://api'] });
  expect(await review({ token: 'static-alice', audiences: ['other', 'https://api'] })).toEqual({ authenticated: true, user, audiences: ['https://api'] });
  expect(await review({ token: 'static-alice', audiences: ['other'] })).toEqual({ user: {}, error: 'invalid bearer token' });
  // No audiences anywhere: no audience check at all.
  expect(await review({ token: 'static-alice' }, [])).toEqual({ authenticated: true, user });
});

it('an audience-aware token: valid for the asked audiences it names; status.audiences lists them', async () => {
  expect(await review({ token: 'jwt:vault,https://api', audiences: ['vault'] })).toMatchObject({ authenticated: true, audiences: ['vault'], user: { username: robot.name } });
  expect(await review({ token: 'jwt:https://api' })).toMatchObject({ authenticated: true, audiences: ['https://api'] });
  expect(await review({ token: 'jwt:vault' })).toEqual({ user: {}, error: 'invalid bearer token' });
  expect(await review({ token: 'jwt:vault', audiences: ['elsewhere'] })).toEqual({ user: {}, error: 'invalid bearer token' });
});

it('invalid credentials of one authenticator do not stop the others, and end as kube\'s error', async () => {
  expect(await review({ token: 'jwt:' })).toEqual({ user: {}, error: 'invalid bearer token' });
  expect(await review({ token: 'nobody' })).toEqual({ user: {}, error: 'invalid bearer token' });
});

it('an empty token is 400 with kube\'s message', async () => {
  const err = await Promise.resolve(tokenReviews.virtual.create({ metadata: {}, spec: {} } as KubeObject, ctx([]))).catch((e: unknown) => e);
  expect(isStatusError(err)).toBe(true);
  expect(err).toMatchObject({ code: 400, reason: 'BadRequest', message: 'token is required for TokenReview in authentication' });
});
