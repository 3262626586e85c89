/**
 * Kubernetes' `certificates.ParseCSR` + `CheckSignature`: the first PEM block of `spec.request` must be a
 * `CERTIFICATE REQUEST` holding a PKCS#10 request whose self-signature verifies. Parsing uses
 * `@peculiar/x509`; the signature is checked synchronously with Node's crypto (the registry's validation
 * hooks are synchronous; `Pkcs10CertificateRequest.verify()` is WebCrypto and asynchronous). Errors carry
 * Go's wording.
 */
import { constants, createPublicKey, verify } from 'node:crypto';
import { x509 } from '../../../tls/crypto-provider.js';
import { pemBlocks } from './pem-blocks.js';

export type ParsedCsr = InstanceType<typeof x509.Pkcs10CertificateRequest>;

export class CsrError extends Error {}

const HASHES: Readonly<Record<string, string>> = { 'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' };

/** The parsed request of PEM bytes; throws CsrError with Go's message. */
export function parseCsr(pem: Buffer | undefined): ParsedCsr {
  const block = pem === undefined ? undefined : pemBlocks(pem.toString('latin1'))[0];
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') throw new CsrError('PEM block type must be CERTIFICATE REQUEST');
  try {
    return new x509.Pkcs10CertificateRequest(block.bytes);
  } catch {
    throw new CsrError('x509: malformed certificate request');
  }
}

/** DER length at `at` (after the tag): [length, header bytes]. */
function derLength(der: Buffer, at: number): [number, number] {
  const first = der[at]!;
  if (first < 0x80) return [first, 1];
  const n = first & 0x7f;
  if (n === 0 || n > 4 || at + n >= der.length) throw new CsrError('x509: malformed certificate request');
  let len = 0;
  for (let i = 1; i <= n; i++) len = len * 256 + der[at + i]!;
  return [len, 1 + n];
}

/** The DER of the signed CertificationRequestInfo: the first element of the outer SEQUENCE. */
function signedPart(der: Buffer): Buffer {
  const [, outerHeader] = derLength(der, 1);
  const start = 1 + outerHeader;
  const [len, header] = derLength(der, start + 1);
  const end = start + 1 + header + len;
  if (end > der.length) throw new CsrError('x509: malformed certificate request');
  return der.subarray(start, end);
}

/** Throws CsrError unless the request's signature verifies with its own public key. */
export function checkCsrSignature(csr: ParsedCsr): void {
  const alg = csr.signatureAlgorithm as { name: string; hash?: { name: string } };
  const hash = alg.hash === undefined ? undefined : HASHES[alg.hash.name];
  let ok: boolean;
  try {
    const key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
    const data = signedPart(Buffer.from(csr.rawData));
    const sig = Buffer.from(csr.signature);
    switch (alg.name) {
      case 'ECDSA':
        ok = hash !== undefined && verify(hash, data, key, sig);
        if (!ok) throw new CsrError('x509: ECDSA verification failure');
        return;
      case 'RSASSA-PKCS1-v1_5':
        ok = hash !== undefined && verify(hash, data, key, sig);
        break;
      case 'RSA-PSS':
        ok = hash !== undefined && verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, sig);
        break;
      case 'Ed25519':
        ok = verify(null, data, key, sig);
        if (!ok) throw new CsrError('ed25519: invalid signature');
        return;
      default:
        throw new CsrError('x509: cannot verify signature: algorithm unimplemented');
    }
  } catch (err) {
    if (err instanceof CsrError) throw err;
    throw new CsrError('x509: malformed certificate request');
  }
  if (!ok) throw new CsrError('crypto/rsa: verification error');
}
