import { mergeObjects } from './merge.js';
import { testSchema } from './testing/test-schema.js';

const m = (a: unknown, b: unknown) => mergeObjects(a, b, testSchema);

describe('mergeObjects (the configuration wins)', () => {
  test('granular maps merge key by key; scalars are replaced', () => {
    expect(m({ data: { a: '1', b: '2' }, spec: { replicas: 1 } }, { data: { b: '3', c: '4' }, spec: { replicas: 2 } })).toEqual({
      data: { a: '1', b: '3', c: '4' },
      spec: { replicas: 2 },
    });
  });

  test('atomic maps and lists are replaced whole', () => {
    expect(m({ selector: { a: '1', b: '2' }, args: ['x', 'y'] }, { selector: { c: '3' }, args: ['z'] })).toEqual({ selector: { c: '3' }, args: ['z'] });
  });

  test('list map elements merge by key: fields of matched elements merge, others are kept', () => {
    const live = { items: [{ name: 'a', value: '1', extra: { k: 'v' } }, { name: 'b', value: '2' }] };
    const config = { items: [{ name: 'a', value: '9' }, { name: 'c' }] };
    expect(m(live, config)).toEqual({
      items: [{ name: 'a', value: '9', extra: { k: 'v' } }, { name: 'b', value: '2' }, { name: 'c' }],
    });
  });

  test('list order: live order kept, new elements placed after their predecessor in the configuration', () => {
    const names = (o: unknown) => (o as { items: { name: string }[] }).items.map((i) => i.name);
    const items = (...n: string[]) => ({ items: n.map((name) => ({ name })) });
    expect(names(m(items('a', 'c'), items('a', 'b', 'c')))).toEqual(['a', 'b', 'c']);
    expect(names(m(items('x', 'a'), items('a', 'b')))).toEqual(['x', 'a', 'b']);
    expect(names(m(items('a', 'b', 'c'), items('b', 'a')))).toEqual(['b', 'c', 'a']);
  });

  test('sets merge by value; a new value goes before the shared value that follows it in the configuration', () => {
    expect(m({ tags: ['b', 'a'] }, { tags: ['c', 'a'] })).toEqual({ tags: ['b', 'c', 'a'] });
    expect(m({ tags: ['b', 'a'] }, { tags: ['a', 'c'] })).toEqual({ tags: ['b', 'a', 'c'] });
  });

  test('empty containers: the configuration keeps its [] or {}', () => {
    expect(m({}, { data: {}, tags: [] })).toEqual({ data: {}, tags: [] });
    expect(m({ tags: [] }, { tags: [] })).toEqual({ tags: [] });
  });

  test('null in the configuration replaces the value (it decodes as absent later)', () => {
    expect(m({ data: { a: '1' } }, { data: null })).toEqual({ data: null });
  });

  test('the inputs are not changed', () => {
    const live = { data: { a: '1' } };
    const config = { data: { b: '2' } };
    m(live, config);
    expect(live).toEqual({ data: { a: '1' } });
    expect(config).toEqual({ data: { b: '2' } });
  });
});
