/**
 * The syntax of Kubernetes' schema field paths (`ValidFieldPath`: `.spec.replicas`, `.spec['a.b']`,
 * `.labels['app']`), shared by CEL rules' `fieldPath` (schema/rule-field-path.ts) and CRD
 * `selectableFields` (registry/kinds/apiextensions/schema-field-path.ts); each resolves the tokens against
 * its schema in its own way.
 *
 * Tokens are `.`, `[`, `]` and the text between them; a single-quoted string may contain delimiters and the
 * escapes `\a \b \f \n \r \t \v \' \\`.
 */

const ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

/** Splits a path into `.`, `[`, `]` and the text between them; a token starting with `'` runs to its closing quote. */
export function fieldPathTokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
      continue;
    }
    let j = i;
    if (c === "'") {
      j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      j = Math.min(j + 1, path.length);
    } else {
      while (j < path.length && path[j] !== '.' && path[j] !== '[' && path[j] !== ']') j++;
    }
    out.push(path.slice(i, j));
    i = j;
  }
  return out;
}

/** The text of a quoted token's inside with its escapes resolved, or the first invalid escape (`\x`). */
export function unescapeQuoted(s: string): { readonly value: string } | { readonly badEscape: string } {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = ESCAPES[s[i + 1] ?? ''];
    if (e === undefined) return { badEscape: s.slice(i, i + 2) };
    out += e;
    i++;
  }
  return { value: out };
}
