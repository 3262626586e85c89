/**
 * The one list of flags a replica of the local cluster runs with. Everything a replica needs that is not
 * its own address, port or data directory comes from here, so the e2e suite, the bench and `make cluster`
 * exercise one configuration.
 *
 * TODO(issue 17): this list is to be replaced by the Helm chart's rendered container args (the chart's
 * renderer run on deploy/cluster-values.yaml), with the chart's mount paths mapped onto the shared
 * credential files.
 */
import type { SharedCredentials } from './credentials.js';

export interface ReplicaContext {
  /** The loopback address the replica binds and advertises (127.0.1.<n>). */
  readonly address: string;
  readonly port: number;
  readonly dataDir: string;
  readonly etcdServers: readonly string[];
  readonly creds: SharedCredentials;
}

/**
 * `--shutdown-delay-duration` of the local replicas: longer than haproxy needs to see `/readyz` fail
 * (fall 2 x inter 1 s, plus a check in flight), so no new connection reaches a replica that closes.
 */
export const replicaShutdownDelay = '3s';

export function replicaArgs(c: ReplicaContext): string[] {
  return [
    `--bind-address=${c.address}`,
    `--secure-port=${c.port}`,
    `--advertise-address=${c.address}`,
    `--data-dir=${c.dataDir}`,
    `--etcd-servers=${c.etcdServers.join(',')}`,
    `--tls-cert-file=${c.creds.certFile}`,
    `--tls-private-key-file=${c.creds.keyFile}`,
    `--token-auth-file=${c.creds.tokenFile}`,
    `--service-account-key-file=${c.creds.saPubFile}`,
    `--service-account-signing-key-file=${c.creds.saKeyFile}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--cluster-signing-cert-file=${c.creds.signingCertFile}`,
    `--cluster-signing-key-file=${c.creds.signingKeyFile}`,
    `--shutdown-delay-duration=${replicaShutdownDelay}`,
    '--shutdown-timeout=30s',
  ];
}
