import { jsonDepthExceededAt, valueDepthExceeds } from './nesting-depth.js';
import { parseJsonStrict } from '../schema/json-strict.js';
import { isStatusError } from '../errors/status-error.js';

const arrays = (d: number): string => '['.repeat(d) + ']'.repeat(d);
const objects = (d: number): string => '{"a":'.repeat(d) + '1' + '}'.repeat(d);

function thrown(f: () => unknown): { code: number; message: string } {
  try {
    f();
  } catch (err) {
    if (isStatusError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('did not throw');
}

describe('jsonDepthExceededAt', () => {
  it('finds the bracket that opens the first level past the limit, skipping strings', () => {
    expect(jsonDepthExceededAt(arrays(10), 10)).toBe(-1);
    expect(jsonDepthExceededAt(arrays(11), 10)).toBe(10);
    // Brackets and escaped quotes inside strings are not structure.
    const text = `[${JSON.stringify('[[[[[[[[[[[[["\\')}, ${'['.repeat(5)}${']'.repeat(5)}]`;
    expect(jsonDepthExceededAt(text, 6)).toBe(-1);
    expect(jsonDepthExceededAt(text, 5)).toBe(text.lastIndexOf('['));
  });

  it('does not scan a text too short to be that deep', () => {
    // 2 * max characters can hold at most max levels: the scan is skipped (an invalid text is not looked at).
    expect(jsonDepthExceededAt('[[[[[[', 3)).toBe(-1);
    expect(jsonDepthExceededAt('[[[[[[[', 3)).toBe(3);
  });
});

describe('parseJsonStrict depth limit', () => {
  it.each([true, false])('refuses a body one level too deep with Go\'s words (duplicate scan %s)', (detect) => {
    expect(parseJsonStrict(objects(500), detect).value).toBeDefined();
    expect(thrown(() => parseJsonStrict(objects(501), detect))).toEqual({ code: 400, message: `error decoding JSON: invalid character '{' exceeded max depth` });
    expect(thrown(() => parseJsonStrict(arrays(1_000_000), detect))).toEqual({ code: 400, message: `error decoding JSON: invalid character '[' exceeded max depth` });
  });

  it('a 3 MiB-deep body is refused (how fast: make bench part bad-input)', () => {
    const text = arrays(1.5 * 1024 * 1024);
    expect(thrown(() => parseJsonStrict(text, false)).code).toBe(400);
  });
});

describe('valueDepthExceeds', () => {
  it('counts containers, iteratively', () => {
    expect(valueDepthExceeds(JSON.parse(objects(5)), 5)).toBe(false);
    expect(valueDepthExceeds(JSON.parse(objects(6)), 5)).toBe(true);
    expect(valueDepthExceeds(JSON.parse(arrays(200_000)), 1000)).toBe(true);
    expect(valueDepthExceeds('x', 0)).toBe(false);
  });
});
