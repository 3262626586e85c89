/**
 * `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: the etcd client's TLS, checked when the flags are
 * read so a missing or broken file is a command-line error (exit 2) rather than a store that never answers.
 *
 * kube-apiserver reads the same files when it creates its etcd client and fails to start when one is missing,
 * does not parse, or only one of certificate and key is given. With `http://` servers its etcd client dials in
 * plain text and leaves the files unused; so does this server (storage/etcd/client-tls.ts), after the same
 * checks.
 */
import { resolve } from 'node:path';
import { EtcdTlsError, loadEtcdCredentials, type EtcdClientTls, type EtcdTlsFile } from '../../storage/etcd/client-tls.js';
import { FlagError } from './flag-error.js';
import type { ParsedFlags } from './parse-flags.js';

const flagOf: Record<EtcdTlsFile, string> = { caFile: 'etcd-cafile', certFile: 'etcd-certfile', keyFile: 'etcd-keyfile' };

/** The checked files (absolute), or undefined when none of the three flags is given. Throws `FlagError`. */
export function etcdClientTlsConfig(flags: ParsedFlags, cwd: string, endpoints: readonly string[]): EtcdClientTls | undefined {
  const caFile = flags.string('etcd-cafile');
  const certFile = flags.string('etcd-certfile');
  const keyFile = flags.string('etcd-keyfile');
  if (caFile === undefined && certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined && keyFile !== undefined) throw new FlagError('--etcd-keyfile requires --etcd-certfile');
  if (keyFile === undefined && certFile !== undefined) throw new FlagError('--etcd-certfile requires --etcd-keyfile');
  if (endpoints.length === 0) {
    throw new FlagError('--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers (the embedded store has no client TLS)');
  }
  const tls: EtcdClientTls = {
    ...(caFile === undefined ? {} : { caFile: resolve(cwd, caFile) }),
    ...(certFile === undefined ? {} : { certFile: resolve(cwd, certFile) }),
    ...(keyFile === undefined ? {} : { keyFile: resolve(cwd, keyFile) }),
  };
  try {
    loadEtcdCredentials(tls);
  } catch (err) {
    if (!(err instanceof EtcdTlsError)) throw err;
    const flag = err.file === undefined ? undefined : flagOf[err.file];
    throw new FlagError(flag === undefined || err.path === undefined
      ? err.message
      : `invalid value "${err.path}" for flag --${flag}: ${err.reason}`);
  }
  return tls;
}
