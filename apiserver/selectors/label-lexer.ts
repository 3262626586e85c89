/**
 * The tokenizer of Kubernetes' label selector syntax (apimachinery `labels.Lexer`): identifiers are runs
 * of anything but whitespace and the special symbols `= ! ( ) , > <`; `in` and `notin` are keywords; runs
 * of special symbols are matched greedily against the operator table (`!=`, `==`, `=`, `!`, `>`, `<` ...).
 */

export type TokenKind =
  | 'error'
  | 'eos'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'identifier'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

export interface Token {
  readonly kind: TokenKind;
  /** The text as written; for `error` tokens, the error message. */
  readonly literal: string;
}

const literalTokens: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  [')', 'closedPar'],
  [',', 'comma'],
  ['!', 'doesNotExist'],
  ['==', 'doubleEquals'],
  ['=', 'equals'],
  ['>', 'greaterThan'],
  ['in', 'in'],
  ['<', 'lessThan'],
  ['!=', 'notEquals'],
  ['notin', 'notIn'],
  ['(', 'openPar'],
]);

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

/** All tokens of `text`, ending with one `eos` token. */
export function lexLabelSelector(text: string): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let pos = 0;
  for (;;) {
    while (pos < n && isWhitespace(text[pos]!)) pos++;
    if (pos >= n) {
      out.push({ kind: 'eos', literal: '' });
      return out;
    }
    const c = text[pos]!;
    if (isSpecial(c)) {
      // Grow the run while it still names an operator; stop at the first symbol that breaks it.
      let buffer = '';
      let last: Token | undefined;
      while (pos < n && isSpecial(text[pos]!)) {
        buffer += text[pos]!;
        const kind = literalTokens.get(buffer);
        if (kind !== undefined) {
          last = { kind, literal: buffer };
        } else if (last !== undefined) {
          break;
        }
        pos++;
      }
      out.push(last ?? { kind: 'error', literal: `error expected: keyword found '${buffer}'` });
      continue;
    }
    const begin = pos;
    while (pos < n && !isSpecial(text[pos]!) && !isWhitespace(text[pos]!)) pos++;
    const word = text.slice(begin, pos);
    const kind = word === 'in' || word === 'notin' ? literalTokens.get(word)! : 'identifier';
    out.push({ kind, literal: word });
  }
}
