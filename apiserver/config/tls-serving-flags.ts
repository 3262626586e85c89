/**
 * `--tls-min-version`, `--tls-cipher-suites`, `--tls-sni-cert-key`: checked when the flags are read, so a
 * wrong name is a command-line error (exit 2) with kube's message, before anything starts. The SNI files
 * themselves are read at start (tls/dynamic-serving.ts), as kube does, and a broken pair fails the start.
 */
import { resolve } from 'node:path';
import { CipherSuiteError, validateCipherSuites } from '../tls/cipher-suites.js';
import { NamedCertKeyError, parseNamedCertKey, type NamedCertKey } from '../tls/named-cert-key.js';
import { parseTlsVersion, TlsVersionError, type TlsVersionName } from '../tls/tls-version.js';
import { FlagError } from './flag-error.js';
import type { ParsedFlags } from './parse-flags.js';

/** The serving TLS settings besides the default certificate. */
export interface TlsServingConfig {
  readonly minVersion: TlsVersionName;
  /** kube's names as given; empty: Go's default suites. */
  readonly cipherSuites: readonly string[];
  /** Absolute paths, in flag order (earlier ones win a name). */
  readonly sniCertKeys: readonly NamedCertKey[];
}

/** Throws `FlagError` with kube's wording for an unknown version or suite, or a malformed SNI value. */
export function tlsServingConfig(flags: ParsedFlags, cwd: string): TlsServingConfig {
  let minVersion: TlsVersionName;
  try {
    minVersion = parseTlsVersion(flags.string('tls-min-version') ?? '');
  } catch (err) {
    if (err instanceof TlsVersionError) throw new FlagError(`--tls-min-version: ${err.message}`);
    throw err;
  }
  const cipherSuites = flags.list('tls-cipher-suites');
  try {
    validateCipherSuites(cipherSuites);
  } catch (err) {
    if (err instanceof CipherSuiteError) throw new FlagError(`--tls-cipher-suites: ${err.message}`);
    throw err;
  }
  const sniCertKeys = flags.stringArray('tls-sni-cert-key').map((value) => {
    try {
      const nck = parseNamedCertKey(value);
      return { ...nck, certFile: resolve(cwd, nck.certFile), keyFile: resolve(cwd, nck.keyFile) };
    } catch (err) {
      // pflag's wording for a value its Set refuses.
      if (err instanceof NamedCertKeyError) throw new FlagError(`invalid argument ${JSON.stringify(value)} for "--tls-sni-cert-key" flag: ${err.message}`);
      throw err;
    }
  });
  return { minVersion, cipherSuites, sniCertKeys };
}
