import { StatusError } from '../../errors/status-error.js';
import { applyJsonPatch, JsonPatchNotApplicable, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';

function failure(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected a StatusError');
}

describe('applyJsonPatch', () => {
  const doc = { metadata: { name: 'a', labels: { x: '1' } }, list: [1, 2, 3], 'a/b': { 'c~d': true } };

  test('add, remove, replace on members and arrays; the input is untouched', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/metadata/labels/y', value: '2' },
      { op: 'remove', path: '/metadata/labels/x' },
      { op: 'replace', path: '/metadata/name', value: 'b' },
      { op: 'add', path: '/list/0', value: 0 },
      { op: 'add', path: '/list/-', value: 4 },
      { op: 'remove', path: '/list/2' },
      { op: 'replace', path: '/list/1', value: 9 },
    ]);
    expect(out).toEqual({ metadata: { name: 'b', labels: { y: '2' } }, list: [0, 9, 3, 4], 'a/b': { 'c~d': true } });
    expect(doc).toEqual({ metadata: { name: 'a', labels: { x: '1' } }, list: [1, 2, 3], 'a/b': { 'c~d': true } });
  });

  test('escaped pointer tokens', () => {
    const out = applyJsonPatch(doc, [{ op: 'replace', path: '/a~1b/c~0d', value: false }]) as typeof doc;
    expect(out['a/b']['c~d']).toBe(false);
  });

  test('move and copy; copies are independent', () => {
    const out = applyJsonPatch(doc, [
      { op: 'copy', from: '/metadata/labels', path: '/copied' },
      { op: 'move', from: '/metadata/name', path: '/moved' },
      { op: 'add', path: '/copied/z', value: 'z' },
    ]) as Record<string, unknown>;
    expect(out.moved).toBe('a');
    expect(out.metadata).toEqual({ labels: { x: '1' } });
    expect(out.copied).toEqual({ x: '1', z: 'z' });
  });

  test('replace and add of the root', () => {
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
    expect(applyJsonPatch(doc, [{ op: 'add', path: '', value: [1] }])).toEqual([1]);
  });

  test('test passes on structural equality (key order ignored) and fails with 422', () => {
    expect(() => applyJsonPatch(doc, [{ op: 'test', path: '/metadata', value: { labels: { x: '1' }, name: 'a' } }])).not.toThrow();
    const err = failure(() => applyJsonPatch(doc, [{ op: 'test', path: '/metadata/name', value: 'zz' }]));
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toBe('the server rejected our request due to an error in our request');
    expect(err.details).toEqual({});
    expect((err as JsonPatchNotApplicable).detail).toBe('testing value /metadata/name failed: test failed');
  });

  test('a failed test leaves the input untouched even after earlier operations', () => {
    failure(() => applyJsonPatch(doc, [{ op: 'remove', path: '/list' }, { op: 'test', path: '/metadata/name', value: 'x' }]));
    expect(doc.list).toEqual([1, 2, 3]);
  });

  test.each([
    [{ op: 'remove', path: '/nope' }, "error in remove for path: '/nope': Unable to remove nonexistent key: nope: missing value"],
    [{ op: 'add', path: '/a/b/c', value: 1 }, 'add operation does not apply: doc is missing path: "/a/b/c": missing value'],
    [{ op: 'replace', path: '/nope', value: 1 }, 'replace operation does not apply: doc is missing key: /nope: missing value'],
    [{ op: 'add', path: '/list/7', value: 1 }, "error in add for path: '/list/7': Unable to access invalid index: 7: invalid index referenced"],
    [{ op: 'add', path: '/list/-1', value: 1 }, "error in add for path: '/list/-1': Unable to access invalid index: -1: invalid index referenced"],
    [{ op: 'add', path: '/list/01', value: 1 }, "error in add for path: '/list/01': Unable to access invalid index: 01: invalid index referenced"],
    [{ op: 'frobnicate', path: '/x' }, 'Unexpected kind: frobnicate'],
    [{ op: 'add', path: '/x' }, 'add operation, missing value field: missing value'],
    [{ op: 'add', path: 'x', value: 1 }, `JSON pointer must be empty or start with '/': "x"`],
    [{ op: 'move', from: '/metadata', path: '/metadata/x' }, 'move operation does not apply: from "/metadata" is a prefix of path "/metadata/x"'],
  ])('%j does not apply: 422 %s', (op, message) => {
    const err = failure(() => applyJsonPatch(doc, [op]));
    expect(err.code).toBe(422);
    expect((err as JsonPatchNotApplicable).detail).toBe(message);
  });

  test('test against a missing member or with null', () => {
    expect(() => applyJsonPatch({ a: null }, [{ op: 'test', path: '/a', value: null }])).not.toThrow();
    expect(failure(() => applyJsonPatch({}, [{ op: 'test', path: '/a', value: null }])).code).toBe(422);
  });

  test('a non-array patch or a non-object operation is 400', () => {
    expect(failure(() => applyJsonPatch(doc, { op: 'add' })).code).toBe(400);
    expect(failure(() => applyJsonPatch(doc, ['add'])).code).toBe(400);
    expect(failure(() => applyJsonPatch(doc, [{ op: 'add', path: 5, value: 1 }])).code).toBe(400);
  });

  test('more than 10,000 operations is 413', () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '', value: {} }));
    const err = failure(() => applyJsonPatch({}, ops));
    expect(err.code).toBe(413);
    expect(err.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  });

  test('copies are capped in accumulated bytes', () => {
    const big = { a: 'x'.repeat(1000) };
    const ops = Array.from({ length: 5 }, (_, i) => ({ op: 'copy', from: '/a', path: `/c${i}` }));
    expect(() => applyJsonPatch(big, ops, { maxCopyBytes: 5 * 1002 })).not.toThrow();
    const err = failure(() => applyJsonPatch(big, ops, { maxCopyBytes: 4 * 1002 + 1 }));
    expect(err.code).toBe(422);
    expect((err as JsonPatchNotApplicable).detail).toBe('Unable to complete the copy, the accumulated size increase of copy is 5010, exceeding the limit 4009');
  });

  test('exponential copy growth hits the default cap', () => {
    const doubling: Record<string, unknown>[] = [{ op: 'add', path: '/a', value: ['x'.repeat(1024)] }];
    for (let i = 0; i < 30; i++) doubling.push({ op: 'copy', from: '/a', path: '/a/-' });
    expect(failure(() => applyJsonPatch({}, doubling)).code).toBe(422);
  });

  test('mutate applies in place', () => {
    const mine = { a: 1 };
    const out = applyJsonPatch(mine, [{ op: 'add', path: '/b', value: 2 }], { mutate: true });
    expect(out).toBe(mine);
    expect(mine).toEqual({ a: 1, b: 2 });
  });

  test('__proto__ members are plain data', () => {
    const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
