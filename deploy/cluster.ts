/**
 * `make cluster` / `make cluster-down`: the local HA cluster (3 etcd members, 3 replicas, haproxy) in
 * DATA_DIR (default ./cluster-data), run with `node --import tsx deploy/cluster.ts up|down|status`.
 *
 *   up      start whatever is not running (a second `up` resumes the same directory) and print the
 *           kubeconfig to use; the processes keep running after this command exits
 *   down    stop everything (gracefully, then SIGKILL); the directory stays for the next `up`
 *   status  each process and haproxy's view of each replica
 *
 * Environment: DATA_DIR, REPLICAS (default 3), ETCD_MEMBERS (default 3), SERVER_MODE (dist or tsx).
 */
import { performance } from 'node:perf_hooks';
import { clusterExists, openCluster, startCluster, stopClusterDir } from './cluster/index.js';

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'up';
  const dir = process.env.DATA_DIR || './cluster-data';
  const log = (line: string): void => void process.stderr.write(`cluster: ${line}\n`);
  const t0 = performance.now();
  if (command === 'up') {
    const mode = process.env.SERVER_MODE || 'dist';
    if (mode !== 'dist' && mode !== 'tsx') throw new Error(`SERVER_MODE must be dist or tsx, got ${mode}`);
    const cluster = await startCluster({
      dir,
      replicas: Number(process.env.REPLICAS || 3),
      etcdMembers: Number(process.env.ETCD_MEMBERS || 3),
      serverMode: mode,
      log,
    });
    log(`ready in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${cluster.etcd.length} etcd members, ${cluster.replicas.length} replicas behind haproxy at ${cluster.url}`);
    process.stdout.write(`${cluster.kubeconfigPath}\n`);
    process.stderr.write(`\n  kubectl --kubeconfig ${cluster.kubeconfigPath} get ns\n  make cluster-down DATA_DIR=${dir}   # stops it; make cluster resumes it\n\n`);
  } else if (command === 'down') {
    if (!(await stopClusterDir(dir, log))) log(`no cluster in ${dir}`);
    else log(`stopped in ${((performance.now() - t0) / 1000).toFixed(1)} s (data kept in ${dir})`);
  } else if (command === 'status') {
    if (!clusterExists(dir)) {
      log(`no cluster in ${dir}`);
      return;
    }
    const state = await import('node:fs').then((fs) => JSON.parse(fs.readFileSync(`${dir}/cluster.json`, 'utf8')) as { replicas: unknown[]; etcd: unknown[] });
    const cluster = await openCluster({ dir, replicas: state.replicas.length, etcdMembers: state.etcd.length });
    const backends = cluster.haproxy.running ? await cluster.haproxy.backendStates() : new Map();
    for (const p of [...cluster.etcd, ...cluster.replicas, cluster.haproxy]) {
      const lb = 'serverName' in p ? backends.get(p.serverName) : undefined;
      process.stdout.write(`${p.name}\t${p.running ? `running (pid ${p.pid})` : 'stopped'}${lb === undefined ? '' : `\thaproxy: ${lb.status} ${lb.check}`}\n`);
    }
    process.stdout.write(`kubeconfig\t${cluster.kubeconfigPath}\n`);
  } else {
    throw new Error(`unknown command ${command}: up, down or status`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
