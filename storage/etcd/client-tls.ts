/**
 * TLS of the etcd client (kube-apiserver's `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`): the files,
 * read and checked once, turned into the TLS options every etcd connection of the server uses (the store's,
 * and the per-member ones of the size monitor and the version check).
 *
 * As etcd's Go client does for kube-apiserver:
 * - the files are read and must parse whatever the endpoints' scheme;
 * - `https://` endpoints are dialed with TLS: the CA bundle verifies the members (none given: the system's
 *   roots), the certificate and key are presented when etcd asks for a client certificate;
 * - `http://` endpoints are dialed in plain text, the TLS files then go unused (etcd's client drops
 *   credentials for an `http://` endpoint). The caller may warn about it (`tlsUnusedByEndpoints`).
 * Endpoints mixing both schemes are refused (`mixedEndpointSchemes`): one TLS setting serves all.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The files of the etcd client's TLS (absolute paths); at least one is set. Cert and key go together. */
export interface EtcdClientTls {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** The PEM bytes of the TLS files. */
export interface EtcdCredentials {
  /** undefined: the system's roots (gRPC's default) verify the members. */
  readonly rootCertificate?: Buffer;
  readonly privateKey?: Buffer;
  readonly certChain?: Buffer;
}

/** Which file of `EtcdClientTls` is wrong, so the caller can name its flag. */
export type EtcdTlsFile = 'caFile' | 'certFile' | 'keyFile';

/** A TLS file that is missing, unreadable or not what it should be. */
export class EtcdTlsError extends Error {
  override readonly name = 'EtcdTlsError';
  constructor(
    readonly file: EtcdTlsFile | undefined,
    readonly path: string | undefined,
    readonly reason: string,
  ) {
    super(path === undefined ? reason : `${path}: ${reason}`);
  }
}

const pemCertificate = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function read(file: EtcdTlsFile, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new EtcdTlsError(file, path, code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? String(err)})`);
  }
}

/** Every PEM certificate of a file, parsed; at least one. */
function certificates(file: EtcdTlsFile, path: string, pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('utf8').match(pemCertificate) ?? [];
  if (blocks.length === 0) throw new EtcdTlsError(file, path, 'no PEM certificate found');
  return blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      throw new EtcdTlsError(file, path, `certificate ${i + 1} does not parse (${(err as Error).message})`);
    }
  });
}

/**
 * Reads and checks the files: the CA file holds at least one certificate and nothing unparsable; the
 * certificate file's first certificate (the leaf; any others are its chain) matches the key file's private
 * key. Throws `EtcdTlsError`.
 */
export function loadEtcdCredentials(tls: EtcdClientTls): EtcdCredentials {
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    throw new EtcdTlsError(tls.certFile === undefined ? 'certFile' : 'keyFile', undefined, 'a client certificate needs its key and the other way round');
  }
  let rootCertificate: Buffer | undefined;
  if (tls.caFile !== undefined) {
    rootCertificate = read('caFile', tls.caFile);
    certificates('caFile', tls.caFile, rootCertificate);
  }
  if (tls.certFile === undefined || tls.keyFile === undefined) return { rootCertificate };
  const certChain = read('certFile', tls.certFile);
  const leaf = certificates('certFile', tls.certFile, certChain)[0]!;
  const privateKey = read('keyFile', tls.keyFile);
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKey);
  } catch (err) {
    throw new EtcdTlsError('keyFile', tls.keyFile, `no PEM private key found (${(err as Error).message})`);
  }
  if (!leaf.checkPrivateKey(key)) {
    throw new EtcdTlsError('keyFile', tls.keyFile, `the private key does not match the certificate of ${tls.certFile}`);
  }
  return { rootCertificate, privateKey, certChain };
}

const isHttps = (endpoint: string): boolean => endpoint.toLowerCase().startsWith('https://');

/** True when the endpoints mix `http://` and `https://` (one channel setting cannot serve both). */
export function mixedEndpointSchemes(endpoints: readonly string[]): boolean {
  return endpoints.some(isHttps) && !endpoints.every(isHttps);
}

/** True when TLS files are given but every endpoint is `http://`, so they go unused. */
export function tlsUnusedByEndpoints(endpoints: readonly string[], tls: EtcdClientTls | undefined): boolean {
  return tls !== undefined && endpoints.length > 0 && !endpoints.some(isHttps);
}

/** The TLS options of a member's connection (node's `tls.connect` names). */
export interface EtcdConnectionTls {
  /** undefined: the system's roots verify the members. */
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/**
 * The TLS of the etcd connections for these endpoints: undefined for `http://` ones (plain text), and without
 * TLS files for `https://` ones too (the connections then verify members against the system's roots, as kube's
 * client without --etcd-cafile does).
 */
export function etcdClientCredentials(endpoints: readonly string[], tls: EtcdClientTls | undefined): EtcdConnectionTls | undefined {
  if (tls === undefined) return undefined;
  const credentials = loadEtcdCredentials(tls);
  if (!endpoints.some(isHttps)) return undefined;
  return { ca: credentials.rootCertificate, cert: credentials.certChain, key: credentials.privateKey };
}
