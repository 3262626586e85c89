import type { KubeObject } from '../../../api/object.js';
import { generateCa } from '../../../tls/generate-certs.js';
import { errorString } from '../../../validation/field-error.js';
import { testContext } from '../shared/test-context.js';
import { secrets } from './secret.js';

const ctx = testContext();
const k8s = testContext('k8s.io');
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

const secret = (fields: Record<string, unknown> = {}, meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z', ...meta },
  ...fields,
});

/** Create path: prepare then validate, as the registry runs them. */
function create(obj: KubeObject, c = ctx): string[] {
  secrets.prepareForCreate(obj);
  return secrets.validate(obj, c).map(errorString);
}

function update(obj: KubeObject, old: KubeObject, c = ctx): string[] {
  secrets.prepareForUpdate(obj);
  return [...secrets.validate(obj, c), ...secrets.validateUpdate(obj, old)].map(errorString);
}

describe('identity and schema', () => {
  test('discovery data', () => {
    expect(secrets.resource).toBe('secrets');
    expect(secrets.namespaced).toBe(true);
    expect(secrets).not.toHaveProperty('shortNames');
    expect(Object.isFrozen(secrets)).toBe(true);
  });

  test('schema: data is base64 bytes, stringData strings, apiVersion/kind/metadata first', () => {
    const props = secrets.schema.properties!;
    expect(Object.keys(props)).toEqual(['apiVersion', 'kind', 'metadata', 'data', 'immutable', 'stringData', 'type']);
    expect(props.data!.additionalProperties).toEqual({ type: 'string', format: 'byte' });
    expect(props.stringData!.additionalProperties).toMatchObject({ type: 'string' });
    expect(props.immutable!.type).toBe('boolean');
  });
});

describe('prepare hooks', () => {
  test('a typical secret round-trips; type defaults to Opaque', () => {
    const obj = secret({ data: { user: b64('admin') } });
    expect(create(obj)).toEqual([]);
    expect(obj).toEqual(secret({ data: { user: b64('admin') }, type: 'Opaque' }));
  });

  test('stringData is merged into data (overwriting) and dropped', () => {
    const obj = secret({ data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'new', c: 'é' } });
    expect(create(obj)).toEqual([]);
    expect(obj.data).toEqual({ a: b64('new'), b: b64('keep'), c: b64('é') });
    expect(obj).not.toHaveProperty('stringData');
  });

  test('stringData alone creates data; on update too', () => {
    const obj = secret({ stringData: { x: 'y' } });
    secrets.prepareForUpdate(obj);
    expect(obj.data).toEqual({ x: b64('y') });
    expect(obj).not.toHaveProperty('stringData');
  });

  test('canonicalize drops stringData', () => {
    const obj = secret({ stringData: { x: 'y' } });
    secrets.canonicalize(obj);
    expect(obj).not.toHaveProperty('stringData');
  });
});

describe('validation', () => {
  test('keys must be config keys (stringData keys too, after the merge)', () => {
    expect(create(secret({ data: { 'a b': b64('x') } }))).toEqual([
      `data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
    expect(create(secret({ stringData: { '..x': 'y' } }))).toEqual([`data[..x]: Invalid value: "..x": must not start with '..'`]);
  });

  test('total size at most 1 MiB', () => {
    const half = Buffer.alloc(512 * 1024).toString('base64');
    expect(create(secret({ data: { a: half, b: half } }))).toEqual([]);
    expect(create(secret({ data: { a: half, b: half, c: b64('x') } }))).toEqual(['data: Too long: must have at most 1048576 bytes']);
  });

  test('service-account-token needs the service-account.name annotation', () => {
    expect(create(secret({ type: 'platform.io/service-account-token' }))).toEqual([
      'metadata.annotations[platform.io/service-account.name]: Required value',
    ]);
    expect(create(secret({ type: 'kubernetes.io/service-account-token' }), k8s)).toEqual([
      'metadata.annotations[kubernetes.io/service-account.name]: Required value',
    ]);
    expect(create(secret({ type: 'kubernetes.io/service-account-token' }, { annotations: { 'kubernetes.io/service-account.name': 'sa' } }), k8s)).toEqual([]);
  });

  test('dockercfg and dockerconfigjson need their key holding a JSON object', () => {
    expect(create(secret({ type: 'platform.io/dockercfg' }))).toEqual(['data[.dockercfg]: Required value']);
    expect(create(secret({ type: 'platform.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[1]') } }))).toEqual([
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
    ]);
    expect(create(secret({ type: 'platform.io/dockerconfigjson', data: { '.dockerconfigjson': '' } }))).toEqual([
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input',
    ]);
    expect(create(secret({ type: 'platform.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{nope') } }))).toHaveLength(1);
    expect(create(secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }), k8s)).toEqual([]);
  });

  test('basic-auth needs username or password', () => {
    expect(create(secret({ type: 'platform.io/basic-auth' }))).toEqual(['data[username]: Required value', 'data[password]: Required value']);
    expect(create(secret({ type: 'platform.io/basic-auth', stringData: { password: '' } }))).toEqual([]);
  });

  test('ssh-auth needs a non-empty ssh-privatekey', () => {
    expect(create(secret({ type: 'platform.io/ssh-auth', data: { 'ssh-privatekey': '' } }))).toEqual(['data[ssh-privatekey]: Required value']);
    expect(create(secret({ type: 'platform.io/ssh-auth', stringData: { 'ssh-privatekey': 'k' } }))).toEqual([]);
  });

  test('tls needs tls.crt and tls.key', () => {
    expect(create(secret({ type: 'platform.io/tls' }))).toEqual(['data[tls.crt]: Required value', 'data[tls.key]: Required value']);
    expect(create(secret({ type: 'platform.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }))).toEqual([]);
  });

  test('bootstrap tokens need token-id and token-secret, under the domain', () => {
    expect(create(secret({ type: 'bootstrap.platform.io/token', stringData: { 'token-id': 'abcdef' } }))).toEqual([
      'data[token-secret]: Required value',
    ]);
    expect(create(secret({ type: 'bootstrap.kubernetes.io/token' }), k8s)).toEqual(['data[token-id]: Required value', 'data[token-secret]: Required value']);
  });

  test('unknown types need nothing', () => {
    expect(create(secret({ type: 'example.com/custom' }))).toEqual([]);
  });
});

describe('update', () => {
  const old = secret({ type: 'Opaque', data: { a: b64('1') } });

  test('type is immutable', () => {
    expect(update(secret({ type: 'platform.io/basic-auth', data: { username: '' } }), old)).toEqual([
      'type: Invalid value: "platform.io/basic-auth": field is immutable',
    ]);
    // An omitted type defaults to Opaque, so it is no change.
    expect(update(secret({ data: { a: b64('2') } }), old)).toEqual([]);
  });

  test('immutable secrets keep data and the flag', () => {
    const frozen = secret({ type: 'Opaque', data: { a: b64('1') }, immutable: true });
    expect(update(secret({ data: { a: b64('1') }, immutable: true }, { labels: { x: 'y' } }), frozen)).toEqual([]);
    expect(update(secret({ stringData: { a: '2' }, immutable: true }), frozen)).toEqual(['data: Forbidden: field is immutable when `immutable` is set']);
    expect(update(secret({ data: { a: b64('1') } }), frozen)).toEqual(['immutable: Forbidden: field is immutable when `immutable` is set']);
    expect(update(secret({ data: { a: b64('1') }, immutable: false }), frozen)).toHaveLength(1);
    // While not true it may change freely.
    expect(update(secret({ data: { b: b64('3') }, immutable: true }), old)).toEqual([]);
  });
});

describe('table and fields', () => {
  test('NAME TYPE DATA AGE', () => {
    expect(secrets.table.columns.map((c) => c.name)).toEqual(['Name', 'Type', 'Data', 'Age']);
    const obj = secret({ type: 'Opaque', data: { a: 'YQ==', b: 'Yg==' } });
    expect(secrets.table.cells(obj, new Date('2024-01-01T03:04:05Z'))).toEqual(['s', 'Opaque', 2, '3h4m']);
    expect(secrets.table.cells(secret(), new Date('2024-01-01T00:00:05Z'))).toEqual(['s', '', 0, '5s']);
  });

  test('type is selectable', () => {
    expect(secrets.selectableFields.type(secret({ type: 'platform.io/tls' }))).toBe('platform.io/tls');
    expect(secrets.selectableFields.type(secret())).toBe('');
  });
});

describe('warnings', () => {
  test('a TLS secret whose key does not match its certificate warns', () => {
    const objs = secret({ type: 'platform.io/tls', data: { 'tls.crt': b64('nope'), 'tls.key': b64('nope') } });
    expect(secrets.warnings(objs, undefined, ctx)).toEqual(['tls: failed to find any PEM data in certificate input']);
    expect(secrets.warnings(secret({ type: 'Opaque' }), undefined, ctx)).toEqual([]);
  });

  test('a matching pair does not warn; a foreign key does', async () => {
    const a = await generateCa('a');
    const b = await generateCa('b');
    const tls = (cert: string, key: string): KubeObject => secret({ type: 'platform.io/tls', stringData: { 'tls.crt': cert, 'tls.key': key } });
    const ok = tls(a.certPem, a.keyPem);
    secrets.prepareForCreate(ok);
    expect(secrets.warnings(ok, undefined, ctx)).toEqual([]);
    const bad = tls(a.certPem, b.keyPem);
    secrets.prepareForCreate(bad);
    expect(secrets.warnings(bad, undefined, ctx)).toEqual(['tls: private key does not match public key']);
    const noKey = tls(a.certPem, 'x');
    secrets.prepareForCreate(noKey);
    expect(secrets.warnings(noKey, undefined, ctx)).toEqual(['tls: failed to find any PEM data in key input']);
  });
});
