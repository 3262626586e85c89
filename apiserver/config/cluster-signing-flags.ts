/**
 * The csrsigning controller's flags, validated as kube-controller-manager does: a certificate file needs
 * its key file and the other way round; `--cluster-signing-cert-file`/`-key-file` (every signer) and the
 * per-signer pairs exclude each other; the duration must be positive.
 */
import { resolve } from 'node:path';
import type { SignerRole } from '../controllers/certificates/signer-policy.js';
import type { CertKeyFiles, ClusterSigningConfig } from '../tls/signing-material.js';
import { FlagError } from './flag-error.js';
import type { ParsedFlags } from './parse-flags.js';

/** kube's per-signer flag word -> the signer's role. */
const perSignerFlags: readonly (readonly [string, SignerRole])[] = [
  ['kube-apiserver-client', 'apiserver-client'],
  ['kubelet-client', 'apiserver-client-nodeagent'],
  ['kubelet-serving', 'nodeagent-serving'],
  ['legacy-unknown', 'legacy-unknown'],
];

function pair(flags: ParsedFlags, cwd: string, prefix: string): CertKeyFiles | undefined {
  const cert = flags.string(`${prefix}-cert-file`);
  const key = flags.string(`${prefix}-key-file`);
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined) throw new FlagError(`--${prefix}-key-file requires --${prefix}-cert-file`);
  if (key === undefined) throw new FlagError(`--${prefix}-cert-file requires --${prefix}-key-file`);
  return { certFile: resolve(cwd, cert), keyFile: resolve(cwd, key) };
}

export function clusterSigningConfig(flags: ParsedFlags, cwd: string): ClusterSigningConfig {
  const durationMs = flags.duration('cluster-signing-duration');
  if (durationMs <= 0) throw new FlagError('invalid value for flag --cluster-signing-duration: must be positive');
  const all = pair(flags, cwd, 'cluster-signing');
  const perSigner: Partial<Record<SignerRole, CertKeyFiles>> = {};
  for (const [word, role] of perSignerFlags) {
    const files = pair(flags, cwd, `cluster-signing-${word}`);
    if (files !== undefined) perSigner[role] = files;
  }
  if (all !== undefined && Object.keys(perSigner).length > 0) {
    throw new FlagError('cannot specify default and per controller certs at the same time: --cluster-signing-cert-file/--cluster-signing-key-file exclude the per-signer --cluster-signing-*-cert-file flags');
  }
  return { durationMs, ...(all === undefined ? {} : { all }), ...(Object.keys(perSigner).length === 0 ? {} : { perSigner }) };
}
