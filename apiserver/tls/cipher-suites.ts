/**
 * `--tls-cipher-suites`: Kubernetes' (Go crypto/tls) cipher suite names mapped to OpenSSL's.
 *
 * Accepted names are exactly kube's: every suite of Go's `tls.CipherSuites()` and
 * `tls.InsecureCipherSuites()` (Go 1.23, which kube 1.32 is built with) plus the two legacy ChaCha20
 * aliases without `_SHA256`. Anything else is refused with kube's message
 * `Cipher suite <name> not supported or doesn't exist`. Insecure names are accepted, and the server warns
 * `Use of insecure cipher '<name>' detected.` as kube does.
 *
 * How the list becomes Node's `ciphers` option:
 * - TLS 1.3 suites are not configurable in Go: naming them in the flag changes nothing, and all three
 *   are always offered. Here too: the three are always first in the list (OpenSSL's TLS 1.3
 *   `ciphersuites`), whether named or not.
 * - TLS 1.2 (and older) suites are the named ones, in the order given, mapped to OpenSSL names; the server's
 *   order decides (`honorCipherOrder`), as Go's server does.
 * - Suites this process's OpenSSL does not implement (RC4 and 3DES in OpenSSL 3's default provider) are
 *   accepted as names but cannot be offered: `unavailable` lists them (the caller warns). When no TLS 1.2
 *   suite is left, TLS 1.2 handshakes fail for want of a common suite, as in Go with a list of TLS 1.3
 *   names only.
 * - Without the flag, Go's default list is used (ECDHE with AES-GCM, ChaCha20-Poly1305 and AES-CBC-SHA:
 *   no RSA key exchange since Go 1.22, no 3DES since Go 1.23), not OpenSSL's (which adds DHE and
 *   CBC-SHA256/384 suites kube never offers).
 */
import { getCiphers } from 'node:tls';

export interface CipherSuite {
  /** Go's name (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`). */
  readonly name: string;
  /** OpenSSL's name (`ECDHE-RSA-AES128-GCM-SHA256`; TLS 1.3 suites keep their IANA name). */
  readonly openssl: string;
  readonly tls13: boolean;
  /** In Go's InsecureCipherSuites. */
  readonly insecure: boolean;
}

const suite = (name: string, openssl: string, o: { tls13?: boolean; insecure?: boolean } = {}): CipherSuite =>
  Object.freeze({ name, openssl, tls13: o.tls13 === true, insecure: o.insecure === true });

/** Every name kube accepts. */
export const cipherSuites: readonly CipherSuite[] = Object.freeze([
  // TLS 1.3 (always on, not configurable).
  suite('TLS_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256', { tls13: true }),
  suite('TLS_AES_256_GCM_SHA384', 'TLS_AES_256_GCM_SHA384', { tls13: true }),
  suite('TLS_CHACHA20_POLY1305_SHA256', 'TLS_CHACHA20_POLY1305_SHA256', { tls13: true }),
  // Go's CipherSuites(): secure.
  suite('TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'ECDHE-ECDSA-AES128-GCM-SHA256'),
  suite('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'),
  suite('TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'ECDHE-ECDSA-AES256-GCM-SHA384'),
  suite('TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'ECDHE-RSA-AES256-GCM-SHA384'),
  suite('TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'ECDHE-ECDSA-CHACHA20-POLY1305'),
  suite('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'ECDHE-RSA-CHACHA20-POLY1305'),
  suite('TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305', 'ECDHE-ECDSA-CHACHA20-POLY1305'),
  suite('TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305'),
  suite('TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'ECDHE-ECDSA-AES128-SHA'),
  suite('TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'ECDHE-RSA-AES128-SHA'),
  suite('TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', 'ECDHE-ECDSA-AES256-SHA'),
  suite('TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', 'ECDHE-RSA-AES256-SHA'),
  suite('TLS_RSA_WITH_AES_128_GCM_SHA256', 'AES128-GCM-SHA256'),
  suite('TLS_RSA_WITH_AES_256_GCM_SHA384', 'AES256-GCM-SHA384'),
  suite('TLS_RSA_WITH_AES_128_CBC_SHA', 'AES128-SHA'),
  suite('TLS_RSA_WITH_AES_256_CBC_SHA', 'AES256-SHA'),
  // Go's InsecureCipherSuites(): RC4, 3DES, CBC-SHA256 (no Lucky13 countermeasures).
  suite('TLS_RSA_WITH_RC4_128_SHA', 'RC4-SHA', { insecure: true }),
  suite('TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'ECDHE-ECDSA-RC4-SHA', { insecure: true }),
  suite('TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'ECDHE-RSA-RC4-SHA', { insecure: true }),
  suite('TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'DES-CBC3-SHA', { insecure: true }),
  suite('TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'ECDHE-RSA-DES-CBC3-SHA', { insecure: true }),
  suite('TLS_RSA_WITH_AES_128_CBC_SHA256', 'AES128-SHA256', { insecure: true }),
  suite('TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'ECDHE-ECDSA-AES128-SHA256', { insecure: true }),
  suite('TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', 'ECDHE-RSA-AES128-SHA256', { insecure: true }),
]);

const byName = new Map(cipherSuites.map((s) => [s.name, s]));

/** Go 1.23's default TLS 1.2 suites, in its preference order (hardware AES). */
export const goDefaultCipherSuites: readonly string[] = Object.freeze([
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
]);

/** The TLS 1.3 suites, always offered (OpenSSL's default order). */
const tls13Suites = ['TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'];

export class CipherSuiteError extends Error {
  override readonly name = 'CipherSuiteError';
}

/** Sorted names for `--help`: kube's "Preferred values" and "Insecure values". */
export function preferredCipherSuiteNames(): string[] {
  return cipherSuites.filter((s) => !s.insecure).map((s) => s.name).sort();
}
export function insecureCipherSuiteNames(): string[] {
  return cipherSuites.filter((s) => s.insecure).map((s) => s.name).sort();
}

/** Checks every name; throws CipherSuiteError (kube's message) at the first unknown one. */
export function validateCipherSuites(names: readonly string[]): readonly CipherSuite[] {
  return names.map((name) => {
    const s = byName.get(name);
    if (s === undefined) throw new CipherSuiteError(`Cipher suite ${name} not supported or doesn't exist`);
    return s;
  });
}

export interface OpenSslCiphers {
  /** Node's `ciphers` option: TLS 1.3 suites, then the TLS 1.2 ones, then `@SECLEVEL=0` if asked for. */
  readonly ciphers: string;
  /** The insecure names given (kube warns about each). */
  readonly insecure: readonly string[];
  /** Names given whose suite this OpenSSL cannot offer. */
  readonly unavailable: readonly string[];
}

/**
 * Node's cipher list for the flag's names (empty: Go's defaults). `securityLevel0` appends
 * `@SECLEVEL=0` (TLS 1.0/1.1 minimums). Throws CipherSuiteError for an unknown name.
 */
export function openSslCiphers(names: readonly string[], o: { readonly securityLevel0?: boolean } = {}): OpenSslCiphers {
  const suites = validateCipherSuites(names.length === 0 ? goDefaultCipherSuites : names);
  const available = new Set(getCiphers());
  const tls12: string[] = [];
  const unavailable: string[] = [];
  for (const s of suites) {
    if (s.tls13) continue;
    if (!available.has(s.openssl.toLowerCase())) {
      unavailable.push(s.name);
      continue;
    }
    if (!tls12.includes(s.openssl)) tls12.push(s.openssl);
  }
  const tail = tls12.length > 0 && o.securityLevel0 === true ? ['@SECLEVEL=0'] : [];
  return {
    ciphers: [...tls13Suites, ...tls12, ...tail].join(':'),
    insecure: suites.filter((s) => s.insecure).map((s) => s.name),
    unavailable,
  };
}
