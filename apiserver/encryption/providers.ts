/**
 * The value transformers of encryption at rest, with kube-apiserver 1.32's formats byte for byte (so a
 * value written by one reads in the other, given the same key and prefix word) and its error messages:
 *
 * - identity: the value as it is. Reading a value that starts with the encrypted prefix (`k8s:enc:`, or
 *   the documents' word in platform mode) fails ("identity transformer tried to read encrypted data"), so
 *   an identity provider listed first does not swallow ciphertext.
 * - aescbc: AES-CBC with PKCS#7 padding, a random 16-byte IV before the ciphertext. No integrity: a
 *   tampered value decrypts to garbage or fails the padding check (kube recommends against it; kept for
 *   compatibility).
 * - aesgcm: AES-GCM, a random 12-byte nonce before the ciphertext and the 16-byte tag after it (Go's
 *   `Seal` layout), the store key as additional authenticated data. kube's static-key scheme: random
 *   nonces, so keys must be rotated well before 2^32 writes.
 * - secretbox: NaCl secretbox (XSalsa20-Poly1305), a random 24-byte nonce before the box. Node's crypto
 *   has no XSalsa20, so this uses `tweetnacl` (pinned; a small, dependency-free, audited port of NaCl that
 *   produces exactly NaCl's `crypto_secretbox` output, which Go's `nacl/secretbox` reads).
 *
 * `prefixTransformers` is kube's NewPrefixTransformers: the first entry writes (its prefix prepended);
 * reading tries every entry whose prefix matches, in order, and a read by any entry but the first is stale.
 * A matching entry that fails does not stop the search (two aescbc providers share a prefix during a
 * rotation); an empty-prefix (identity) failure is skipped silently. Providers are built from it twice:
 * the keys of one provider (`<name>:` prefixes), then the providers of one resource
 * (`k8s:enc:<provider>:v1:` prefixes).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import type { TransformedValue, ValueTransformer } from '../../storage/transforming-store.js';

export interface PrefixTransformer {
  readonly prefix: Uint8Array;
  readonly transformer: ValueTransformer;
}

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** kube's error aggregate: one error as it is, several as `[a, b]`. */
function aggregate(errs: readonly Error[]): Error {
  return errs.length === 1 ? errs[0]! : new Error(`[${errs.map((e) => e.message).join(', ')}]`);
}

/**
 * Where transformations are counted and timed (kube's RecordTransformation:
 * `apiserver_storage_transformation_operations_total` and `_duration_seconds`). `prefix` is the matched
 * entry's prefix as text (`k8s:enc:aescbc:v1:`, a key's `key1:`: both levels record, as in kube),
 * `identity` for the empty prefix, `unknown` when nothing matched; `seconds` counts only when `ok`.
 */
export interface TransformRecorder {
  record(type: 'from_storage' | 'to_storage', prefix: string, seconds: number, ok: boolean): void;
}

/** kube's NewPrefixTransformers (see the file comment); `noMatch` is the error when no prefix matches. */
export function prefixTransformers(noMatch: string, entries: readonly PrefixTransformer[], recorder?: TransformRecorder): ValueTransformer {
  if (entries.length === 0) throw new Error('prefixTransformers: no transformers');
  const first = entries[0]!;
  const labels = entries.map((e) => (e.prefix.length === 0 ? 'identity' : Buffer.from(e.prefix).toString('latin1')));
  const since = (start: number): number => (performance.now() - start) / 1000;
  return {
    fromStorage(stored, key) {
      const start = recorder === undefined ? 0 : performance.now();
      const errs: Error[] = [];
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        if (!startsWith(stored, e.prefix)) continue;
        let out: TransformedValue;
        try {
          out = e.transformer.fromStorage(stored.subarray(e.prefix.length), key);
        } catch (err) {
          // An identity that refuses encrypted data is skipped silently (kube records nothing for it).
          if (e.prefix.length > 0) {
            errs.push(err instanceof Error ? err : new Error(String(err)));
            recorder?.record('from_storage', labels[i]!, since(start), false);
          }
          continue;
        }
        recorder?.record('from_storage', labels[i]!, since(start), true);
        return i === 0 ? out : { value: out.value, stale: true };
      }
      if (errs.length > 0) throw aggregate(errs);
      recorder?.record('from_storage', 'unknown', since(start), false);
      throw new Error(noMatch);
    },
    toStorage(plain, key) {
      const start = recorder === undefined ? 0 : performance.now();
      let body: Uint8Array;
      try {
        body = first.transformer.toStorage(plain, key);
      } catch (err) {
        recorder?.record('to_storage', labels[0]!, since(start), false);
        throw err;
      }
      recorder?.record('to_storage', labels[0]!, since(start), true);
      return concat(first.prefix, body);
    },
  };
}

/** identity: plaintext, refusing to read values that carry `encryptedPrefix` (`k8s:enc:`). */
export function identityTransformer(encryptedPrefix: string): ValueTransformer {
  const reserved = Buffer.from(encryptedPrefix, 'latin1');
  return {
    fromStorage(stored) {
      if (startsWith(stored, reserved)) throw new Error('identity transformer tried to read encrypted data');
      return { value: stored, stale: false };
    },
    toStorage: (plain) => plain,
  };
}

const AES_BLOCK = 16;
const GCM_NONCE = 12;
const GCM_TAG = 16;

function aesName(key: Uint8Array, mode: 'cbc' | 'gcm'): string {
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) throw new Error(`crypto/aes: invalid key size ${key.length}`);
  return `aes-${key.length * 8}-${mode}`;
}

/** AES-CBC with PKCS#7 padding and a random IV prepended (kube's cbc transformer). */
export function aesCbcTransformer(key: Uint8Array): ValueTransformer {
  const algorithm = aesName(key, 'cbc');
  const k = Buffer.from(key);
  return {
    fromStorage(stored) {
      if (stored.length < AES_BLOCK) throw new Error('the stored data was shorter than the required size');
      const iv = stored.subarray(0, AES_BLOCK);
      const body = stored.subarray(AES_BLOCK);
      if (body.length % AES_BLOCK !== 0) throw new Error('the stored data is not a multiple of the block size');
      const d = createDecipheriv(algorithm, k, iv);
      d.setAutoPadding(false);
      const result = Buffer.concat([d.update(body), d.final()]);
      // The padding is checked here, not by OpenSSL, for kube's two messages.
      const pad = result.length === 0 ? 0 : result[result.length - 1]!;
      if (pad === 0 || pad > result.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = result.length - pad; i < result.length; i++) {
        if (result[i] !== pad) throw new Error('invalid padding on input');
      }
      return { value: result.subarray(0, result.length - pad), stale: false };
    },
    toStorage(plain) {
      const iv = randomBytes(AES_BLOCK);
      const c = createCipheriv(algorithm, k, iv);
      return Buffer.concat([iv, c.update(plain), c.final()]);
    },
  };
}

/** AES-GCM with a random 12-byte nonce prepended and the key as additional data (kube's gcm transformer). */
export function aesGcmTransformer(key: Uint8Array): ValueTransformer {
  const algorithm = aesName(key, 'gcm') as 'aes-256-gcm';
  const k = Buffer.from(key);
  return {
    fromStorage(stored, storeKey) {
      if (stored.length < GCM_NONCE) throw new Error('the stored data was shorter than the required size');
      if (stored.length < GCM_NONCE + GCM_TAG) throw new Error('cipher: message authentication failed');
      const nonce = stored.subarray(0, GCM_NONCE);
      const tag = stored.subarray(stored.length - GCM_TAG);
      const d = createDecipheriv(algorithm, k, nonce);
      d.setAAD(Buffer.from(storeKey, 'utf8'));
      d.setAuthTag(tag);
      try {
        return { value: Buffer.concat([d.update(stored.subarray(GCM_NONCE, stored.length - GCM_TAG)), d.final()]), stale: false };
      } catch {
        // Go's message for a tag that does not verify (wrong key, tampered value, another key's value).
        throw new Error('cipher: message authentication failed');
      }
    },
    toStorage(plain, storeKey) {
      const nonce = randomBytes(GCM_NONCE);
      const c = createCipheriv(algorithm, k, nonce);
      c.setAAD(Buffer.from(storeKey, 'utf8'));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
  };
}

const SECRETBOX_NONCE = nacl.secretbox.nonceLength; // 24
const SECRETBOX_OVERHEAD = nacl.secretbox.overheadLength; // 16

/** NaCl secretbox (XSalsa20-Poly1305) with a random 24-byte nonce prepended (kube's secretbox transformer). */
export function secretboxTransformer(key: Uint8Array): ValueTransformer {
  if (key.length !== nacl.secretbox.keyLength) throw new Error(`expected key size 32 for secretbox provider, got ${key.length}`);
  const k = new Uint8Array(key);
  return {
    fromStorage(stored) {
      if (stored.length < SECRETBOX_OVERHEAD + SECRETBOX_NONCE) throw new Error('the stored data was shorter than the required size');
      const opened = nacl.secretbox.open(stored.subarray(SECRETBOX_NONCE), stored.subarray(0, SECRETBOX_NONCE), k);
      // kube's message for a box that does not open (sic).
      if (opened === null) throw new Error('output array was not large enough for encryption');
      return { value: opened, stale: false };
    },
    toStorage(plain) {
      const nonce = new Uint8Array(randomBytes(SECRETBOX_NONCE));
      return concat(nonce, nacl.secretbox(plain, nonce, k));
    },
  };
}
