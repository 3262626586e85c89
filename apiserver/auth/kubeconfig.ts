import { join } from 'node:path';
import { stringify } from 'yaml';
import { writeFileAtomic } from '../tls/write-private-file.js';

export interface KubeconfigOptions {
  /** `https://127.0.0.1:6443` */
  readonly server: string;
  /** PEM the client should trust; undefined: `insecure-skip-tls-verify: true`. */
  readonly caPem: string | undefined;
  readonly token: string;
  readonly userName: string;
  /** Name of the cluster, user and context entries. */
  readonly name: string;
}

/** A kubeconfig (clientcmd v1) with one cluster, one token user and one current context. */
export function renderKubeconfig(o: KubeconfigOptions): string {
  const cluster: Record<string, unknown> = { server: o.server };
  if (o.caPem === undefined) cluster['insecure-skip-tls-verify'] = true;
  else cluster['certificate-authority-data'] = Buffer.from(o.caPem, 'utf8').toString('base64');
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: o.name, cluster }],
    users: [{ name: o.userName, user: { token: o.token } }],
    contexts: [{ name: o.name, context: { cluster: o.name, user: o.userName } }],
    'current-context': o.name,
    preferences: {},
  });
}

/** Writes `<data-dir>/admin.kubeconfig` (0600: it holds the token) and returns its absolute path. */
export async function writeAdminKubeconfig(dataDir: string, options: KubeconfigOptions): Promise<string> {
  const path = join(dataDir, 'admin.kubeconfig');
  await writeFileAtomic(path, renderKubeconfig(options), 0o600);
  return path;
}

/**
 * The URL a local client reaches the server at: the loopback address when bound to every interface
 * (0.0.0.0 or ::), else the bind address (IPv6 in brackets).
 */
export function localServerUrl(bindAddress: string, port: number): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '') return `https://127.0.0.1:${port}`;
  return bindAddress.includes(':') ? `https://[${bindAddress}]:${port}` : `https://${bindAddress}:${port}`;
}
