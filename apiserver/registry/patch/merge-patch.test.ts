import { applyMergePatch } from './merge-patch.js';

describe('applyMergePatch (RFC 7386)', () => {
  // The examples of RFC 7386 appendix A.
  test.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, expected) => {
    const before = JSON.stringify(target);
    expect(applyMergePatch(target, patch)).toEqual(expected);
    expect(JSON.stringify(target)).toBe(before);
  });

  test('labels: kubectl label removal sends null', () => {
    const obj = { metadata: { name: 'x', labels: { a: '1', b: '2' } }, data: { k: 'v' } };
    expect(applyMergePatch(obj, { metadata: { labels: { a: null, c: '3' } } })).toEqual({
      metadata: { name: 'x', labels: { b: '2', c: '3' } },
      data: { k: 'v' },
    });
  });

  test('__proto__ keys stay data', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true}}') as unknown;
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
