/**
 * Per-call timing of synchronous functions for bench part 5's codec table: several functions measured in the
 * same rounds, their order rotating from round to round, so a slow moment of the shared machine falls on all
 * of them alike. Each round times one batch of calls per function; the median round counts.
 */
import { performance } from 'node:perf_hooks';

export interface TimedFunction {
  readonly name: string;
  /** One call; its result's size goes into a sink, so the call cannot be optimized away. */
  readonly run: () => unknown;
}

export interface TimingOptions {
  /** Rounds kept (after the warm-up). */
  readonly rounds: number;
  /** Target wall time of one batch (one function, one round), which sets the batch's call count. */
  readonly batchMs: number;
  /** Warm-up time per function (JIT, inline caches, the writers' scratch buffers). */
  readonly warmupMs: number;
}

export interface Timing {
  readonly name: string;
  /** Median over the rounds of ns per call. */
  readonly ns: number;
  /** Lowest and highest round, ns per call. */
  readonly min: number;
  readonly max: number;
  readonly callsPerBatch: number;
  /** ns per call of each round, in round order (for ratios taken round by round). */
  readonly rounds: readonly number[];
}

/**
 * The median over the rounds of `t`'s time divided by `baseline`'s in the same round: both were measured
 * moments apart, so a busy moment of the machine cancels out better than in a ratio of medians.
 */
export function medianRatio(t: Timing, baseline: Timing): number {
  const r = t.rounds.map((ns, i) => ns / baseline.rounds[i]!).sort((a, b) => a - b);
  return r[Math.floor(r.length / 2)]!;
}

let sink = 0;

function batch(run: TimedFunction['run'], calls: number): number {
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) {
    sink += (run() as { length?: number }).length ?? 1;
  }
  return ((performance.now() - t0) * 1e6) / calls;
}

/** Times each function: warm-up, calibration of the batch size, then `rounds` rotating rounds. */
export function timeFunctions(fns: readonly TimedFunction[], o: TimingOptions): Timing[] {
  const calls: number[] = [];
  for (const f of fns) {
    // Warm up in growing batches until warmupMs have passed; the last batch calibrates.
    let n = 16;
    let spent = 0;
    let ns = 0;
    while (spent < o.warmupMs) {
      ns = batch(f.run, n);
      spent += (ns * n) / 1e6;
      n *= 2;
    }
    calls.push(Math.max(10, Math.round((o.batchMs * 1e6) / ns)));
  }
  const samples: number[][] = fns.map(() => []);
  for (let round = 0; round < o.rounds; round++) {
    for (let k = 0; k < fns.length; k++) {
      const i = (k + round) % fns.length;
      samples[i]!.push(batch(fns[i]!.run, calls[i]!));
    }
  }
  if (sink === -1) process.stderr.write('unreachable\n');
  return fns.map((f, i) => {
    const s = [...samples[i]!].sort((a, b) => a - b);
    return { name: f.name, ns: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]!, callsPerBatch: calls[i]!, rounds: samples[i]! };
  });
}
