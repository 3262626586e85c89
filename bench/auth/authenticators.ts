/**
 * Part 6, in process: the cost of one `authenticateToken` call of each token authenticator the server
 * builds (static, service account, bootstrap), constructed as start-server builds them but with the
 * watch-cache lookups replaced by a Map (so the figure is the authenticator's own work, not a cache read).
 * Next to them, the RS256 signature check alone (`crypto.verify` of the same JWS), the floor of a
 * service account token.
 *
 * Every authenticator is first asked once and must answer the expected user, so one that rejected its
 * token would fail the bench rather than look fast. Rounds: each authenticator runs a batch of calls,
 * rotating within the round; the median round counts.
 */
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../apiserver/api/object.js';
import type { BearerTokenAuthenticator } from '../../apiserver/auth/authenticator.js';
import { bootstrapTokenAuthenticator } from '../../apiserver/auth/bootstrap-token.js';
import { parseSigningKey } from '../../apiserver/auth/service-account/keys.js';
import { serviceAccountTokenAuthenticator } from '../../apiserver/auth/service-account/token-authenticator.js';
import { tokenIssuer } from '../../apiserver/auth/service-account/token-issuer.js';
import { staticTokenAuthenticator } from '../../apiserver/auth/token-authenticator.js';
import { defaultServiceAccountIssuer } from '../../apiserver/config/server-config.js';

export interface AuthenticatorTiming {
  readonly name: string;
  /** Median of the rounds, nanoseconds per call. */
  readonly ns: number;
  readonly min: number;
  readonly max: number;
}

export interface AuthenticatorTimingOptions {
  readonly rounds: number;
  /** Calls per authenticator per round. */
  readonly batch: number;
  /** Static tokens in the table (the bench's token file holds a few; a large file costs the same: a Map). */
  readonly staticTokens: number;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

interface Case {
  readonly name: string;
  readonly expectUser: string;
  call(): unknown;
}

async function cases(o: AuthenticatorTimingOptions): Promise<Case[]> {
  const entries = Array.from({ length: o.staticTokens }, (_, i) => ({
    token: `static-token-${i}-${'s'.repeat(32)}`,
    user: { name: `user-${i}`, uid: `uid-${i}`, groups: [] },
  }));
  const staticAuth = staticTokenAuthenticator(entries);
  const staticToken = entries[Math.floor(o.staticTokens / 2)]!.token;

  // The generated key's kind: RSA 2048, RS256 (service-account-keys.ts).
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = parseSigningKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'bench key');
  const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench-sa', namespace: 'bench', uid: 'sa-uid-1' } };
  const issued = tokenIssuer({ issuer: defaultServiceAccountIssuer, apiAudiences: [defaultServiceAccountIssuer], key: signingKey }).issue({
    namespace: 'bench',
    serviceAccount: { name: 'bench-sa', uid: 'sa-uid-1' },
    audiences: [defaultServiceAccountIssuer],
    expirationSeconds: 3600,
    bound: {},
  });
  const saObjects = new Map<string, KubeObject>([['bench/bench-sa', sa]]);
  const saAuth = serviceAccountTokenAuthenticator({
    issuers: [defaultServiceAccountIssuer],
    keys: [signingKey],
    apiAudiences: [defaultServiceAccountIssuer],
    serviceAccounts: async (ns, name) => saObjects.get(`${ns}/${name}`),
  });
  const [h, p, s] = issued.token.split('.') as [string, string, string];
  const signed = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(s, 'base64url');
  const publicKey = createPublicKey(privateKey);

  const id = 'abcdef';
  const secret = '0123456789abcdef';
  const type = 'bootstrap.platform.io/token';
  const secretObject: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'platform-system' },
    type,
    data: {
      'token-id': b64(id),
      'token-secret': b64(secret),
      'usage-bootstrap-authentication': b64('true'),
      'auth-extra-groups': b64('system:bootstrappers:bench'),
      expiration: b64(new Date(Date.now() + 86_400_000).toISOString()),
    },
  };
  const secrets = new Map([[`bootstrap-token-${id}`, secretObject]]);
  const bootstrapAuth = bootstrapTokenAuthenticator({ secretType: type, secret: async (name) => secrets.get(name) });

  const auth = (a: BearerTokenAuthenticator, token: string) => () => a.authenticateToken(token);
  return [
    { name: `static token (table of ${o.staticTokens.toLocaleString('en-US')})`, expectUser: entries[Math.floor(o.staticTokens / 2)]!.user.name, call: auth(staticAuth, staticToken) },
    { name: 'service account JWT (RS256, 2048-bit key)', expectUser: 'system:serviceaccount:bench:bench-sa', call: auth(saAuth, issued.token) },
    { name: 'of which: `crypto.verify` of its RS256 signature alone', expectUser: '', call: () => verify('sha256', signed, publicKey, signature) },
    { name: 'bootstrap token', expectUser: `system:bootstrap:${id}`, call: auth(bootstrapAuth, `${id}.${secret}`) },
  ];
}

/** Times each authenticator; throws if one does not authenticate its token. */
export async function timeAuthenticators(o: AuthenticatorTimingOptions): Promise<AuthenticatorTiming[]> {
  const all = await cases(o);
  for (const c of all) {
    const got = await c.call();
    const ok = c.expectUser === '' ? got === true : (got as { name?: string } | undefined)?.name === c.expectUser;
    if (!ok) throw new Error(`${c.name}: did not authenticate (${JSON.stringify(got)})`);
  }
  const samples: number[][] = all.map(() => []);
  // One untimed round warms the JIT.
  for (let round = -1; round < o.rounds; round++) {
    for (let k = 0; k < all.length; k++) {
      const i = (k + Math.max(0, round)) % all.length;
      const c = all[i]!;
      const t0 = performance.now();
      for (let n = 0; n < o.batch; n++) await c.call();
      const ns = ((performance.now() - t0) * 1e6) / o.batch;
      if (round >= 0) samples[i]!.push(ns);
    }
  }
  return all.map((c, i) => {
    const xs = [...samples[i]!].sort((a, b) => a - b);
    return { name: c.name, ns: xs[Math.floor(xs.length / 2)]!, min: xs[0]!, max: xs[xs.length - 1]! };
  });
}
