/**
 * Property-name escaping: how a schema property name is written as a CEL field name (Kubernetes'
 * `k8s.io/apiserver/pkg/cel` Escape/Unescape, spec "Escaping of property names in expressions").
 *
 * | property name                              | CEL field name                                  |
 * |--------------------------------------------|-------------------------------------------------|
 * | a reserved word, whole name (`namespace`)   | `__namespace__`                                 |
 * | `__` (scanned left to right)                | `__underscores__`                               |
 * | `.`, `-`, `/`                              | `__dot__`, `__dash__`, `__slash__`              |
 * | empty, first character a digit, or any     | not accessible (`undefined`)                    |
 * | character outside `[a-zA-Z0-9_.-/]`        |                                                 |
 *
 * Only a whole-name keyword match is escaped: `namespace` becomes `__namespace__`, `namespaces` stays.
 * `___` becomes `__underscores___` (the first two underscores form the pair), `a._a` becomes
 * `a__dot___a`.
 */

/** CEL's reserved words (the cel-spec lexer's RESERVED set plus the literals and `in`). */
export const CEL_RESERVED_WORDS: ReadonlySet<string> = new Set([
  'true', 'false', 'null', 'in',
  'as', 'break', 'const', 'continue', 'else',
  'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return',
  'var', 'void', 'while',
]);

/** Names that need no rewriting: identifier characters only and no `__` pair. */
const PLAIN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Every character a property name may contain to be accessible. */
const ACCESSIBLE = /^[a-zA-Z0-9_./-]*$/;
/** An escape pair or a character to escape, leftmost first (`__` before single characters). */
const EXPAND = /__|[./-]/g;
const EXPANSIONS: Readonly<Record<string, string>> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/**
 * The CEL field name of a property, or undefined when the property cannot be expressed in CEL (it is
 * then not accessible to rules, but still counts for equality and size).
 */
export function escapePropertyName(name: string): string | undefined {
  if (name.length === 0) return undefined;
  const first = name.charCodeAt(0);
  if (first >= 0x30 && first <= 0x39) return undefined;
  if (CEL_RESERVED_WORDS.has(name)) return `__${name}__`;
  if (PLAIN.test(name) && !name.includes('__')) return name;
  if (!ACCESSIBLE.test(name)) return undefined;
  return name.replace(EXPAND, (m) => EXPANSIONS[m]!);
}

/** An escape sequence: two underscores, a run without underscores, two underscores. */
const UNEXPAND = /__[^_]+__/g;
const UNESCAPES: ReadonlyMap<string, string> = new Map([['underscores', '__'], ['dot', '.'], ['dash', '-'], ['slash', '/']]);

/**
 * The property name a CEL field name stands for, or undefined when it contains an escape sequence that
 * escaping never produces (`__foo__`, or a keyword escape that is not the whole name: `x__in__`).
 * The input is expected to be a CEL identifier; it is not checked.
 */
export function unescapeFieldName(escaped: string): string | undefined {
  let ok = true;
  const out = escaped.replace(UNEXPAND, (m) => {
    const word = m.slice(2, -2);
    const plain = UNESCAPES.get(word);
    if (plain !== undefined) return plain;
    if (CEL_RESERVED_WORDS.has(word)) {
      // A keyword escape stands for the keyword only when it is the whole name.
      if (m.length !== escaped.length) ok = false;
      return word;
    }
    ok = false;
    return '';
  });
  return ok ? out : undefined;
}
