/**
 * Benchmark part `bad-input` (`--only=bad-input`): how long the server's decoders take to refuse the
 * pathological bodies of issue 18 (test/e2e/bad-input/ proves they are refused; this measures that the
 * refusal is bounded work, not an event-loop stall). In this process, no server; each row is the median of
 * 5 runs of the decoder alone (wall time):
 *   JSON 1.5 M levels deep (3 MiB), YAML flow/block 200,000 deep, YAML billion laughs, the text pre-check of
 *   YAML depth over 3 MiB, a 1 MiB label selector and field selector (past 1,000 requirements), a match of a
 *   label selector with two 10,000-value `in`/`notin` sets against 10,000 label sets.
 */
import { performance } from 'node:perf_hooks';
import { textDepthBound } from '../apiserver/codec/yaml-bounds.js';
import { parseJsonStrict } from '../apiserver/schema/json-strict.js';
import { parseYamlStrict } from '../apiserver/schema/yaml-strict.js';
import { parseFieldSelector } from '../apiserver/selectors/field-selector.js';
import { parseLabelSelector } from '../apiserver/selectors/label-selector.js';
import { table } from './measure.js';

const RUNS = 5;

/** Median wall time of `f`, which is expected to throw (a refusal) or return. */
function median(f: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    try {
      f();
    } catch {
      // the refusal is the point
    }
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) {
    const name = String.fromCharCode(97 + i);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
  }
  return lines.join('\n');
}

export async function benchBadInput(_o: { scale?: number } = {}): Promise<string> {
  const deepJson = '['.repeat(1.5 * 1024 * 1024) + ']'.repeat(1.5 * 1024 * 1024);
  const values = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
  const wide = parseLabelSelector(`app in (${values.join(',')}),tier notin (${values.join(',')})`);
  const rows: [string, number][] = [
    ['JSON, 1.5 M levels (3 MiB): 400', median(() => parseJsonStrict(deepJson, false))],
    ['YAML flow sequences, 200,000 deep: 400', median(() => parseYamlStrict('['.repeat(200_000) + ']'.repeat(200_000)))],
    ['YAML flow maps, 100,000 deep: 400', median(() => parseYamlStrict('{a: '.repeat(100_000) + '1' + '}'.repeat(100_000)))],
    ['YAML block sequences, 200,000 deep: 400', median(() => parseYamlStrict('- '.repeat(200_000) + 'x'))],
    ['YAML billion laughs: 400', median(() => parseYamlStrict(billionLaughs()))],
    ['YAML depth pre-check of 3 MiB of brackets', median(() => textDepthBound('['.repeat(1_500_000) + ']'.repeat(1_500_000), 500))],
    ['label selector of 1 MiB: 400', median(() => parseLabelSelector('a,'.repeat(500_000) + 'a'))],
    ['field selector of 1 MiB: 400', median(() => parseFieldSelector('a=b,'.repeat(250_000)))],
    ['10,000 matches of two 10,000-value sets', median(() => {
      for (let i = 0; i < 10_000; i++) wide.matches({ app: `v${i}`, tier: 'x' });
    })],
  ];
  return `### Part bad-input: refusing pathological bodies (decoder alone, median of ${RUNS})\n\n`
    + table(['input', 'ms'], rows.map(([what, ms]) => [what, ms.toFixed(1)]));
}
