import { goJsonSyntaxError, goTypeName } from './go-json.js';

describe("Go's JSON syntax errors", () => {
  it.each([
    ['{"a":1}', undefined],
    [' [1, -2.5e3, "x\\u00e9", true, false, null] ', undefined],
    ['', 'unexpected end of JSON input'],
    ['{garbage', "invalid character 'g' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"a":x}', "invalid character 'x' looking for beginning of value"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
    ['{"a":-}', "invalid character '}' in numeric literal"],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
    ['{"a":"\n"}', "invalid character '\\n' in string literal"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['{"a":"b', 'unexpected end of JSON input'],
  ])('%j', (text, message) => {
    expect(goJsonSyntaxError(text)).toBe(message);
  });

  it('%T of unstructured values', () => {
    expect([null, 's', 1, 1.5, true, [], {}].map(goTypeName)).toEqual(['<nil>', 'string', 'int64', 'float64', 'bool', '[]interface {}', 'map[string]interface {}']);
  });
});
