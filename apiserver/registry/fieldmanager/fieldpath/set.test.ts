import type { Path } from './path-element.js';
import { FieldSet } from './set.js';

const p = (s: string): Path => s.split('.').map((x) => `f:${x}`);
const set = (...paths: string[]): FieldSet => FieldSet.of(...paths.map(p));
const show = (s: FieldSet): string[] => s.paths().map((x) => x.map((e) => e.slice(2)).join('.'));

describe('FieldSet', () => {
  test('insert, has, size, empty, paths in order', () => {
    const s = set('spec.replicas', 'spec', 'data.b', 'data.a');
    expect(s.has(p('spec'))).toBe(true);
    expect(s.has(p('spec.replicas'))).toBe(true);
    expect(s.has(p('data'))).toBe(false);
    expect(s.has([])).toBe(false);
    expect(s.size()).toBe(4);
    expect(show(s)).toEqual(['data.a', 'data.b', 'spec', 'spec.replicas']);
    expect(new FieldSet().empty()).toBe(true);
    expect(FieldSet.of([]).empty()).toBe(true);
  });

  test('union', () => {
    expect(show(set('a.b', 'c').union(set('a.c', 'c', 'd')))).toEqual(['a.b', 'a.c', 'c', 'd']);
  });

  test('intersection keeps only common paths, at every depth', () => {
    expect(show(set('a', 'a.b', 'a.c', 'x').intersection(set('a.c', 'x.y', 'z')))).toEqual(['a.c']);
    expect(set('a.b').intersection(set('a')).empty()).toBe(true);
  });

  test('difference removes exact paths only; recursiveDifference removes what is below too', () => {
    const s = set('spec', 'spec.a', 'spec.b', 'status.x');
    expect(show(s.difference(set('spec', 'status.x')))).toEqual(['spec.a', 'spec.b']);
    expect(show(s.recursiveDifference(set('spec')))).toEqual(['status.x']);
    expect(show(s.recursiveDifference(set('spec.a', 'status')))).toEqual(['spec', 'spec.b']);
  });

  test('operations never change their operands', () => {
    const a = set('a.b');
    const b = set('a.c');
    a.union(b);
    a.difference(b);
    a.intersection(b);
    expect(show(a)).toEqual(['a.b']);
    expect(show(b)).toEqual(['a.c']);
    const m = a.withMember('f:z');
    expect(show(m)).toEqual(['a.b', 'z']);
    expect(show(a)).toEqual(['a.b']);
  });

  test('withPrefix, filterPrefix, equals', () => {
    const s = set('spec.a', 'spec', 'status.x');
    expect(show(s.withPrefix('f:spec'))).toEqual(['a']);
    expect(s.withPrefix('f:none').empty()).toBe(true);
    expect(show(s.filterPrefix('f:status'))).toEqual(['status.x']);
    expect(s.equals(set('status.x', 'spec', 'spec.a'))).toBe(true);
    expect(s.equals(set('spec', 'spec.a'))).toBe(false);
  });

  test('an element emptied by difference disappears from the listing', () => {
    const s = set('a.b').difference(set('a.b'));
    expect(s.empty()).toBe(true);
    expect(s.elements()).toEqual([]);
  });
});
