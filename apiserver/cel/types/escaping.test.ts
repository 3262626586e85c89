import { CEL_RESERVED_WORDS, escapePropertyName, unescapeFieldName } from './escaping.js';

// Source: the spec's escaping table and Kubernetes' escaping rules (k8s.io/apiserver/pkg/cel Escape,
// facts file "Property-name escaping").
const ESCAPES: readonly (readonly [string, string | undefined])[] = [
  ['name', 'name'],
  ['_name', '_name'],
  ['camelCase42', 'camelCase42'],
  ['a_b', 'a_b'],
  ['a__b', 'a__underscores__b'],
  ['__x', '__underscores__x'],
  ['___', '__underscores___'],
  ['____', '__underscores____underscores__'],
  ['a.b', 'a__dot__b'],
  ['a._a', 'a__dot___a'],
  ['a-b', 'a__dash__b'],
  ['a/b', 'a__slash__b'],
  ['.a', '__dot__a'],
  ['-', '__dash__'],
  ['/', '__slash__'],
  ['x-kubernetes/y.z', 'x__dash__kubernetes__slash__y__dot__z'],
  ['a__.b', 'a__underscores____dot__b'],
  // reserved words, whole names only
  ['namespace', '__namespace__'],
  ['in', '__in__'],
  ['true', '__true__'],
  ['while', '__while__'],
  ['namespaces', 'namespaces'],
  ['inside', 'inside'],
  ['if-else', 'if__dash__else'],
  ['Namespace', 'Namespace'],
  // inaccessible
  ['', undefined],
  ['1a', undefined],
  ['9', undefined],
  ['a b', undefined],
  ['a$b', undefined],
  ['a:b', undefined],
  ['a@b', undefined],
  ['héllo', undefined],
  ['a.b c', undefined],
];

describe('escapePropertyName', () => {
  test.each(ESCAPES)('%j -> %j', (name, escaped) => {
    expect(escapePropertyName(name)).toBe(escaped);
  });

  test('every reserved word escapes as __word__', () => {
    expect(CEL_RESERVED_WORDS.size).toBe(21);
    for (const w of CEL_RESERVED_WORDS) expect(escapePropertyName(w)).toBe(`__${w}__`);
  });
});

describe('unescapeFieldName', () => {
  test.each(ESCAPES.filter((e): e is readonly [string, string] => e[1] !== undefined))('%j <- %j round trip', (name, escaped) => {
    expect(unescapeFieldName(escaped)).toBe(name);
  });

  test.each([
    ['__foo__', undefined],
    ['x__in__', undefined],
    ['__in__x', undefined],
    ['__constructor__', undefined],
    ['__in__', 'in'],
    ['plain', 'plain'],
    ['a__dot__b__dash__c', 'a.b-c'],
  ] as const)('%j -> %j', (escaped, name) => {
    expect(unescapeFieldName(escaped)).toBe(name);
  });
});
