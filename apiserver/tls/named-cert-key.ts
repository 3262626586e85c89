/**
 * One `--tls-sni-cert-key` value in kube's syntax (component-base's NamedCertKey):
 * `<cert file>,<key file>` optionally followed by `:<name>[,<name>...]`.
 *
 * As kube: the value is split at the FIRST colon (so names may not contain one, and neither may the
 * file paths); surrounding spaces of the paths and names are trimmed; a colon followed by nothing is
 * `empty names list is not allowed`; anything but exactly two comma-separated paths is `expected comma
 * separated certificate and key file paths`. Names are kept as given (kube lowercases nothing here; the
 * server's lookup lowercases the client's name only, so write patterns in lower case).
 */
export interface NamedCertKey {
  readonly certFile: string;
  readonly keyFile: string;
  /** Explicit names; empty: taken from the certificate. */
  readonly names: readonly string[];
}

export class NamedCertKeyError extends Error {
  override readonly name = 'NamedCertKeyError';
}

export function parseNamedCertKey(value: string): NamedCertKey {
  const colon = value.indexOf(':');
  let keyCert = value.trim();
  let names: string[] = [];
  if (colon >= 0) {
    keyCert = value.slice(0, colon).trim();
    const list = value.slice(colon + 1).trim();
    if (list === '') throw new NamedCertKeyError('empty names list is not allowed');
    names = list.split(',').map((n) => n.trim());
  }
  const files = keyCert.split(',');
  if (files.length !== 2) throw new NamedCertKeyError('expected comma separated certificate and key file paths');
  return { certFile: files[0]!.trim(), keyFile: files[1]!.trim(), names };
}
