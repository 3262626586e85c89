/**
 * Service account token keys: the signing key (`--service-account-signing-key-file`) and the verification
 * keys (`--service-account-key-file`, repeatable), as kube-apiserver reads them. A key file may hold
 * several PEM blocks; each public key, private key (its public half is used) or certificate (its subject
 * public key) is one verification key. RSA keys sign and verify RS256; ECDSA keys ES256, ES384 or ES512
 * by curve (P-256, P-384, P-521), as kube picks the algorithm from the key. Other key types are refused
 * with the file named.
 *
 * A key's id (`kid` in token headers and the JWKS) is kube's: the unpadded base64url SHA-256 of the
 * public key's PKIX (SubjectPublicKeyInfo) DER, so tokens and JWKS documents match what kube would write
 * for the same key.
 */
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface VerificationKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly publicKey: KeyObject;
}

export interface SigningKey extends VerificationKey {
  readonly privateKey: KeyObject;
}

/** The JWS algorithm a key signs with, or an error message. */
function algorithmOf(key: KeyObject): SigningAlgorithm | string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    return `unsupported ECDSA curve ${curve ?? '(unknown)'}`;
  }
  return `unsupported key type ${key.asymmetricKeyType ?? '(unknown)'} (RSA or ECDSA expected)`;
}

/** kube's key id: base64url(SHA-256(PKIX DER of the public key)), unpadded. */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

function verificationKey(publicKey: KeyObject, where: string): VerificationKey {
  const alg = algorithmOf(publicKey);
  if (!isAlgorithm(alg)) throw new Error(`${where}: ${alg}`);
  return Object.freeze({ kid: keyId(publicKey), alg, publicKey });
}

function isAlgorithm(a: string): a is SigningAlgorithm {
  return a === 'RS256' || a === 'ES256' || a === 'ES384' || a === 'ES512';
}

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

/**
 * The verification keys of one PEM text (`where` names it in errors). Throws when a block cannot be
 * parsed or the text holds no key at all.
 */
export function parseVerificationKeys(pem: string, where: string): VerificationKey[] {
  const out: VerificationKey[] = [];
  for (const m of pem.matchAll(pemBlock)) {
    const [block, label] = m;
    let pub: KeyObject;
    try {
      if (label === 'CERTIFICATE') pub = new X509Certificate(block).publicKey;
      else if (label!.endsWith('PRIVATE KEY')) pub = createPublicKey(createPrivateKey(block));
      else if (label!.endsWith('PUBLIC KEY')) pub = createPublicKey(block);
      else continue; // other blocks (parameters) carry no key, as kube skips them
    } catch (err) {
      throw new Error(`${where}: cannot parse the ${label} block: ${(err as Error).message}`);
    }
    out.push(verificationKey(pub, where));
  }
  if (out.length === 0) throw new Error(`${where}: no public or private key found (PEM expected)`);
  return out;
}

/** The signing key of a PEM text: its first private key block. */
export function parseSigningKey(pem: string, where: string): SigningKey {
  for (const m of pem.matchAll(pemBlock)) {
    const [block, label] = m;
    if (!label!.endsWith('PRIVATE KEY')) continue;
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(block);
    } catch (err) {
      throw new Error(`${where}: cannot parse the ${label} block: ${(err as Error).message}`);
    }
    const v = verificationKey(createPublicKey(privateKey), where);
    return Object.freeze({ ...v, privateKey });
  }
  throw new Error(`${where}: no private key found (PEM expected)`);
}

export async function readVerificationKeys(path: string, flag: string): Promise<VerificationKey[]> {
  return parseVerificationKeys(await readKeyFile(path, flag), `${flag} ${path}`);
}

export async function readSigningKey(path: string, flag: string): Promise<SigningKey> {
  return parseSigningKey(await readKeyFile(path, flag), `${flag} ${path}`);
}

async function readKeyFile(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Verification keys without duplicates (the same key given twice, or the signing key also listed). */
export function uniqueKeys(keys: readonly VerificationKey[]): VerificationKey[] {
  const seen = new Set<string>();
  return keys.filter((k) => !seen.has(k.kid) && (seen.add(k.kid), true));
}
