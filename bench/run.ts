/**
 * `make bench`: runs every benchmark part and prints one markdown report (machine, command, tables) to
 * stdout, to be recorded in docs/BENCHMARKS.md.
 *
 *   --only=<part,...>   run only these parts (store)
 *   --scale=<x>         multiply operation counts (default 1; 0.1 for a quick smoke run)
 */
import { cpus, totalmem, release } from 'node:os';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { benchStores } from './store.js';

const parts: Record<string, (scale: number) => Promise<string>> = {
  store: (scale) => benchStores({ scale }),
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
    options: { only: { type: 'string' }, scale: { type: 'string', default: '1' } },
    strict: true,
  });
  const scale = Number(values.scale);
  if (!(scale > 0)) throw new Error(`--scale must be a positive number, got ${values.scale}`);
  const selected = values.only?.split(',') ?? Object.keys(parts);
  for (const p of selected) if (!(p in parts)) throw new Error(`unknown part ${p}; parts: ${Object.keys(parts).join(', ')}`);

  const cpu = cpus();
  const out: string[] = [
    `## Run of ${new Date().toISOString().slice(0, 10)}`,
    '',
    `Machine: ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}, ${etcdVersion()}.`,
    `Command: \`make bench${scale === 1 ? '' : ` BENCH_ARGS=--scale=${scale}`}\`. Client, server and etcd share the machine.`,
    '',
  ];
  for (const p of selected) {
    process.stderr.write(`bench: running part ${p}\n`);
    out.push(await parts[p]!(scale), '');
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
