/**
 * Compile failures of an expression as Kubernetes reports them (the `Detail` of an `apiservercel.Error`):
 *
 * | stage                         | detail                                                                  |
 * |-------------------------------|-------------------------------------------------------------------------|
 * | parse / check / AST validators | `compilation failed: ERROR: <input>:1:6: undefined field 'x'`, then     |
 * |                               | cel-go's snippet: `\n | self.x > 0\n | .....^`                           |
 * | result type (CRD rule)        | `cel expression must evaluate to a bool`                                |
 * | result type (messageExpression)| `messageExpression must evaluate to a string`                          |
 * | result type (admission)       | `must evaluate to bool but got string` / `must evaluate to one of       |
 * |                               | [string null_type] but got int`                                         |
 * | program planning              | `program instantiation failed: error parsing regexp: ...` (a literal    |
 * |                               | pattern of find/findAll that RE2 refuses: cel-go compiles constant       |
 * |                               | regexes when it plans the program; Kubernetes prints no position here)  |
 *
 * The error keeps the position when there is one (also for the planning failures, whose Kubernetes text
 * has none), so tools can point at it.
 */
import type { CelCompileError } from '../errors.js';

export type ExpressionErrorType = 'Invalid' | 'Internal';

export class CelExpressionError extends Error {
  constructor(
    /** The full detail, Kubernetes' text. */
    readonly detail: string,
    readonly type: ExpressionErrorType = 'Invalid',
    /** 1-based line and column (code points) of the offending part, when known. */
    readonly line?: number,
    readonly column?: number,
  ) {
    super(detail);
    this.name = 'CelExpressionError';
  }
}

/**
 * cel-go's `Error.ToDisplayString`: `ERROR: <input>:L:C: message`, then the source line and a caret line
 * (`.` per code point before the column, `^` under it; full-width `．`/`＾` for multi-byte characters;
 * tabs shown as spaces).
 */
export function displayCompileError(e: CelCompileError): string {
  let out = `ERROR: <input>:${e.line}:${e.column}: ${e.detail}`;
  const lines = e.expression.split('\n');
  const snippet = lines[e.line - 1];
  if (snippet !== undefined && snippet.length <= 16384) {
    const text = snippet.replace(/\t/g, ' ');
    const chars = Array.from(text);
    let caret = '';
    for (let i = 0; i < e.column - 1 && i < chars.length; i++) caret += wide(chars[i]!) ? '\uff0e' : '.';
    const under = chars[e.column - 1];
    caret += under !== undefined && wide(under) ? '\uff3e' : '^';
    out += `\n | ${text}\n | ${caret}`;
  }
  return out;
}

/** A character of more than one UTF-8 byte. */
const wide = (ch: string): boolean => ch.codePointAt(0)! > 0x7f;

/** `compilation failed: <display>` (or another prefix, such as `messageExpression compilation failed: `). */
export function compilationFailed(e: CelCompileError, prefix = 'compilation failed: '): CelExpressionError {
  return new CelExpressionError(prefix + displayCompileError(e), 'Invalid', e.line, e.column);
}
