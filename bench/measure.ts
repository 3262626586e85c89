/**
 * Measuring primitives for `make bench`: run an operation N times at a fixed concurrency and report
 * throughput and latency percentiles. Wall-clock figures on a shared 2-core machine: compare numbers taken
 * in the same run, not across runs.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface Measurement {
  readonly ops: number;
  readonly seconds: number;
  readonly opsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Runs `op(i)` for i in [0, n) with `concurrency` in flight; every op's latency is recorded. */
export async function measure(n: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<Measurement> {
  const latencies = new Float64Array(n);
  let next = 0;
  const start = performance.now();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < n; i = next++) {
      const t0 = performance.now();
      await op(i);
      latencies[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  const seconds = (performance.now() - start) / 1000;
  const sorted = Array.from(latencies).sort((a, b) => a - b);
  return {
    ops: n,
    seconds,
    opsPerSecond: n / seconds,
    p50Ms: sorted[Math.floor(n * 0.5)] ?? 0,
    p99Ms: sorted[Math.min(n - 1, Math.floor(n * 0.99))] ?? 0,
  };
}

/** Runs `fn` once to warm up, then `runs` times, and keeps the median duration in milliseconds. */
export async function medianMs(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export const fmt = (x: number, digits = 0): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** A markdown table from a header row and data rows. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * CPU seconds (user + system) the process `pid` has used so far, from /proc/<pid>/stat. On a 2-core machine
 * the load generator competes with the server, so the server's CPU per create is the steadier figure.
 */
export function cpuSeconds(pid: number): number {
  const t = cpuTimes(pid);
  return t.user + t.system;
}

/** User and system CPU seconds of the process `pid` so far (every thread), from /proc/<pid>/stat. */
export function cpuTimes(pid: number): { readonly user: number; readonly system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the whole line (utime, stime) are 12 and 13 after the command name.
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}
