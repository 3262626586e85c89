import { parseYamlStrict } from '../schema/yaml-strict.js';
import { cstShape, textDepthBound } from './yaml-bounds.js';
import { Parser } from 'yaml';
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

const flow = (d: number): string => '['.repeat(d) + ']'.repeat(d);
const flowMaps = (d: number): string => '{a: '.repeat(d) + '1' + '}'.repeat(d);
const blockSeqs = (d: number): string => '- '.repeat(d) + 'x';
const blockMaps = (d: number): string => Array.from({ length: d }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ` 1`;
const pairsInFlowSeqs = (d: number): string => '[a: '.repeat(d) + '1' + ']'.repeat(d);

describe('parseYamlStrict bounds', () => {
  it.each([
    ['flow sequences', flow],
    ['flow maps', flowMaps],
    ['block sequences', blockSeqs],
    ['block maps', blockMaps],
  ])('%s: at the limit decode, one level deeper is a 400 (the composer never sees it)', (_what, make) => {
    expect(parseYamlStrict(make(50), true, { maxDepth: 50 }).value).toBeDefined();
    expect(thrown(() => parseYamlStrict(make(51), true, { maxDepth: 50 }))).toEqual({ code: 400, message: 'error decoding YAML: exceeded max depth of 50' });
  });

  it('a pair inside a flow sequence is a map: two levels', () => {
    expect(parseYamlStrict(pairsInFlowSeqs(25), true, { maxDepth: 50 }).value).toBeDefined();
    expect(thrown(() => parseYamlStrict(pairsInFlowSeqs(26), true, { maxDepth: 50 })).code).toBe(400);
  });

  it.each([
    ['flow sequences', flow(200_000)],
    ['flow maps', flowMaps(100_000)],
    ['block sequences', blockSeqs(200_000)],
  ])('%s far past the default limit: 400, no stack overflow', (_what, text) => {
    expect(thrown(() => parseYamlStrict(text))).toEqual({ code: 400, message: 'error decoding YAML: exceeded max depth of 500' });
  });

  it('the default limit itself decodes', () => {
    expect(parseYamlStrict(flow(500)).value).toBeDefined();
    expect(parseYamlStrict(flowMaps(500)).value).toBeDefined();
    expect(parseYamlStrict(blockSeqs(500)).value).toBeDefined();
  });

  it('an anchor containing itself is refused (the value would be a cycle)', () => {
    expect(thrown(() => parseYamlStrict('a: &a [*a]'))).toEqual({ code: 400, message: "error decoding YAML: anchor 'a' value contains itself" });
    expect(thrown(() => parseYamlStrict('&x {b: {c: *x}}'))).toEqual({ code: 400, message: "error decoding YAML: anchor 'x' value contains itself" });
  });

  it('billion laughs: refused before anything is expanded', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    }
    expect(thrown(() => parseYamlStrict(lines.join('\n')))).toEqual({ code: 400, message: 'error decoding YAML: document contains excessive aliasing' });
  });

  it('one big anchor referenced many times (no alias inside it) is refused by its expanded size', () => {
    const big = `a: &a "${'x'.repeat(100_000)}"\nb: [${Array(100).fill('*a').join(',')}]`;
    expect(thrown(() => parseYamlStrict(big, true, { maxExpandedBytes: 1_000_000 })).message).toBe('error decoding YAML: document contains excessive aliasing');
    expect(parseYamlStrict(big, true, { maxExpandedBytes: 20_000_000 }).value).toBeDefined();
  });

  it('alias chains count toward the depth once expanded', () => {
    const chain = ['a0: &a0 [[[1]]]'];
    for (let i = 1; i < 20; i++) chain.push(`a${i}: &a${i} [*a${i - 1}]`);
    // a19 holds 19 levels around a0's 3, inside the top map: 23.
    expect(parseYamlStrict(chain.join('\n'), true, { maxDepth: 23 }).value).toBeDefined();
    expect(thrown(() => parseYamlStrict(chain.join('\n'), true, { maxDepth: 22 })).message).toBe('error decoding YAML: exceeded max depth of 22');
  });

  it('an alias is a copy, not a second reference to the same object', () => {
    const v = parseYamlStrict('a: &a {x: 1}\nb: *a\n').value as { a: object; b: object };
    expect(v.b).toEqual(v.a);
    expect(v.b).not.toBe(v.a);
  });

  it('ordinary anchors and merge keys still work', () => {
    const text = 'base: &base {a: 1, b: [p, q]}\nuse:\n  <<: *base\n  c: 2\nlist: [*base, *base]\n';
    expect(parseYamlStrict(text).value).toEqual({ base: { a: 1, b: ['p', 'q'] }, use: { a: 1, b: ['p', 'q'], c: 2 }, list: [{ a: 1, b: ['p', 'q'] }, { a: 1, b: ['p', 'q'] }] });
  });

  it('several documents are still refused', () => {
    expect(thrown(() => parseYamlStrict('a: 1\n---\nb: 2\n')).message).toMatch(/^error decoding YAML: Source contains multiple documents/);
  });
});

describe('textDepthBound', () => {
  const exact = (text: string, max: number): boolean => cstShape([...new Parser().parse(text)], max).tooDeepAt >= 0;

  it.each([
    ['a manifest with block scalars holding brackets', 'apiVersion: v1\nkind: ConfigMap\ndata:\n  script: |\n    [[[[[[[[[[ -f x\n    {{{{{{{{{{\n  other: >\n      [[[[[[[[\n  k: v\n'],
    ['pretty-printed JSON nested 40 deep with wide indentation', JSON.stringify(JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40)), null, 8)],
    ['plain scalars with brackets and quotes inside', "a: don't [stop\nb: say \"[[[[[[\"\nc: x{y}[z\nd: '[[[[[[[[[[['\ne: \"[[[[[[[[[[[\"\n"],
    ['comments', '# [[[[[[[[[[[[\na: 1 # {{{{{{{{{{{{\n'],
    ['flow in block sequences', '- [a, [b, [c]]]\n- {x: [1, 2]}\n'],
  ])('does not over-count %s', (_what, text) => {
    expect(textDepthBound(text, 10)).toBe(exact(text, 10));
    expect(textDepthBound(text, 45)).toBe(false);
  });

  it.each([
    ['flow', '['.repeat(11) + ']'.repeat(11)],
    ['flow after a key', 'a: ' + '{b: '.repeat(11) + '1' + '}'.repeat(11)],
    ['block sequences', '- '.repeat(11) + 'x'],
    ['block maps', Array.from({ length: 11 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1'],
    ['flow inside block', '  - - - ' + '['.repeat(8) + ']'.repeat(8)],
  ])('catches %s past the limit', (_what, text) => {
    expect(exact(text, 10)).toBe(true);
    expect(textDepthBound(text, 10)).toBe(true);
  });

  it('counts indentation levels, not columns', () => {
    const twoSpaces = Array.from({ length: 10 }, (_, i) => `${' '.repeat(2 * i)}a:`).join('\n') + ' 1';
    expect(textDepthBound(twoSpaces, 10)).toBe(false);
    expect(textDepthBound(twoSpaces + '\n' + ' '.repeat(20) + 'b: 1', 10)).toBe(true);
    expect(textDepthBound(twoSpaces + '\nc: 1\n  d: 1', 10)).toBe(false);
  });

  it('answers a 3 MiB deep text (how fast: make bench part bad-input)', () => {
    const text = '['.repeat(1_500_000) + ']'.repeat(1_500_000);
    expect(textDepthBound(text, 500)).toBe(true);
  });
});

describe('JSON sent as YAML', () => {
  it('decodes as the YAML parser would, duplicates included, and is bounded the same way', () => {
    const text = '{"a": {"b": [1, {"c": "x", "c": "y"}]}, "d": 1e3, "e": "yes"}';
    expect(parseYamlStrict(text)).toEqual({ value: { a: { b: [1, { c: 'y' }] }, d: 1000, e: 'yes' }, duplicateFields: ['a.b[1].c'] });
    const deep = '['.repeat(600) + ']'.repeat(600);
    expect(thrown(() => parseYamlStrict(deep)).message).toBe('error decoding YAML: exceeded max depth of 500');
    expect(thrown(() => parseYamlStrict(deep, false)).message).toBe('error decoding YAML: exceeded max depth of 500');
    // Not JSON after all: parsed (and refused) as YAML.
    expect(parseYamlStrict('{a: 1, b: [x]}').value).toEqual({ a: 1, b: ['x'] });
  });
});
