import { canonicalQuantity, compareQuantity, formatQuantity, isWhole, parseQuantity, roundUp } from './quantity.js';

const q = (s: unknown) => {
  const v = parseQuantity(s);
  if (v === undefined) throw new Error(`unparsable ${String(s)}`);
  return v;
};

describe('parseQuantity', () => {
  it.each(['100m', '1Gi', '1e3', '0.5', '.5', '5.', '+1', '-1', '12E', '1E-3', '3n', '2Ki'])('accepts %s', (s) => {
    expect(parseQuantity(s)).toBeDefined();
  });

  it.each(['', 'abc', '1 Gi', '1GiB', '1.2.3', 'm', '1e', '1Mi3', '--1'])('rejects %j', (s) => {
    expect(parseQuantity(s)).toBeUndefined();
  });

  it('accepts JSON numbers, rejects other types', () => {
    expect(formatQuantity(q(0.5))).toBe('500m');
    expect(formatQuantity(q(2))).toBe('2');
    expect(parseQuantity(true)).toBeUndefined();
    expect(parseQuantity(Number.NaN)).toBeUndefined();
  });
});

describe('compareQuantity', () => {
  it('compares exactly across suffix families', () => {
    expect(compareQuantity(q('1Gi'), q('1073741824'))).toBe(0);
    expect(compareQuantity(q('0.1'), q('100m'))).toBe(0);
    expect(compareQuantity(q('1e3'), q('1k'))).toBe(0);
    expect(compareQuantity(q('1G'), q('1Gi'))).toBe(-1);
    expect(compareQuantity(q('501m'), q('0.5'))).toBe(1);
  });
});

describe('formatQuantity (canonical form)', () => {
  it.each([
    ['1000m', '1'],
    ['0.5', '500m'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['512', '512'],
    ['1e3', '1e3'],
    ['100m', '100m'],
    ['0', '0'],
    ['0.0000000001', '1n'],
    ['-1.5', '-1500m'],
  ])('%s -> %s', (input, out) => {
    expect(canonicalQuantity(input)).toBe(out);
  });

  it('rounds up to milli precision for resource lists', () => {
    expect(formatQuantity(roundUp(q('0.0001'), -3))).toBe('1m');
    expect(formatQuantity(roundUp(q('1.0001'), -3))).toBe('1001m');
  });

  it('knows whole values', () => {
    expect(isWhole(q('2'))).toBe(true);
    expect(isWhole(q('1500m'))).toBe(false);
    expect(isWhole(q('2000m'))).toBe(true);
  });
});
