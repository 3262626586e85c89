/**
 * Preloaded into the server process (`node --import bench/workers/primary.mjs dist/apiserver/main.js ...`) by
 * part `workers`: with BENCH_WORKERS=N (N > 1) the process becomes a node:cluster primary that serves nothing
 * itself and forks N copies of the server, which share its listening socket (the primary accepts and hands
 * each connection to a worker in turn) and each keep their own watch caches; their controllers elect a leader
 * through the store as separate replicas do. In a worker, or with N = 1, it does nothing.
 *
 * The first worker is forked alone and the rest once it listens: it creates the data directory's
 * certificates and tokens, which the others then read. SIGTERM goes to every worker; the primary exits when
 * the last one has.
 */
import cluster from 'node:cluster';

const n = Number(process.env.BENCH_WORKERS ?? '1');
if (cluster.isPrimary && n > 1) {
  const forkOne = () =>
    new Promise((listening, failed) => {
      const w = cluster.fork();
      w.once('listening', listening);
      w.once('exit', (code) => failed(new Error(`worker exited during start-up (code ${code})`)));
    });
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  });
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
  try {
    for (let i = 0; i < n; i++) await forkOne();
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
  // The server's main module must not run in the primary: this module's evaluation never completes.
  await new Promise(() => undefined);
}
