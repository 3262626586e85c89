import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { aesCbcTransformer, aesGcmTransformer, identityTransformer, prefixTransformers, secretboxTransformer } from './providers.js';

const KEY = '/registry/secrets/default/s1';
const text = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const str = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const plain = text('{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}');

const cases = [
  { name: 'aescbc', make: (k: Uint8Array) => aesCbcTransformer(k), sizes: [16, 24, 32] },
  { name: 'aesgcm', make: (k: Uint8Array) => aesGcmTransformer(k), sizes: [16, 24, 32] },
  { name: 'secretbox', make: (k: Uint8Array) => secretboxTransformer(k), sizes: [32] },
];

describe.each(cases)('$name', ({ make, sizes }) => {
  it.each(sizes)('round-trips with a %i-byte key, never storing the plaintext, with a fresh nonce each write', (size) => {
    const t = make(randomBytes(size));
    const a = t.toStorage(plain, KEY);
    const b = t.toStorage(plain, KEY);
    expect(Buffer.from(a).includes(Buffer.from('aHVudGVyMg=='))).toBe(false);
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).not.toBe(0);
    expect(str(t.fromStorage(a, KEY).value)).toBe(str(plain));
    expect(t.fromStorage(a, KEY).stale).toBe(false);
    expect(str(t.fromStorage(t.toStorage(new Uint8Array(0), KEY), KEY).value)).toBe('');
  });

  it('does not read with a wrong key', () => {
    const stored = make(randomBytes(32)).toStorage(plain, KEY);
    let out: string | undefined;
    try {
      out = str(make(randomBytes(32)).fromStorage(stored, KEY).value);
    } catch {
      out = undefined;
    }
    // CBC has no integrity: a wrong key fails the padding check or yields garbage, never the plaintext.
    expect(out).not.toBe(str(plain));
  });

  it('refuses too short values', () => {
    expect(() => make(randomBytes(32)).fromStorage(new Uint8Array(3), KEY)).toThrow(/shorter than the required size|authentication failed/);
  });
});

describe('authenticated providers', () => {
  it.each([
    ['aesgcm', aesGcmTransformer, 'cipher: message authentication failed'],
    ['secretbox', secretboxTransformer, 'output array was not large enough for encryption'],
  ] as const)('%s refuses a tampered value', (_name, make, message) => {
    const t = make(randomBytes(32));
    const stored = Buffer.from(t.toStorage(plain, KEY));
    stored[stored.length - 5]! ^= 0x01;
    expect(() => t.fromStorage(stored, KEY)).toThrow(message);
  });

  it('aesgcm binds a value to its store key (kube: the key is the authenticated data)', () => {
    const t = aesGcmTransformer(randomBytes(32));
    const stored = t.toStorage(plain, KEY);
    expect(() => t.fromStorage(stored, '/registry/secrets/default/other')).toThrow('cipher: message authentication failed');
  });

  it('aescbc reports bad lengths and padding with kube messages', () => {
    const t = aesCbcTransformer(randomBytes(16));
    expect(() => t.fromStorage(new Uint8Array(20), KEY)).toThrow('the stored data is not a multiple of the block size');
    const stored = Buffer.from(t.toStorage(plain, KEY));
    stored[stored.length - 1]! ^= 0xff;
    expect(() => t.fromStorage(stored, KEY)).toThrow(/invalid PKCS7 data|invalid padding on input/);
  });
});

describe('formats other implementations read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'enc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('aescbc: IV then AES-CBC/PKCS#7, as openssl decrypts it', () => {
    const key = randomBytes(32);
    const stored = Buffer.from(aesCbcTransformer(key).toStorage(plain, KEY));
    writeFileSync(join(dir, 'cbc.bin'), stored.subarray(16));
    const out = execFileSync('openssl', ['enc', '-d', '-aes-256-cbc', '-K', key.toString('hex'), '-iv', stored.subarray(0, 16).toString('hex'), '-in', join(dir, 'cbc.bin')]);
    expect(out.toString('utf8')).toBe(str(plain));
  });

  it('secretbox: nonce then the NaCl box (crypto_secretbox_open reads it)', () => {
    const key = randomBytes(32);
    const stored = secretboxTransformer(key).toStorage(plain, KEY);
    expect(stored.length).toBe(24 + 16 + plain.length);
    const opened = nacl.secretbox.open(stored.subarray(24), stored.subarray(0, 24), new Uint8Array(key));
    expect(opened && str(opened)).toBe(str(plain));
  });

  it('aesgcm: nonce, ciphertext, then the 16-byte tag (Go Seal layout)', () => {
    const stored = aesGcmTransformer(randomBytes(32)).toStorage(plain, KEY);
    expect(stored.length).toBe(12 + plain.length + 16);
  });
});

describe('identity', () => {
  it('passes values through and refuses encrypted ones', () => {
    const t = identityTransformer('k8s:enc:');
    expect(t.toStorage(plain, KEY)).toBe(plain);
    expect(str(t.fromStorage(plain, KEY).value)).toBe(str(plain));
    expect(() => t.fromStorage(text('k8s:enc:aescbc:v1:key1:xxxx'), KEY)).toThrow('identity transformer tried to read encrypted data');
  });
});

describe('prefixTransformers (kube NewPrefixTransformers)', () => {
  const k1 = aesCbcTransformer(randomBytes(32));
  const k2 = aesCbcTransformer(randomBytes(32));
  const p = (s: string): Uint8Array => text(s);

  it('writes with the first, reads with any matching prefix, marks reads by a later one stale', () => {
    const first = prefixTransformers('no match', [{ prefix: p('k1:'), transformer: k1 }, { prefix: p('k2:'), transformer: k2 }]);
    const second = prefixTransformers('no match', [{ prefix: p('k2:'), transformer: k2 }, { prefix: p('k1:'), transformer: k1 }]);
    const v = first.toStorage(plain, KEY);
    expect(str(v.subarray(0, 3))).toBe('k1:');
    expect(first.fromStorage(v, KEY).stale).toBe(false);
    const read = second.fromStorage(v, KEY);
    expect(read.stale).toBe(true);
    expect(str(read.value)).toBe(str(plain));
  });

  it('fails with its error when no prefix matches, and keeps trying after a failing match', () => {
    const t = prefixTransformers('no matching prefix found', [{ prefix: p('k1:'), transformer: k1 }]);
    expect(() => t.fromStorage(p('zz:abc'), KEY)).toThrow('no matching prefix found');
    // Two entries with one prefix (two aescbc providers during a rotation): the second one reads.
    const shared = prefixTransformers('none', [{ prefix: p('x:'), transformer: k2 }, { prefix: p('x:'), transformer: k1 }]);
    const v = prefixTransformers('none', [{ prefix: p('x:'), transformer: k1 }]).toStorage(plain, KEY);
    const out = shared.fromStorage(v, KEY);
    expect(str(out.value)).toBe(str(plain));
    expect(out.stale).toBe(true);
  });

  it('skips an identity (empty prefix) that refuses encrypted data', () => {
    const t = prefixTransformers('no matching prefix found', [
      { prefix: new Uint8Array(0), transformer: identityTransformer('k8s:enc:') },
      { prefix: p('k8s:enc:aescbc:v1:k1:'), transformer: k1 },
    ]);
    const v = prefixTransformers('x', [{ prefix: p('k8s:enc:aescbc:v1:k1:'), transformer: k1 }]).toStorage(plain, KEY);
    const out = t.fromStorage(v, KEY);
    expect(str(out.value)).toBe(str(plain));
    expect(out.stale).toBe(true);
    expect(t.toStorage(plain, KEY)).toEqual(plain);
  });
});

describe('transformation metrics (kube RecordTransformation)', () => {
  it('records each level\'s matched prefix, identity, unknown, and failures', () => {
    const calls: string[] = [];
    const recorder = { record: (type: string, prefix: string, _s: number, ok: boolean) => void calls.push(`${type} ${prefix} ${ok ? 'OK' : 'failed'}`) };
    const k1 = aesGcmTransformer(randomBytes(32));
    const keys = prefixTransformers('no key', [{ prefix: text('key1:'), transformer: k1 }], recorder);
    const t = prefixTransformers('no matching prefix found', [
      { prefix: text('k8s:enc:aesgcm:v1:'), transformer: keys },
      { prefix: new Uint8Array(0), transformer: identityTransformer('k8s:enc:') },
    ], recorder);
    const v = t.toStorage(plain, KEY);
    expect(calls.splice(0)).toEqual(['to_storage key1: OK', 'to_storage k8s:enc:aesgcm:v1: OK']);
    t.fromStorage(v, KEY);
    expect(calls.splice(0)).toEqual(['from_storage key1: OK', 'from_storage k8s:enc:aesgcm:v1: OK']);
    t.fromStorage(plain, KEY);
    expect(calls.splice(0)).toEqual(['from_storage identity OK']);
    const only = prefixTransformers('no matching prefix found', [{ prefix: text('k8s:enc:aesgcm:v1:'), transformer: keys }], recorder);
    expect(() => only.fromStorage(text('zzz'), KEY)).toThrow('no matching prefix found');
    expect(calls.splice(0)).toEqual(['from_storage unknown failed']);
    const tampered = Buffer.from(v);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => only.fromStorage(tampered, KEY)).toThrow('cipher: message authentication failed');
    expect(calls.splice(0)).toEqual(['from_storage key1: failed', 'from_storage k8s:enc:aesgcm:v1: failed']);
  });
});
