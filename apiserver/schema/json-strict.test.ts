import { StatusError } from '../errors/status-error.js';
import { findDuplicateKeys, parseJsonStrict } from './json-strict.js';

describe('parseJsonStrict', () => {
  it('returns the value and no duplicates for clean JSON', () => {
    expect(parseJsonStrict('{"a":1,"b":[1,2,{"c":"d"}]}')).toEqual({ value: { a: 1, b: [1, 2, { c: 'd' }] }, duplicateFields: [] });
  });

  it('keeps the last of duplicate keys, as Go does', () => {
    const r = parseJsonStrict('{"metadata":{"name":"a","name":"b"}}');
    expect(r.value).toEqual({ metadata: { name: 'b' } });
    expect(r.duplicateFields).toEqual(['metadata.name']);
  });

  it('skips the scan when not asked', () => {
    expect(parseJsonStrict('{"a":1,"a":2}', false).duplicateFields).toEqual([]);
  });

  it('throws 400 on invalid JSON', () => {
    let err: unknown;
    try {
      parseJsonStrict('{"a":}');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).reason).toBe('BadRequest');
    expect((err as StatusError).message).toMatch(/^error decoding JSON: /);
  });

  it('rejects an empty body', () => {
    expect(() => parseJsonStrict('')).toThrow(/error decoding JSON/);
  });
});

describe('findDuplicateKeys', () => {
  it.each([
    ['{"a":1,"a":2}', ['a']],
    ['{"a":1,"a":2,"a":3}', ['a', 'a']],
    ['{"spec":{"containers":[{"name":"x"},{"name":"y","name":"z"}]}}', ['spec.containers[1].name']],
    ['[{"a":1},{"b":1,"b":2}]', ['[1].b']],
    ['{"a":{"x":1},"b":{"x":1}}', []],
    ['{"a":[[1,2],[{"k":1,"k":1}]]}', ['a[1][0].k']],
    ['{"a":{},"b":[{}, "x", {"y":1,"y":1}]}', ['b[2].y']],
    ['{"s":"a \\" , { [ ","s":1}', ['s']],
    ['{"k\\u0041":1,"kA":2}', ['kA']],
    ['{"esc\\\\":1,"esc\\\\":2}', ['esc\\']],
    ['{"metadata":{"labels":{"a":"1","a":"2"}},"metadata":{}}', ['metadata.labels.a', 'metadata']],
    [' { "a" : 1 , "b" : { "c" : true , "c" : null } } ', ['b.c']],
  ])('%s', (text, dups) => {
    expect(findDuplicateKeys(text)).toEqual(dups);
  });

  it('survives deep nesting', () => {
    const depth = 50_000;
    const text = `${'['.repeat(depth)}{"a":1,"a":2}${']'.repeat(depth)}`;
    expect(findDuplicateKeys(text)).toHaveLength(1);
  });
});
