import { StatusError } from '../errors/status-error.js';
import { parseLabelSelector } from './label-selector.js';
import { labelSelectorFromObject } from './label-selector-object.js';

function err(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

const parseErr = (text: string): string => {
  const e = err(() => parseLabelSelector(text));
  expect(e.code).toBe(400);
  expect(e.reason).toBe('BadRequest');
  return e.message;
};

describe('parseLabelSelector', () => {
  it('treats empty and blank text as everything', () => {
    for (const t of ['', '   ']) {
      const s = parseLabelSelector(t);
      expect(s.empty).toBe(true);
      expect(s.matches(undefined)).toBe(true);
      expect(s.matches({ a: 'b' })).toBe(true);
      expect(s.toString()).toBe('');
    }
  });

  it.each([
    ['a=b', { a: 'b' }, { a: 'c' }],
    ['a==b', { a: 'b' }, {}],
    ['a!=b', { a: 'c' }, { a: 'b' }],
    ['a in (b,c)', { a: 'c' }, { a: 'd' }],
    ['a notin (b,c)', { a: 'd' }, { a: 'b' }],
    ['a', { a: '' }, { b: 'a' }],
    ['!a', { b: 'x' }, { a: 'x' }],
    ['a>5', { a: '6' }, { a: '5' }],
    ['a<5', { a: '-1' }, { a: '5' }],
  ])('%s matches and rejects', (text, yes, no) => {
    const s = parseLabelSelector(text);
    expect(s.empty).toBe(false);
    expect(s.matches(yes)).toBe(true);
    expect(s.matches(no)).toBe(false);
  });

  it('matches a missing key as kube does per operator', () => {
    expect(parseLabelSelector('a!=b').matches(undefined)).toBe(true);
    expect(parseLabelSelector('a notin (b)').matches({})).toBe(true);
    expect(parseLabelSelector('a=b').matches(undefined)).toBe(false);
    expect(parseLabelSelector('a in (b)').matches({})).toBe(false);
    expect(parseLabelSelector('a>1').matches({})).toBe(false);
    expect(parseLabelSelector('a>1').matches({ a: 'x' })).toBe(false);
  });

  it('compares gt/lt as 64-bit integers', () => {
    expect(parseLabelSelector('a>9007199254740993').matches({ a: '9007199254740994' })).toBe(true);
    expect(parseLabelSelector('a>9007199254740993').matches({ a: '9007199254740993' })).toBe(false);
    expect(parseLabelSelector('a<3').matches({ a: '+002' })).toBe(true);
    expect(parseErr('a<+3')).toMatch(/values\[0\]\[a\]: Invalid value: "\+3"/);
  });

  it('ANDs requirements, sorts them by key and prints canonically', () => {
    const s = parseLabelSelector('  z = 1 , a in ( y , x ),!m, k , b notin (q), c==2, d!=3, e>4, f<5');
    expect(s.requirements.map((r) => r.key)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'k', 'm', 'z']);
    expect(s.requirements[0]).toEqual({ key: 'a', operator: 'in', values: ['x', 'y'] });
    expect(s.toString()).toBe('a in (x,y),b notin (q),c==2,d!=3,e>4,f<5,k,!m,z=1');
    expect(s.matches({ z: '1', a: 'x', k: '', c: '2', e: '5', f: '4' })).toBe(true);
    expect(s.matches({ z: '1', a: 'x', k: '', c: '2', e: '5', f: '4', m: '' })).toBe(false);
  });

  it('accepts empty values and keywords as values', () => {
    expect(parseLabelSelector('a=').matches({ a: '' })).toBe(true);
    expect(parseLabelSelector('a=,b').requirements).toEqual([
      { key: 'a', operator: '=', values: [''] },
      { key: 'b', operator: 'exists', values: [] },
    ]);
    expect(parseLabelSelector('a in ()').requirements[0]!.values).toEqual(['']);
    expect(parseLabelSelector('a in (,b)').requirements[0]!.values).toEqual(['', 'b']);
    expect(parseLabelSelector('a in (b,)').requirements[0]!.values).toEqual(['', 'b']);
    expect(parseLabelSelector('a in (b,,c)').requirements[0]!.values).toEqual(['', 'b', 'c']);
    expect(parseLabelSelector('a=in').requirements[0]!.values).toEqual(['in']);
    expect(parseLabelSelector('a in (notin)').requirements[0]!.values).toEqual(['notin']);
    expect(parseLabelSelector('example.com/app=web').matches({ 'example.com/app': 'web' })).toBe(true);
  });

  it.each([
    ['a=b,', "found '', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['a=b c=d', "found 'c', expected: ',' or 'end of string'"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in (,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['a=(b)', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a>b', "unable to parse requirement: values[0]: Invalid value: \"b\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a>99999999999999999999', "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer"],
  ])('%j is rejected: %s', (text, message) => {
    expect(parseErr(text)).toBe(message);
  });

  it('validates keys and values with the Kubernetes messages', () => {
    expect(parseErr('a/b/c=d')).toMatch(/^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist of/);
    expect(parseErr('-a=b')).toMatch(/^unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric characters/);
    expect(parseErr('a=-b')).toMatch(/^unable to parse requirement: values\[0\]\[a\]: Invalid value: "-b": a valid label must be an empty string or consist of/);
    expect(parseErr(`a=${'x'.repeat(64)}`)).toMatch(/values\[0\]\[a\]: Invalid value: "x{64}": must be no more than 63 characters$/);
    expect(parseErr('a in (ok,-bad,-worse)')).toMatch(/^unable to parse requirement: \[values\[1\]\[a\]: Invalid value: "-bad": .*, values\[2\]\[a\]: Invalid value: "-worse": .*\]$/);
  });
});

describe('labelSelectorFromObject', () => {
  it('selects nothing for null and everything for an empty selector', () => {
    expect(labelSelectorFromObject(null).matches({})).toBe(false);
    expect(labelSelectorFromObject(undefined).empty).toBe(false);
    expect(labelSelectorFromObject({}).matches({ a: 'b' })).toBe(true);
    expect(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).empty).toBe(true);
  });

  it('combines matchLabels and matchExpressions', () => {
    const s = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist', values: null },
      ],
    });
    expect(s.toString()).toBe('app=web,env notin (prod),!legacy,owner,tier in (a,b)');
    expect(s.matches({ app: 'web', tier: 'a', owner: 'x' })).toBe(true);
    expect(s.matches({ app: 'web', tier: 'a', owner: 'x', legacy: '1' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'c', owner: 'x' })).toBe(false);
  });

  it('rejects unknown operators and bad requirements', () => {
    expect(err(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).message).toBe(
      '"Gt" is not a valid label selector operator',
    );
    expect(err(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] })).message).toBe(
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(err(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] })).message).toBe(
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    );
    expect(err(() => labelSelectorFromObject({ matchLabels: { 'a b': 'c' } })).message).toMatch(/^key: Invalid value: "a b": name part must consist/);
  });
});
