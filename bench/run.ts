/**
 * `make bench`: runs every benchmark part and prints one markdown report (machine, command, tables) to
 * stdout, to be recorded in docs/BENCHMARKS.md.
 *
 *   --only=<part,...>   run only these parts (store, http, cache, patch, media, auth, cel, crd, admission, kinds, observability,
 *                       cluster, restart, freeze, encryption, bad-input, controllers, rss, workers)
 *   --scale=<x>         multiply operation counts (default 1; 0.1 for a quick smoke run)
 *   --server=dist|tsx   how parts http, cache, patch, media and auth run the server process: the build in dist/ (compiled first; the
 *                       default) or the sources through tsx
 */
import { cpus, loadavg, release, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { benchAuth } from './auth.js';
import { benchCluster } from './cluster.js';
import { benchCelEngines } from './cel/engines.js';
import { benchCelEnvironment } from './cel/environment.js';
import { benchCrd } from './crd.js';
import { benchFreeze } from './freeze.js';
import { benchEncryption } from './encryption.js';
import { benchAdmission } from './admission.js';
import { benchKinds } from './kinds.js';
import { benchObservability } from './observability.js';
import { benchHttp } from './http.js';
import { benchMedia } from './media.js';
import { benchPatch } from './patch.js';
import { benchRestart } from './restart.js';
import { benchBadInput } from './bad-input.js';
import { benchControllers } from './controllers.js';
import { benchCache } from './watch-cache.js';
import { benchRss } from './rss.js';
import type { ServerMode } from './server-process.js';
import { benchStores } from './store.js';
import { benchWorkers } from './workers.js';

interface PartOptions {
  readonly scale: number;
  readonly server: ServerMode;
}

const parts: Record<string, (options: PartOptions) => Promise<string>> = {
  store: ({ scale }) => benchStores({ scale }),
  http: ({ scale, server }) => benchHttp({ scale, server }),
  cache: ({ scale, server }) => benchCache({ scale, server }),
  patch: ({ scale, server }) => benchPatch({ scale, server }),
  media: ({ scale, server }) => benchMedia({ scale, server }),
  auth: ({ scale, server }) => benchAuth({ scale, server }),
  // The engines side by side (conformance of cel-js, @bufbuild/cel and ours), then our environment.
  cel: async ({ scale }) => `${await benchCelEngines({ scale })}\n\n${await benchCelEnvironment({ scale })}`,
  crd: ({ scale, server }) => benchCrd({ scale, server }),
  admission: ({ scale, server }) => benchAdmission({ scale, server }),
  kinds: ({ scale, server }) => benchKinds({ scale, server }),
  observability: ({ scale, server }) => benchObservability({ scale, server }),
  cluster: ({ scale, server }) => benchCluster({ scale, server }),
  // Restart after crashes at small and ~100 MB history (BENCH_RESTART_BEFORE_DIST: an older build beside).
  restart: ({ scale }) => benchRestart({ scale }),
  // Frozen watch cache objects: cost per object and on ingest (in process, no server).
  freeze: ({ scale }) => benchFreeze({ scale }),
  // Encryption at rest: each provider alone, and Secret create/GET through a server in process.
  encryption: ({ scale }) => benchEncryption({ scale }),
  // How long the decoders take to refuse pathological bodies (in process, no server).
  'bad-input': ({ scale }) => benchBadInput({ scale }),
  // The garbage collector and the Job controller through a server on etcd, and their idle cost (issue 19).
  controllers: ({ scale, server }) => benchControllers({ scale, server }),
  // The server's RSS with 100,000 cached 1 KiB objects, on etcd and on the embedded store (issue 20).
  rss: ({ scale, server }) => benchRss({ scale, server }),
  // One server process against N sharing its socket through node:cluster (issue 20: --workers, measured).
  workers: ({ scale, server }) => benchWorkers({ scale, server }),
};

function etcdVersion(): string {
  try {
    return execFileSync('etcd', ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, scale: { type: 'string', default: '1' }, server: { type: 'string', default: 'dist' } },
    strict: true,
  });
  const scale = Number(values.scale);
  if (!(scale > 0)) throw new Error(`--scale must be a positive number, got ${values.scale}`);
  const server = values.server;
  if (server !== 'dist' && server !== 'tsx') throw new Error(`--server must be dist or tsx, got ${server}`);
  const selected = values.only?.split(',') ?? Object.keys(parts);
  for (const p of selected) if (!(p in parts)) throw new Error(`unknown part ${p}; parts: ${Object.keys(parts).join(', ')}`);

  const args = process.argv.slice(2).join(' ');
  const cpu = cpus();
  const out: string[] = [
    `## Run of ${new Date().toISOString().slice(0, 10)}`,
    '',
    `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}, ${etcdVersion()}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at start.`,
    `Command: \`make bench${args === '' ? '' : ` BENCH_ARGS="${args}"`}\`. Client, server and etcd share the machine.`,
    '',
  ];
  for (const p of selected) {
    process.stderr.write(`bench: running part ${p}\n`);
    out.push(await parts[p]!({ scale, server }), '');
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
