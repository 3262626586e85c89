/**
 * The HTTPS server's TLS settings, kept in step with files that change while it runs — kube's dynamic
 * serving certificates (dynamiccertificates' DynamicCertKeyPairContent, DynamicSNIContent and the
 * DynamicServingCertificateController):
 *
 * - the serving certificate/key pair (`--tls-cert-file`/`--tls-private-key-file`, or the generated pair
 *   in `<data-dir>/pki`) and every `--tls-sni-cert-key` pair are read at start (an unreadable or
 *   mismatched pair fails the start) and then followed: a watch on each file's directory (a rename-replace
 *   or `..data` symlink swap is seen) plus a re-read every minute (kube's FileRefreshDuration);
 * - a pair is re-read as a whole on any change of either file, and used only when both files are non-empty,
 *   parse, and the key matches the certificate. Otherwise the error is reported (`onError`) and the pair in
 *   use stays — during a rotation that writes the certificate and then the key, the first event reports a
 *   mismatch and the second one loads the new pair;
 * - the client CA bundles (`--client-ca-file`, `--requestheader-client-ca-file`, reloaded by
 *   auth/ca-bundle.ts) are named in the CertificateRequest of new handshakes (`ca`);
 * - on any change a new secure context is given to the server (`tls.Server#setSecureContext`) and the SNI
 *   contexts are rebuilt: NEW connections get the new certificates, open ones (keep-alive, watches) keep
 *   theirs and are not dropped — as Go's GetConfigForClient, which is consulted once per handshake;
 * - the minimum version and the cipher list are fixed for the process (flags).
 *
 * SNI selection (sni-names.ts) happens in `SNICallback`. Node takes only the certificate, key and chain of
 * the chosen context (and its CA names); the version and ciphers are the server's. One limitation follows
 * from Node keeping one certificate per key type: an SNI certificate whose key type (RSA, EC) differs from
 * the default certificate's is added beside it, and a client accepting both may get the default one; a
 * warning says so (`onWarning`). Go's choice of an IP-named certificate for clients sending no SNI (by the
 * local address) is not available in Node: such clients get the default certificate.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext, type SecureContext, type SecureContextOptions, type Server } from 'node:tls';
import type { CaBundle } from '../auth/ca-bundle.js';
import { watchFile, type WatchedFile } from '../auth/watched-file.js';
import { withClientCas } from './client-ca-context.js';
import { buildNameMap, certificateNames, lookupServerName } from './sni-names.js';

export interface CertKeyFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

export interface SniCertKeyFiles extends CertKeyFiles {
  /** Explicit names; empty: the certificate's. */
  readonly names: readonly string[];
}

export interface DynamicServingOptions {
  readonly serving: CertKeyFiles;
  readonly sni: readonly SniCertKeyFiles[];
  /** Version and cipher settings for every context (`minVersion`, `ciphers`, `honorCipherOrder`). */
  readonly base: SecureContextOptions;
  readonly clientCas: readonly CaBundle[];
  /** Re-read interval; default one minute (kube's). */
  readonly intervalMs?: number;
  /** A pair is in use (at start and after each reload). */
  readonly onLoaded?: (e: LoadedPair) => void;
  /** A changed pair was refused (the previous one stays), or a context could not be built. */
  readonly onError?: (err: Error, name: string) => void;
  readonly onWarning?: (message: string) => void;
}

export interface LoadedPair {
  /** kube's content name: `serving-cert::<cert>::<key>` or `sni-serving-cert::<cert>::<key>`. */
  readonly name: string;
  /** kube's `GetHumanCertDetail`-like summary. */
  readonly certDetail: string;
  /** The names this pair answers to (SNI pairs; the default pair: its certificate's names). */
  readonly names: readonly string[];
  readonly reload: boolean;
}

export interface DynamicServing {
  /** Options for `https.createServer` (the current default context plus `SNICallback` when SNI pairs exist). */
  serverOptions(): SecureContextOptions & { SNICallback?: (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void };
  /** Follows `server` from now on: every change becomes its new secure context. */
  attach(server: Server): void;
  /** Re-reads every pair now (tests; the watches and the timer do it otherwise). */
  check(): Promise<void>;
  /** The certificate PEM served by default now. */
  servingCertPem(): string;
  stop(): void;
}

interface PairContent {
  readonly certPem: string;
  readonly keyPem: string;
  readonly cert: X509Certificate;
}

/** Reads and checks a pair; throws with kube's wording when it cannot be used. */
async function readPair(name: string, files: CertKeyFiles): Promise<PairContent> {
  const [certPem, keyPem] = await Promise.all([readFile(files.certFile, 'utf8'), readFile(files.keyFile, 'utf8')]);
  if (certPem.trim() === '' || keyPem.trim() === '') throw new Error(`missing content for serving cert "${name}"`);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (err) {
    throw new Error(`tls: failed to parse certificate of "${name}": ${(err as Error).message}`);
  }
  let matches: boolean;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch (err) {
    throw new Error(`tls: failed to parse private key of "${name}": ${(err as Error).message}`);
  }
  if (!matches) throw new Error(`tls: private key does not match public key ("${name}")`);
  return { certPem, keyPem, cert };
}

/** kube's GetHumanCertDetail, as one string. */
export function certDetail(cert: X509Certificate): string {
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? '';
  const usage = cert.ca ? 'CA' : 'serving';
  return `${JSON.stringify(cn)} [${usage}] validServingFor=[${certificateNames(cert).join(',')}] issuer=${JSON.stringify(cert.issuer.replace(/\n/g, ','))} (${new Date(cert.validFrom).toISOString()} to ${new Date(cert.validTo).toISOString()})`;
}

const keyType = (cert: X509Certificate): string => cert.publicKey.asymmetricKeyType ?? 'unknown';

/** Loads every pair (throwing on an unusable one, as kube fails its start) and follows the files. */
export async function startDynamicServing(o: DynamicServingOptions): Promise<DynamicServing> {
  const servingName = `serving-cert::${o.serving.certFile}::${o.serving.keyFile}`;
  const sniNames = o.sni.map((s) => `sni-serving-cert::${s.certFile}::${s.keyFile}`);

  let serving = await readPair(servingName, o.serving);
  const sni: PairContent[] = [];
  for (let i = 0; i < o.sni.length; i++) {
    try {
      sni.push(await readPair(sniNames[i]!, o.sni[i]!));
    } catch (err) {
      throw new Error(`failed to load SNI cert and key: ${(err as Error).message}`);
    }
  }

  const caOptions = (): SecureContextOptions => withClientCas({}, o.clientCas);
  const defaultOptions = (): SecureContextOptions => ({ ...o.base, ...caOptions(), cert: serving.certPem, key: serving.keyPem });

  /** Built from the current pairs; replaced as a whole so a callback never sees half of a change. */
  let sniMap: ReadonlyMap<string, SecureContext> = new Map();
  const buildSni = (): ReadonlyMap<string, SecureContext> => {
    const ca = caOptions();
    return buildNameMap(sni.map((p, i) => ({
      value: createSecureContext({ ...ca, cert: p.certPem, key: p.keyPem }),
      cert: p.cert,
      explicitNames: o.sni[i]!.names,
    })));
  };
  const warnKeyTypes = (): void => {
    sni.forEach((p, i) => {
      if (keyType(p.cert) !== keyType(serving.cert)) {
        o.onWarning?.(`the SNI certificate "${sniNames[i]}" has a ${keyType(p.cert)} key and the default serving certificate a ${keyType(serving.cert)} key: `
          + 'a client accepting both may be served the default certificate (Node keeps one certificate per key type); use the same key type');
      }
    });
  };
  sniMap = buildSni();
  warnKeyTypes();

  const report = (name: string, p: PairContent, names: readonly string[], reload: boolean): void =>
    o.onLoaded?.({ name, certDetail: certDetail(p.cert), names, reload });
  report(servingName, serving, certificateNames(serving.cert), false);
  sni.forEach((p, i) => report(sniNames[i]!, p, o.sni[i]!.names.length > 0 ? o.sni[i]!.names : certificateNames(p.cert), false));

  let server: Server | undefined;
  const apply = (): void => {
    try {
      const nextSni = buildSni();
      server?.setSecureContext(defaultOptions());
      sniMap = nextSni;
    } catch (err) {
      o.onError?.(err as Error, 'tls-context');
    }
  };
  // A reloaded CA bundle: new handshakes name the new CAs (default and SNI contexts alike).
  for (const b of o.clientCas) b.onChange(apply);

  /** Re-reads pair `i` (-1: the serving pair) and takes it when it changed and is usable. */
  const reloadPair = async (i: number): Promise<void> => {
    const name = i < 0 ? servingName : sniNames[i]!;
    const files = i < 0 ? o.serving : o.sni[i]!;
    let next: PairContent;
    try {
      next = await readPair(name, files);
    } catch (err) {
      o.onError?.(err as Error, name);
      return;
    }
    const current = i < 0 ? serving : sni[i]!;
    if (next.certPem === current.certPem && next.keyPem === current.keyPem) return;
    if (i < 0) serving = next;
    else sni[i] = next;
    apply();
    warnKeyTypes();
    report(name, next, i < 0 ? certificateNames(next.cert) : (o.sni[i]!.names.length > 0 ? o.sni[i]!.names : certificateNames(next.cert)), true);
  };

  // One chain of reloads: never two reads of the same pair at once, order kept.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (i: number): Promise<void> => (queue = queue.then(() => reloadPair(i)));

  const watchers: WatchedFile[] = [];
  const follow = (files: CertKeyFiles, i: number, loaded: PairContent): void => {
    for (const [file, initial] of [[files.certFile, loaded.certPem], [files.keyFile, loaded.keyPem]] as const) {
      watchers.push(watchFile({
        file,
        initial,
        ...(o.intervalMs === undefined ? {} : { intervalMs: o.intervalMs }),
        onContent: () => void enqueue(i),
        onReadError: (err) => o.onError?.(err, i < 0 ? servingName : sniNames[i]!),
      }));
    }
  };
  follow(o.serving, -1, serving);
  for (let i = 0; i < o.sni.length; i++) follow(o.sni[i]!, i, sni[i]!);

  return {
    serverOptions() {
      return {
        ...defaultOptions(),
        ...(o.sni.length === 0 ? {} : {
          SNICallback: (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => cb(null, lookupServerName(sniMap, servername)),
        }),
      };
    },
    attach(s) {
      server = s;
    },
    async check() {
      await Promise.all(watchers.map((w) => w.check()));
      await enqueue(-1);
      for (let i = 0; i < o.sni.length; i++) await enqueue(i);
    },
    servingCertPem: () => serving.certPem,
    stop() {
      for (const w of watchers) w.stop();
    },
  };
}
