/**
 * The words Go's `encoding/json` (and sigs.k8s.io/json, which the Kubernetes decoders use) says about a
 * body it cannot read, so a conversion webhook that answers malformed JSON gets Kubernetes' message:
 *
 * - `goJsonSyntaxError`: the first syntax error of the whole input, in Go's scanner words
 *   (`invalid character 'g' looking for beginning of object key string`, `unexpected end of JSON input`);
 * - `goJsonValueType`: a JSON value's name in type errors (`string`, `number`, `bool`, `array`, `object`);
 * - `goTypeName`: `%T` of a decoded value inside an unstructured object (`map[string]interface {}`, ...).
 */

/** Go's `quoteChar`: `'x'`, with `'\''` and `'"'` special and control characters escaped. */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c);
  return `'${q.slice(1, -1)}'`;
}

class SyntaxFailure {
  constructor(readonly message: string) {}
}

/** Returns Go's syntax error for `text`, or `undefined` when it is one valid JSON value. */
export function goJsonSyntaxError(text: string): string | undefined {
  let i = 0;
  const n = text.length;
  const fail = (context: string): never => {
    if (i >= n) throw new SyntaxFailure('unexpected end of JSON input');
    throw new SyntaxFailure(`invalid character ${quoteChar(text[i]!)} ${context}`);
  };
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (text[i] !== word[k]) fail(`in literal ${word} (expecting ${quoteChar(word[k]!)})`);
    }
    i++;
  };
  const digits = (): number => {
    const start = i;
    while (i < n && text[i]! >= '0' && text[i]! <= '9') i++;
    return i - start;
  };
  const number = (): void => {
    if (text[i] === '-') {
      i++;
      if (!(i < n && text[i]! >= '0' && text[i]! <= '9')) fail('in numeric literal');
    }
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      if (digits() === 0) fail('after decimal point in numeric literal');
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (digits() === 0) fail('in exponent of numeric literal');
    }
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= n) fail('');
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/^[0-9a-fA-F]$/.test(text[i] ?? '')) fail('in \\u hexadecimal character escape');
          }
          i++;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail('in string escape code');
        i++;
        continue;
      }
      if (c < ' ') fail('in string literal');
      i++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('looking for beginning of object key string');
        string();
        ws();
        if (text[i] !== ':') fail('after object key');
        i++;
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail('after object key:value pair');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail('after array element');
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    fail('looking for beginning of value');
  };
  try {
    value();
    ws();
    if (i < n) fail('after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxFailure) return e.message;
    throw e;
  }
}

/** The JSON value kind Go names in `cannot unmarshal <kind> into ...`. */
export function goJsonValueType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** `%T` of a value decoded into an unstructured object (integers are int64, other numbers float64). */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int64';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Go's `%q` of a string (a double-quoted literal; JSON's escaping is close enough for printable text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
