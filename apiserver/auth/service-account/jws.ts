/**
 * Compact JWS (RFC 7515) signing and verification for service account tokens, with Node's crypto: RS256
 * (RSASSA-PKCS1-v1_5) and ES256/ES384/ES512 (ECDSA, signatures in the JOSE r||s form). No JWT library:
 * these four algorithms are a few lines each over `crypto.sign`/`crypto.verify`, and the server both
 * writes and reads every token it accepts, so a library's breadth (JWE, key fetching, other algorithms) is
 * surface we would not use. What a library adds in safety is done here explicitly: the algorithm comes
 * from the KEY, never from the token header alone (a header naming another algorithm, `none` or HS256
 * fails), and every part is strictly base64url.
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import type { SigningAlgorithm, SigningKey, VerificationKey } from './keys.js';
import { isObject } from '../../api/json.js';

const hashOf: Record<SigningAlgorithm, string> = { RS256: 'sha256', ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' };

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');
const b64urlPart = /^[A-Za-z0-9_-]*$/;

/** Signs `payload` (a JSON-serializable object) with the key; the header is `{alg, kid}` as kube writes it. */
export function signJws(payload: unknown, key: SigningKey): string {
  const header = b64url(JSON.stringify({ alg: key.alg, kid: key.kid }));
  const body = b64url(JSON.stringify(payload));
  const input = `${header}.${body}`;
  return `${input}.${b64url(rawSign(key.alg, key.privateKey, Buffer.from(input)))}`;
}

function rawSign(alg: SigningAlgorithm, key: KeyObject, data: Buffer): Buffer {
  return alg === 'RS256' ? sign(hashOf[alg], data, key) : sign(hashOf[alg], data, { key, dsaEncoding: 'ieee-p1363' });
}

function rawVerify(alg: SigningAlgorithm, key: KeyObject, data: Buffer, sig: Buffer): boolean {
  try {
    return alg === 'RS256' ? verify(hashOf[alg], data, key, sig) : verify(hashOf[alg], data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  } catch {
    return false;
  }
}

export interface ParsedJws {
  readonly header: Record<string, unknown>;
  readonly payload: Record<string, unknown>;
  readonly signingInput: Buffer;
  readonly signature: Buffer;
}

function decodeJsonPart(part: string): Record<string, unknown> | undefined {
  if (!b64urlPart.test(part)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Splits and decodes a compact JWS without checking the signature; undefined when it is not one. */
export function parseJws(token: string): ParsedJws | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  if (!b64urlPart.test(s)) return undefined;
  const header = decodeJsonPart(h);
  const payload = decodeJsonPart(p);
  if (header === undefined || payload === undefined) return undefined;
  return { header, payload, signingInput: Buffer.from(`${h}.${p}`), signature: Buffer.from(s, 'base64url') };
}

/**
 * The key among `keys` whose signature `jws` carries, or undefined. The key named by the header's `kid`
 * is tried first, then the others (kube tries every key: a token may come from a server that wrote no
 * kid). A key only verifies with its own algorithm, which the header must name.
 */
export function verifyJws(jws: ParsedJws, keys: readonly VerificationKey[]): VerificationKey | undefined {
  const alg = jws.header.alg;
  const kid = jws.header.kid;
  const ordered = typeof kid === 'string' ? [...keys.filter((k) => k.kid === kid), ...keys.filter((k) => k.kid !== kid)] : keys;
  for (const k of ordered) {
    if (k.alg !== alg) continue;
    if (rawVerify(k.alg, k.publicKey, jws.signingInput, jws.signature)) return k;
  }
  return undefined;
}
