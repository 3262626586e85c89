/**
 * A CA bundle an authenticator trusts (`--client-ca-file`, `--requestheader-client-ca-file`), re-read
 * from its file while the server runs, as kube's DynamicFileCAContent does:
 *
 * - at start-up the file must be readable and hold at least one certificate, else start-up fails;
 * - afterwards the file is followed (watched-file.ts: a watch on its directory, so a rename-replace is
 *   seen, and a re-read every minute); content that differs from the bundle in use and parses replaces it
 *   and the listeners (the TLS server's list of acceptable client CAs) are told, then `onLoaded`;
 * - an empty file, a certificate that does not parse, or no certificate at all is refused (`onRefused`,
 *   a warning in the server's log): the previous bundle stays in use.
 *
 * `roots()` returns the same array until a reload, and a new one after it, so verifiers can tell a
 * verdict computed against an older bundle (client-cert-chain.ts `connectionVerifier`).
 */
import type { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parsePemBundle } from './client-cert-chain.js';
import { watchFile } from './watched-file.js';

export interface CaBundle {
  /** What the bundle is, for logs: `client-ca-bundle::<file>`, `request-header::<file>`. */
  readonly name: string;
  /** The roots in use; a new array after each reload. */
  roots(): readonly X509Certificate[];
  /** The PEM text in use. */
  pem(): string;
  /** Calls `listener` after each reload. */
  onChange(listener: () => void): void;
}

export interface ReloadingCaBundle extends CaBundle {
  /** Re-reads the file now (tests; the watch and the timer do it otherwise). */
  check(): Promise<void>;
  stop(): void;
}

export class CaBundleError extends Error {
  override readonly name = 'CaBundleError';
}

/** The certificates of a bundle's text; throws CaBundleError (kube's wording) when it cannot be used. */
export function parseCaBundle(name: string, pem: string): X509Certificate[] {
  if (pem.length === 0) throw new CaBundleError(`missing content for CA bundle "${name}"`);
  let roots: X509Certificate[];
  try {
    roots = parsePemBundle(pem);
  } catch (err) {
    throw new CaBundleError(`unable to load CA bundle "${name}": ${(err as Error).message}`);
  }
  if (roots.length === 0) throw new CaBundleError(`unable to load CA bundle "${name}": data does not contain any valid RSA or ECDSA certificates`);
  return roots;
}

/** A bundle that never changes (tests, embedders). */
export function staticCaBundle(name: string, pem: string): CaBundle {
  const roots = parseCaBundle(name, pem);
  return { name, roots: () => roots, pem: () => pem, onChange: () => {} };
}

export interface CaBundleFileOptions {
  /** Prefix of the bundle's name (`client-ca-bundle`, `request-header`). */
  readonly purpose: string;
  readonly file: string;
  /** A new bundle is in use. */
  readonly onLoaded?: (bundle: CaBundle, certificates: number) => void;
  /** New content was refused; the previous bundle stays. */
  readonly onRefused?: (bundle: CaBundle, err: Error) => void;
  /** Default one minute (kube's). */
  readonly intervalMs?: number;
}

/** Loads the bundle file (throwing on an unusable one) and follows it until `stop()`. */
export async function loadCaBundleFile(o: CaBundleFileOptions): Promise<ReloadingCaBundle> {
  const name = `${o.purpose}::${o.file}`;
  const initial = await readFile(o.file, 'utf8');
  let current = { pem: initial, roots: parseCaBundle(name, initial) };
  const listeners: (() => void)[] = [];

  const bundle: ReloadingCaBundle = {
    name,
    roots: () => current.roots,
    pem: () => current.pem,
    onChange: (listener) => void listeners.push(listener),
    check: () => watched.check(),
    stop: () => watched.stop(),
  };

  const watched = watchFile({
    file: o.file,
    initial,
    ...(o.intervalMs === undefined ? {} : { intervalMs: o.intervalMs }),
    onContent: (text) => {
      // Back to the content in use (after a refused one): nothing to do.
      if (text === current.pem) return;
      let roots: X509Certificate[];
      try {
        roots = parseCaBundle(name, text);
      } catch (err) {
        o.onRefused?.(bundle, err as Error);
        return;
      }
      current = { pem: text, roots };
      // Listeners (the TLS server's CA list) first, so whoever reads the log line finds them done.
      for (const l of listeners) l();
      o.onLoaded?.(bundle, roots.length);
    },
    onReadError: (err) => o.onRefused?.(bundle, new CaBundleError(`unable to read CA bundle "${name}": ${err.message}`)),
  });
  return bundle;
}
