/**
 * The flags every replica of the local cluster runs with: the Helm chart's own rendered container args
 * (helm/platform-apiserver rendered with deploy/cluster-values.yaml by test/helm/render.ts, the Go
 * text/template + Sprig renderer), so `make cluster`, the e2e suite and the bench run the configuration
 * the chart deploys, not a second hand-kept copy.
 *
 * Two things are adapted to one machine:
 * - the files the chart mounts from Secrets (`/etc/platform-apiserver/<volume>/<key>`) are the shared
 *   credentials under `<dir>/shared` (credentials.ts), matched by Secret name and key. A Secret or key this
 *   table does not know, or a flag still naming a pod path, is an error: a chart change must be mapped
 *   here, not silently dropped;
 * - what only the launcher knows is replaced by flag name: `--bind-address`, `--secure-port`,
 *   `--advertise-address` (the chart's `$(POD_IP)`), `--data-dir` and `--etcd-servers`.
 * The container's NODE_OPTIONS (the chart's `server.nodeOptions`) become node's own options.
 */
import type { SharedCredentials } from './credentials.js';

/** The chart's rendering, adapted: flags in the chart's order, and node's options. */
export interface ReplicaTemplate {
  readonly args: readonly string[];
  readonly nodeOptions: readonly string[];
}

export interface ReplicaContext {
  /** The loopback address the replica binds and advertises (127.0.1.<n>). */
  readonly address: string;
  readonly port: number;
  readonly dataDir: string;
  readonly etcdServers: readonly string[];
}

/** The values file `make cluster` renders the chart with. */
export const clusterValuesFile = 'deploy/cluster-values.yaml';

/** Where each Secret key the chart mounts comes from locally (deploy/cluster-values.yaml names the Secrets). */
function localSecretFiles(creds: SharedCredentials): Record<string, Record<string, string>> {
  return {
    'cluster-tls': { 'tls.crt': creds.certFile, 'tls.key': creds.keyFile },
    'cluster-tokens': { 'tokens.csv': creds.tokenFile },
    'cluster-sa': { 'sa.key': creds.saKeyFile },
    'cluster-signing-ca': { 'tls.crt': creds.signingCertFile, 'tls.key': creds.signingKeyFile },
  };
}

/** Renders the chart (test/helm/render.ts, run from the repository root) and adapts its Deployment's container. */
export async function renderReplicaTemplate(repoRoot: string, creds: SharedCredentials): Promise<ReplicaTemplate> {
  // Loaded only when a replica starts: stopping a cluster needs no renderer.
  const { containerArgs, findManifest, renderChart, secretFiles } = await import('../../test/helm/render.js');
  const rendered = renderChart({ valuesFiles: [`${repoRoot}/${clusterValuesFile}`] });
  const deployment = findManifest(rendered, 'Deployment');
  const local = localSecretFiles(creds);
  const paths = new Map<string, string>();
  for (const f of secretFiles(deployment)) {
    const file = local[f.secretName]?.[f.key];
    if (file === undefined) {
      throw new Error(`the chart mounts key ${f.key} of Secret ${f.secretName} at ${f.path}; deploy/cluster/replica-args.ts has no local file for it`);
    }
    paths.set(f.path, file);
  }
  const args = containerArgs(deployment).map((arg) => {
    const eq = arg.indexOf('=');
    if (eq < 0) return arg;
    const value = arg.slice(eq + 1).split(',').map((v) => paths.get(v) ?? v).join(',');
    return `${arg.slice(0, eq)}=${value}`;
  });
  const env = (deployment.spec as { template: { spec: { containers: Array<{ env?: Array<{ name: string; value?: string }> }> } } })
    .template.spec.containers[0]?.env ?? [];
  const nodeOptions = (env.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '').split(/\s+/).filter((o) => o !== '');
  return { args, nodeOptions };
}

/** A replica's flags: the template with the launcher's own flags put in by name (and `extra` over both). */
export function replicaArgs(template: ReplicaTemplate, c: ReplicaContext, extra: readonly string[] = []): string[] {
  const args = withFlags(template.args, [
    `--bind-address=${c.address}`,
    `--secure-port=${c.port}`,
    `--advertise-address=${c.address}`,
    `--data-dir=${c.dataDir}`,
    `--etcd-servers=${c.etcdServers.join(',')}`,
  ]);
  const out = withFlags(args, extra);
  const stale = out.find((a) => a.includes('/etc/platform-apiserver/') || a.includes('$('));
  if (stale !== undefined) throw new Error(`replica flag ${stale} names a pod path or variable the launcher does not map`);
  return out;
}

/** `args` with each of `flags` replacing the flag of the same name (in place), or appended when absent. */
export function withFlags(args: readonly string[], flags: readonly string[]): string[] {
  const name = (a: string): string => a.slice(0, a.indexOf('=') < 0 ? a.length : a.indexOf('='));
  const out = [...args];
  for (const f of flags) {
    const i = out.findIndex((a) => name(a) === name(f));
    if (i < 0) out.push(f);
    else out[i] = f;
  }
  return out;
}
