/**
 * `make bench` part `restart`: how long the server on the embedded store takes to come back after a crash,
 * as a client sees it: from spawning the process until `/readyz` answers 200 and a GET of an object
 * answers. Measured at a small history and at ~100 MB of history (many updates over a small live set:
 * 200 ConfigMaps of ~4 KiB, updated again and again by 32 concurrent writers, SIGKILLed after every ~20 MB
 * (the crash rounds) and restarted; the server compacts every second, standing in for a production server's
 * 5 minutes at a production write rate). Reported too: the build's own store opening the final data
 * directory in this process (the store's share of the restart, with less noise from a shared machine).
 *
 * Before/after: `BENCH_RESTART_BEFORE_DIST=<dir>` names an older build's dist/ (e.g. the commit before
 * issue 18: `git worktree add /tmp/old-wt <commit> && (cd /tmp/old-wt && ln -s $PWD/node_modules && npx tsc
 * -p tsconfig.build.json)`), measured the same way next to the current dist/ (or `BENCH_RESTART_AFTER_DIST`).
 * Restarts are medians of 3.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { fmt, table } from './measure.js';
import { buildServer } from './server-process.js';
import { call, ROOT, startServer, type RunningServer } from '../test/e2e/crash/server-runner.js';
import { freePorts } from '../test/harness/ports.js';

const LIVE = 200;
const VALUE_BYTES = 4096;
const WRITERS = 32;
const BASE = '/api/v1/namespaces/default/configmaps';

interface Case {
  readonly historyMb: number;
  readonly rounds: number;
  /** `--etcd-compaction-interval`: `0` keeps every version, so the retained state is the whole history. */
  readonly compaction: string;
}

interface Result {
  /** Median time of the build's own `openMemoryStore` on the final data directory, in this process. */
  readonly openMs: number;
  readonly dataDirMb: number;
  readonly writtenMb: number;
  readonly restartMs: number;
  readonly readyMs: number;
  readonly recovered: string;
}

/** What a restart reads: the newest snapshot and the log segments from its sequence number on. */
function whatRecoveryReads(storeDir: string): string {
  const names = readdirSync(storeDir);
  const seq = (n: string): number => Number(/-(\d+)\./.exec(n)![1]);
  const snaps = names.filter((n) => /^snap-\d+\.snap$/.test(n)).sort();
  const newest = snaps[snaps.length - 1];
  const from = newest === undefined ? 0 : seq(newest);
  const log = names.filter((n) => /^wal-\d+\.log$/.test(n) && seq(n) >= from).reduce((a, n) => a + statSync(join(storeDir, n)).size, 0);
  const snap = newest === undefined ? 0 : statSync(join(storeDir, newest)).size;
  return `snapshot ${fmt(snap / 2 ** 20, 1)} MiB + log ${fmt(log / 2 ** 20, 1)} MiB`;
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) total += statSync(join(dir, name)).size;
  return total;
}

/** Writes `mb` MiB of updates over the live set; returns the bytes of values written. */
async function load(server: RunningServer, mb: number, revs: Map<string, string>, round: number): Promise<number> {
  const target = mb * 2 ** 20;
  let written = 0;
  let n = 0;
  const writer = async (w: number): Promise<void> => {
    while (written < target) {
      const name = `cm-${(n++ * WRITERS + w) % LIVE}`;
      const data = { v: `${round}-${n}-${'x'.repeat(VALUE_BYTES)}` };
      const rv = revs.get(name);
      if (rv === 'busy') continue;
      revs.set(name, 'busy');
      const a =
        rv === undefined
          ? await call(server, 'POST', BASE, { metadata: { name }, data })
          : await call(server, 'PUT', `${BASE}/${name}`, { metadata: { name, resourceVersion: rv }, data });
      if (a.status >= 300) throw new Error(`write ${name}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
      revs.set(name, String((a.body.metadata as { resourceVersion: string }).resourceVersion));
      written += VALUE_BYTES;
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  return written;
}

/**
 * The store's share of a restart without the rest of the server's start-up (and less noise from a shared
 * machine): the median of 3 opens of the data directory by that build's own embedded store, in this process.
 */
async function timeOpen(dist: string, storeDir: string): Promise<number> {
  const mod = (await import(pathToFileURL(join(dist, 'storage', 'memory', 'memory-store.js')).href)) as {
    openMemoryStore(o: { dataDir: string; logger?: unknown }): Promise<{ close(): Promise<void> }>;
  };
  const quiet = { info: () => undefined, warn: () => undefined };
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const store = await mod.openMemoryStore({ dataDir: storeDir, logger: quiet });
    times.push(performance.now() - t0);
    await store.close();
  }
  return times.sort((a, b) => a - b)[1]!;
}

/** SIGKILLs `server`, starts it again and waits for a GET to answer: the restart time. */
async function crashAndRestart(server: RunningServer, start: () => Promise<RunningServer>): Promise<{ next: RunningServer; ms: number }> {
  await server.kill();
  const t0 = performance.now();
  const next = await start();
  const got = await call(next, 'GET', `${BASE}/cm-0`);
  if (got.status !== 200) throw new Error(`GET after restart: ${got.status}`);
  return { next, ms: performance.now() - t0 };
}

async function runCase(dist: string, c: Case): Promise<Result> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-restart-'));
  const [port] = await freePorts(1);
  const start = (): Promise<RunningServer> =>
    startServer({ dataDir, port: port!, dist, extraArgs: [`--etcd-compaction-interval=${c.compaction}`], timeoutMs: 300_000 });
  let server = await start();
  try {
    const revs = new Map<string, string>();
    let written = 0;
    for (let round = 0; round < c.rounds; round++) {
      written += await load(server, c.historyMb / c.rounds, revs, round);
      server = (await crashAndRestart(server, start)).next;
    }
    const times: { ms: number; ready: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await crashAndRestart(server, start);
      server = r.next;
      times.push({ ms: r.ms, ready: r.next.readyMs });
    }
    times.sort((a, b) => a.ms - b.ms);
    const store = join(dataDir, 'store');
    await server.kill();
    const openMs = await timeOpen(dist, store);
    return {
      openMs,
      dataDirMb: dirBytes(store) / 2 ** 20,
      writtenMb: written / 2 ** 20,
      restartMs: times[1]!.ms,
      readyMs: times[1]!.ready,
      recovered: whatRecoveryReads(store),
    };
  } finally {
    await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchRestart(options: { readonly scale: number }): Promise<string> {
  // BENCH_RESTART_AFTER_DIST: measure another build as "this build" (e.g. a worktree of HEAD) instead.
  const after = process.env.BENCH_RESTART_AFTER_DIST;
  if (after === undefined) buildServer();
  const builds: [string, string][] = [['this build', after ?? join(ROOT, 'dist')]];
  const before = process.env.BENCH_RESTART_BEFORE_DIST;
  if (before !== undefined) builds.unshift(['before (BENCH_RESTART_BEFORE_DIST)', before]);
  const cases: Case[] = [
    { historyMb: 4, rounds: 1, compaction: '1s' },
    { historyMb: Math.max(8, Math.round(100 * options.scale)), rounds: 5, compaction: '1s' },
    { historyMb: Math.max(8, Math.round(100 * options.scale)), rounds: 5, compaction: '0' },
  ];
  const rows: string[][] = [];
  for (const c of cases) {
    for (const [label, dist] of builds) {
      process.stderr.write(`bench restart: ${label}, ${c.historyMb} MiB of history\n`);
      const r = await runCase(dist, c);
      rows.push([
        label,
        `${fmt(r.writtenMb)} MiB in ${c.rounds} crash round(s)${c.compaction === '0' ? ', never compacted' : ''}`,
        fmt(r.dataDirMb, 1),
        r.recovered,
        fmt(r.openMs),
        fmt(r.readyMs),
        fmt(r.restartMs),
      ]);
    }
  }
  return [
    '### Restart after a crash (embedded store)',
    '',
    `${LIVE} ConfigMaps of ~${VALUE_BYTES / 1024} KiB updated by ${WRITERS} writers until the history below was written, the server SIGKILLed after each round and restarted; then SIGKILLed and restarted 3 more times (median). Compaction every second (a production server's 5 minutes, scaled to this write rate), except in the last case, where nothing is compacted and the whole history is retained. Restart: spawn until /readyz 200 and a GET answered.`,
    '',
    table(['build', 'history written', 'data dir (MiB)', 'what restart read (last recovery)', 'store open (ms)', 'to /readyz (ms)', 'to first GET (ms)'], rows),
  ].join('\n');
}
