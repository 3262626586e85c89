import { randomBytes } from 'node:crypto';
import { parseEncryptionConfig } from './encryption-config.js';
import { compileConfig, resourceOfKey } from './resource-transformers.js';

const b64 = (n: number): string => randomBytes(n).toString('base64');
const K32 = b64(32);

function doc(resources: string, apiVersion = 'apiserver.config.k8s.io/v1'): string {
  return `apiVersion: ${apiVersion}\nkind: EncryptionConfiguration\nresources:\n${resources}`;
}
const parse = (text: string, domain = 'k8s.io') => parseEncryptionConfig(text, domain);
const errorOf = (text: string, domain = 'k8s.io'): string => {
  try {
    parse(text, domain);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
};

describe('EncryptionConfiguration parsing', () => {
  it('reads every provider type, keys decoded, in file order', () => {
    const c = parse(doc(`  - resources: [secrets, configmaps]
    providers:
      - aesgcm: {keys: [{name: g1, secret: ${b64(16)}}]}
      - aescbc: {keys: [{name: c1, secret: ${b64(24)}}, {name: c2, secret: ${K32}}]}
      - secretbox: {keys: [{name: s1, secret: ${K32}}]}
      - identity: {}
`));
    expect(c.resources[0]!.resources).toEqual(['secrets', 'configmaps']);
    expect(c.resources[0]!.providers.map((p) => p.type)).toEqual(['aesgcm', 'aescbc', 'secretbox', 'identity']);
    const cbc = c.resources[0]!.providers[1]!;
    expect(cbc.type === 'aescbc' && cbc.keys.map((k) => [k.name, k.secret.length])).toEqual([['c1', 24], ['c2', 32]]);
  });

  it('accepts apiserver.config.<domain>/v1 in platform mode, and kube\'s group too', () => {
    const body = `  - resources: [secrets]\n    providers: [{identity: {}}]\n`;
    expect(() => parse(doc(body, 'apiserver.config.platform.io/v1'), 'platform.io')).not.toThrow();
    expect(() => parse(doc(body), 'platform.io')).not.toThrow();
    expect(errorOf(doc(body, 'apiserver.config.platform.io/v1'), 'k8s.io')).toContain('no kind "EncryptionConfiguration" is registered for version "apiserver.config.platform.io/v1"');
    expect(errorOf(doc(body, 'apiserver.config.k8s.io/v1beta1'))).toContain('is registered for version "apiserver.config.k8s.io/v1beta1"');
  });

  it('refuses unknown and duplicate fields (strict decoding)', () => {
    expect(errorOf(doc(`  - resources: [secrets]\n    provider: [{identity: {}}]\n`))).toContain('strict decoding error: unknown field "resources[0].provider"');
    expect(errorOf(doc(`  - resources: [secrets]\n    providers: [{aescbc: {keys: [{name: a, secret: ${K32}, extra: 1}]}}]\n`)))
      .toContain('unknown field "resources[0].providers[0].aescbc.keys[0].extra"');
    expect(errorOf('apiVersion: apiserver.config.k8s.io/v1\napiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n')).toMatch(/error decoding/);
  });

  it.each([
    ['no entries', '  []', 'resources: Required value: at least one resources is required'],
    ['no resources', `  - resources: []\n    providers: [{identity: {}}]`, 'resources[0].resources: Required value: at least one resources[0].resources is required'],
    ['no providers', `  - resources: [secrets]\n    providers: []`, 'resources[0].providers: Required value: at least one resources[0].providers is required'],
    ['a duplicate', `  - resources: [secrets, secrets]\n    providers: [{identity: {}}]`,
      'resources[0].resources: Invalid value: []string{"secrets", "secrets"}: the same resource cannot be specified multiple times'],
    ['an overlap', `  - resources: [secrets, "*."]\n    providers: [{identity: {}}]`,
      "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"],
    ['*.* with another', `  - resources: ["*.*", configmaps.apps]\n    providers: [{identity: {}}]`, 'in the same resource list is not allowed'],
    ['capitals', `  - resources: [Secrets]\n    providers: [{identity: {}}]`, 'resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters'],
    ['a bare star', `  - resources: ["*"]\n    providers: [{identity: {}}]`, "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources"],
    ['an allocation', `  - resources: [serviceipallocations]\n    providers: [{identity: {}}]`, 'resources which do not have REST API/s cannot be encrypted'],
    ['events.k8s.io', `  - resources: ["*.events.k8s.io"]\n    providers: [{identity: {}}]`, "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file"],
    ['extensions', `  - resources: [deployments.extensions]\n    providers: [{identity: {}}]`, "'extensions' group has been removed and cannot be used for encryption"],
    ['resource.*', `  - resources: ["secrets.*"]\n    providers: [{identity: {}}]`, 'encrypting the same resource across groups is not supported'],
    ['an empty provider', `  - resources: [secrets]\n    providers: [{}]`, 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'],
    ['two in one provider', `  - resources: [secrets]\n    providers: [{identity: {}, aescbc: {keys: [{name: a, secret: ${K32}}]}}]`,
      'more than one provider specified in a single element, should split into different list elements'],
    ['no keys', `  - resources: [secrets]\n    providers: [{aescbc: {keys: []}}]`, 'resources[0].providers[0].aescbc.keys: Required value: at least one keys is required'],
    ['a nameless key', `  - resources: [secrets]\n    providers: [{aesgcm: {keys: [{secret: ${K32}}]}}]`, 'resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key'],
    ['a secretless key', `  - resources: [secrets]\n    providers: [{aesgcm: {keys: [{name: a}]}}]`, 'keys[0].secret: Required value: secret is a mandatory field for a key'],
    ['bad base64', `  - resources: [secrets]\n    providers: [{aescbc: {keys: [{name: a, secret: "not base64!"}]}}]`, 'keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded'],
    ['a short aes key', `  - resources: [secrets]\n    providers: [{aescbc: {keys: [{name: a, secret: ${b64(8)}}]}}]`,
      'resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]'],
    ['a 16-byte secretbox key', `  - resources: [secrets]\n    providers: [{secretbox: {keys: [{name: a, secret: ${b64(16)}}]}}]`,
      'secret is not of the expected length, got 16, expected one of [32]'],
    ['kms', `  - resources: [secrets]\n    providers: [{kms: {name: x, endpoint: "unix:///tmp/x"}}]`, 'KMS providers are not supported by this server'],
    ['masked by *.', `  - resources: ["*."]\n    providers: [{identity: {}}]\n  - resources: [secrets]\n    providers: [{identity: {}}]`,
      'resource "secrets" is masked by earlier rule "*."'],
    ['masked by *.*', `  - resources: ["*.*"]\n    providers: [{identity: {}}]\n  - resources: [deployments.apps]\n    providers: [{identity: {}}]`,
      'resource "deployments.apps" is masked by earlier rule "*.*"'],
  ])('refuses %s with kube\'s message', (_what, body, message) => {
    expect(errorOf(doc(`${body}\n`))).toContain(message);
  });

  it('never prints a key in a message, whatever is wrong with the file', () => {
    const secret = b64(9);
    const good = b64(32);
    expect(errorOf(doc(`  - resources: [secrets]\n    providers: [{aescbc: {keys: [{name: a, secret: ${secret}}]}}]\n`))).not.toContain(secret);
    // No kind, a list instead of an object, a YAML error: the document is never quoted.
    const body = `resources:\n  - resources: [secrets]\n    providers: [{aescbc: {keys: [{name: a, secret: ${good}}]}}]\n`;
    for (const text of [body, `- ${good}\n`, `${body}resources: []\n`, `kind: EncryptionConfiguration\napiVersion: v9\n${body}`]) {
      expect(errorOf(text)).not.toContain(good);
    }
  });

  it('aggregates several errors as kube does', () => {
    expect(errorOf(doc(`  - resources: [Secrets]\n    providers: []\n`))).toMatch(/^error while parsing file: \[resources\[0\]\.resources\[0\]: .*, resources\[0\]\.providers: Required value/);
  });
});

describe('resource matching', () => {
  const compiled = compileConfig(parse(doc(`  - resources: [secrets]
    providers: [{aescbc: {keys: [{name: k1, secret: ${K32}}]}}]
  - resources: ["*.apps"]
    providers: [{secretbox: {keys: [{name: s1, secret: ${K32}}]}}]
  - resources: [secrets]
    providers: [{aesgcm: {keys: [{name: g1, secret: ${K32}}]}}]
  - resources: ["*.*"]
    providers: [{aesgcm: {keys: [{name: g1, secret: ${K32}}]}}]
`)), 'k8s:enc:');
  const v = new Uint8Array(Buffer.from('{}'));
  const prefixOf = (type: string): string => Buffer.from(compiled.forResource(type).toStorage(v, '/k')).toString('latin1').split(':').slice(0, 5).join(':');

  it('exact entry first (the first entry naming it writes), then *.<group>, then *.*', () => {
    expect(prefixOf('secrets')).toBe('k8s:enc:aescbc:v1:k1');
    expect(prefixOf('deployments.apps')).toBe('k8s:enc:secretbox:v1:s1');
    expect(prefixOf('configmaps')).toBe('k8s:enc:aesgcm:v1:g1');
    expect(prefixOf('widgets.example.com')).toBe('k8s:enc:aesgcm:v1:g1');
    // The second entry naming secrets reads them (appended providers).
    const gcm = compileConfig(parse(doc(`  - resources: [secrets]\n    providers: [{aesgcm: {keys: [{name: g1, secret: ${K32}}]}}]\n`)), 'k8s:enc:');
    const written = gcm.forResource('secrets').toStorage(v, '/k');
    expect(compiled.forResource('secrets').fromStorage(written, '/k').stale).toBe(true);
  });

  it('uses the domain word in platform mode', () => {
    const c = compileConfig(parse(doc(`  - resources: [secrets]\n    providers: [{aescbc: {keys: [{name: key1, secret: ${K32}}]}}]\n`, 'apiserver.config.platform.io/v1'), 'platform.io'), 'platform:enc:');
    expect(Buffer.from(c.forResource('secrets').toStorage(v, '/k')).toString('latin1')).toMatch(/^platform:enc:aescbc:v1:key1:/);
  });

  it('leaves unconfigured resources in plaintext, refusing encrypted values there', () => {
    const only = compileConfig(parse(doc(`  - resources: [secrets]\n    providers: [{aescbc: {keys: [{name: k1, secret: ${K32}}]}}]\n`)), 'k8s:enc:');
    expect(only.covers('configmaps')).toBe(false);
    expect(only.forResource('configmaps').toStorage(v, '/k')).toBe(v);
    const enc = only.forResource('secrets').toStorage(v, '/k');
    expect(() => only.forResource('configmaps').fromStorage(enc, '/k')).toThrow('identity transformer tried to read encrypted data');
  });

  it('finds the resource of a key from the layout', () => {
    const layout = { prefix: '/registry', builtin: new Map([['secrets', 'secrets'], ['deployments', 'deployments.apps']]) };
    expect(resourceOfKey('/registry/secrets/ns/a', layout)).toBe('secrets');
    expect(resourceOfKey('/registry/deployments/ns/a', layout)).toBe('deployments.apps');
    expect(resourceOfKey('/registry/example.com/widgets/ns/a', layout)).toBe('widgets.example.com');
    expect(resourceOfKey('/registry/compact_rev_key', layout)).toBeUndefined();
    expect(resourceOfKey('/registry/ranges/serviceips', layout)).toBeUndefined();
    expect(resourceOfKey('/other/secrets/ns/a', layout)).toBeUndefined();
  });
});
