import { parseFieldSelector } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import { maxSelectorRequirements } from '../request/limits.js';
import { isStatusError } from '../errors/status-error.js';

function thrown(f: () => unknown): { code: number; message: string } {
  try {
    f();
  } catch (err) {
    if (isStatusError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('did not throw');
}

const labels = (n: number): string => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');
const fields = (n: number): string => Array.from({ length: n }, (_, i) => `metadata.name!=n${i}`).join(',');

describe('selector requirement limits', () => {
  it('a label selector of 1000 requirements parses; 1001 is a 400 before parsing', () => {
    expect(parseLabelSelector(labels(maxSelectorRequirements)).requirements).toHaveLength(maxSelectorRequirements);
    expect(thrown(() => parseLabelSelector(labels(maxSelectorRequirements + 1)))).toEqual({ code: 400, message: 'labelSelector: Too many: 1001: must have at most 1000 requirements' });
  });

  it('values of in (...) do not count, and match through a set', () => {
    const values = Array.from({ length: 50_000 }, (_, i) => `v${i}`);
    const s = parseLabelSelector(`app in (${values.join(',')}),tier notin (${values.join(',')})`);
    expect(s.requirements).toHaveLength(2);
    let matched = 0;
    for (let i = 0; i < 10_000; i++) if (s.matches({ app: `v${i}`, tier: 'x' })) matched++;
    expect(matched).toBe(10_000);
    expect(s.matches({ app: 'nope' })).toBe(false);
    expect(s.matches({ app: 'v1', tier: 'v2' })).toBe(false);
  });

  it('a field selector of 1001 terms is a 400; empty terms do not count', () => {
    expect(parseFieldSelector(fields(maxSelectorRequirements) + ',,,').requirements).toHaveLength(maxSelectorRequirements);
    expect(thrown(() => parseFieldSelector(fields(maxSelectorRequirements + 1)))).toEqual({ code: 400, message: 'fieldSelector: Too many: 1001: must have at most 1000 requirements' });
  });

  it('a 1 MiB selector is refused (how fast: make bench part bad-input)', () => {
    expect(thrown(() => parseLabelSelector('a,'.repeat(500_000) + 'a')).code).toBe(400);
    expect(thrown(() => parseFieldSelector('a=b,'.repeat(250_000))).code).toBe(400);
  });
});
