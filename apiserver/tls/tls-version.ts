/**
 * `--tls-min-version`: kube's names (component-base's TLSVersion) mapped to Node's `minVersion` values.
 *
 * Kubernetes accepts exactly `VersionTLS10`, `VersionTLS11`, `VersionTLS12` and `VersionTLS13` (case
 * sensitive) and refuses anything else with `unknown tls version "<name>"`; the API server's own default
 * is TLS 1.2. TLS 1.0 and 1.1 need OpenSSL's security level 0 (OpenSSL 3 refuses them at level 1):
 * `needsSecurityLevel0` tells the cipher list builder to add it, so a configured minimum is really served.
 */
import type { SecureVersion } from 'node:tls';

export const tlsVersionNames = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;
export type TlsVersionName = (typeof tlsVersionNames)[number];

/** The API server's default minimum (kube's secure serving default). */
export const defaultTlsMinVersion: TlsVersionName = 'VersionTLS12';

const nodeVersions: Readonly<Record<TlsVersionName, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export class TlsVersionError extends Error {
  override readonly name = 'TlsVersionError';
}

/** The version named `name`; empty: the default. Throws TlsVersionError with kube's message otherwise. */
export function parseTlsVersion(name: string): TlsVersionName {
  if (name === '') return defaultTlsMinVersion;
  if ((tlsVersionNames as readonly string[]).includes(name)) return name as TlsVersionName;
  throw new TlsVersionError(`unknown tls version ${JSON.stringify(name)}`);
}

/** Node's `minVersion` for a kube version name. */
export function nodeTlsVersion(name: TlsVersionName): SecureVersion {
  return nodeVersions[name];
}

/** TLS 1.0 and 1.1 are refused by OpenSSL 3 above security level 0. */
export function needsSecurityLevel0(name: TlsVersionName): boolean {
  return name === 'VersionTLS10' || name === 'VersionTLS11';
}
