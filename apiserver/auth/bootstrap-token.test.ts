import type { KubeObject } from '../api/object.js';
import { naming } from '../naming/naming.js';
import { bootstrapTokenAuthenticator } from './bootstrap-token.js';
import { bootstrapTokenSecretType, parseBootstrapToken, parseRfc3339, tokenGroups } from './bootstrap-token-secret.js';

const now = Date.parse('2025-01-01T00:00:00Z');
const platformType = bootstrapTokenSecretType(naming('platform.io'));
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

function tokenSecret(id: string, data: Record<string, string>, over: Partial<KubeObject> = {}): KubeObject {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: 'platform-system' }, type: platformType, data: encoded, ...over };
}

const good = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };

describe('bootstrap token authenticator', () => {
  const secrets = new Map<string, KubeObject>();
  const rejected: string[] = [];
  const auth = bootstrapTokenAuthenticator({
    secretType: platformType,
    secret: async (name) => secrets.get(name),
    now: () => now,
    onRejected: (name, reason) => rejected.push(`${name}: ${reason}`),
  });
  const put = (s: KubeObject): void => {
    secrets.clear();
    secrets.set(s.metadata.name!, s);
  };

  it('uses the domain for the Secret type', () => {
    expect(platformType).toBe('bootstrap.platform.io/token');
    expect(bootstrapTokenSecretType(naming('k8s.io'))).toBe('bootstrap.kubernetes.io/token');
  });

  it('authenticates a valid token as system:bootstrap:<id> with sorted, unique groups', async () => {
    put(tokenSecret('abcdef', { ...good, 'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:a,system:bootstrappers:worker', expiration: '2025-01-01T00:00:01Z' }));
    await expect(auth.authenticateToken('abcdef.0123456789abcdef')).resolves.toEqual({
      name: 'system:bootstrap:abcdef',
      uid: '',
      groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:worker', 'system:authenticated'],
    });
  });

  // Each row: the Secret stored (or none) and the token presented; every one is "no opinion".
  const rows: [string, KubeObject | undefined, string][] = [
    ['malformed: short secret part', tokenSecret('abcdef', good), 'abcdef.0123456789abcde'],
    ['malformed: upper case', tokenSecret('abcdef', good), 'ABCDEF.0123456789abcdef'],
    ['malformed: no dot', tokenSecret('abcdef', good), 'abcdef0123456789abcdef'],
    ['malformed: trailing newline', tokenSecret('abcdef', good), 'abcdef.0123456789abcdef\n'],
    ['no such Secret (deleted)', undefined, 'abcdef.0123456789abcdef'],
    ['wrong secret part', tokenSecret('abcdef', good), 'abcdef.0123456789abcdee'],
    ['token-id differs from the name', tokenSecret('abcdef', { ...good, 'token-id': 'zzzzzz' }), 'abcdef.0123456789abcdef'],
    ['wrong type', tokenSecret('abcdef', good, { type: 'Opaque' }), 'abcdef.0123456789abcdef'],
    ['the other domain\'s type', tokenSecret('abcdef', good, { type: 'bootstrap.kubernetes.io/token' }), 'abcdef.0123456789abcdef'],
    ['no data', tokenSecret('abcdef', {}, { data: undefined }), 'abcdef.0123456789abcdef'],
    ['usage missing', tokenSecret('abcdef', { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' }), 'abcdef.0123456789abcdef'],
    ['usage not "true"', tokenSecret('abcdef', { ...good, 'usage-bootstrap-authentication': 'yes' }), 'abcdef.0123456789abcdef'],
    ['expired exactly now', tokenSecret('abcdef', { ...good, expiration: '2025-01-01T00:00:00Z' }), 'abcdef.0123456789abcdef'],
    ['expired (offset form)', tokenSecret('abcdef', { ...good, expiration: '2025-01-01T00:59:59+01:00' }), 'abcdef.0123456789abcdef'],
    ['unparseable expiration counts as expired', tokenSecret('abcdef', { ...good, expiration: 'tomorrow' }), 'abcdef.0123456789abcdef'],
    ['extra group outside system:bootstrappers:', tokenSecret('abcdef', { ...good, 'auth-extra-groups': 'system:masters' }), 'abcdef.0123456789abcdef'],
    ['empty extra group item', tokenSecret('abcdef', { ...good, 'auth-extra-groups': 'system:bootstrappers:a,' }), 'abcdef.0123456789abcdef'],
    ['being deleted', tokenSecret('abcdef', good, { metadata: { name: 'bootstrap-token-abcdef', deletionTimestamp: '2025-01-01T00:00:00Z' } }), 'abcdef.0123456789abcdef'],
  ];
  it.each(rows)('%s: no opinion', async (_name, secret, token) => {
    secrets.clear();
    if (secret !== undefined) secrets.set(secret.metadata.name!, secret);
    await expect(auth.authenticateToken(token)).resolves.toBeUndefined();
  });

  it('never logs the secret part', () => {
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected.join('\n')).not.toContain('0123456789abcde');
  });

  it('a failing lookup (cache not loaded) does not authenticate', async () => {
    const failing = bootstrapTokenAuthenticator({ secretType: platformType, secret: () => Promise.reject(new Error('storage is (re)initializing')) });
    await expect(failing.authenticateToken('abcdef.0123456789abcdef')).resolves.toBeUndefined();
  });
});

describe('bootstrap token format', () => {
  it('parses tokens', () => {
    expect(parseBootstrapToken('abc123.0123456789abcdef')).toEqual({ id: 'abc123', secret: '0123456789abcdef' });
    expect(parseBootstrapToken('abc12.0123456789abcdef')).toBeUndefined();
  });

  it.each([
    ['2025-01-01T00:00:00Z', Date.parse('2025-01-01T00:00:00Z')],
    ['2025-01-01T00:00:00.5Z', Date.parse('2025-01-01T00:00:00.500Z')],
    ['2025-01-01T02:00:00+02:00', Date.parse('2025-01-01T00:00:00Z')],
    ['2024-02-29T00:00:00Z', Date.parse('2024-02-29T00:00:00Z')],
    ['2025-02-29T00:00:00Z', undefined],
    ['2025-01-01 00:00:00Z', undefined],
    ['2025-01-01T00:00:00', undefined],
    ['2025-13-01T00:00:00Z', undefined],
  ])('RFC 3339 %j', (text, ms) => {
    expect(parseRfc3339(text)).toBe(ms);
  });

  it('names the bad extra group', () => {
    expect(tokenGroups(tokenSecret('abcdef', { 'auth-extra-groups': 'system:bootstrappers:ok,admins' }))).toEqual({
      error: expect.stringContaining('bootstrap group "admins" is invalid') as unknown,
    });
  });
});
