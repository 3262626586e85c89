import { formatLabels, formatLabelSelector, labelMapText, labelSelectorText } from './label-format.js';

describe('label maps as text', () => {
  it('sorts keys and joins k=v pairs with commas', () => {
    expect(labelMapText({ b: '2', a: '1' })).toBe('a=1,b=2');
    expect(formatLabels({ b: '2', a: '1' })).toBe('a=1,b=2');
  });

  it('reads an absent, empty or non-object map as empty', () => {
    for (const v of [undefined, null, {}, [], 'a=1']) {
      expect(labelMapText(v)).toBe('');
      expect(formatLabels(v)).toBe('<none>');
    }
  });
});

describe('label selectors as text', () => {
  it('prints matchLabels and matchExpressions in selector syntax', () => {
    const sel = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] };
    expect(labelSelectorText(sel)).toBe('app=web,tier in (a,b)');
    expect(formatLabelSelector(sel)).toBe('app=web,tier in (a,b)');
  });

  it('prints an absent or empty selector as empty, <none> in a cell', () => {
    for (const v of [undefined, null, {}, 'x']) {
      expect(labelSelectorText(v)).toBe('');
      expect(formatLabelSelector(v)).toBe('<none>');
    }
  });

  it('throws on an invalid selector; the cell shows <error>', () => {
    const bad = { matchExpressions: [{ key: 'a', operator: 'Foo' }] };
    expect(() => labelSelectorText(bad)).toThrow('"Foo" is not a valid label selector operator');
    expect(formatLabelSelector(bad)).toBe('<error>');
  });
});
