/**
 * Nesting depth of request bodies. Every decoded body is walked by recursive code afterwards (pruning,
 * defaults, validation, CEL, managed fields, `JSON.stringify`), and V8's stack holds only a few thousand
 * levels of it: a body nested deeper than `maxNestingDepth` (request/limits.ts) is refused with a 400
 * before anything recursive sees it, instead of a `RangeError` (a 500) or, inside a regular expression,
 * a fatal abort of the process.
 *
 * Cheap on the hot path: a container needs an opening and a closing character, so a JSON text of at most
 * `2 * max` characters cannot be deeper than `max` and is not scanned at all (a 1 KiB ConfigMap costs one
 * comparison). Larger texts are scanned once, byte by byte, skipping strings; callers that scan anyway
 * (duplicate keys, json-strict.ts) count the depth in that same pass.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

/** Whether a valid JSON text of this length may nest deeper than `max` (false: no scan needed). */
export function mayExceedDepth(text: string, max: number): boolean {
  return text.length > 2 * max;
}

/**
 * Index of the first `{` or `[` that opens level `max + 1` of a text `JSON.parse` accepted, or -1 when the
 * text nests at most `max` levels. Iterative: any depth is scanned in constant stack.
 */
export function jsonDepthExceededAt(text: string, max: number): number {
  if (!mayExceedDepth(text, max)) return -1;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = jsonStringEnd(text, i);
    else if (c === LBRACE || c === LBRACKET) {
      if (++depth > max) return i;
    } else if (c === RBRACE || c === RBRACKET) depth--;
  }
  return -1;
}

/** Index of the closing quote of the JSON string opening at `start` (the text is valid JSON). */
export function jsonStringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    // A quote preceded by an odd number of backslashes is escaped.
    let slashes = 0;
    for (let j = end - 1; text.charCodeAt(j) === BACKSLASH; j--) slashes++;
    if ((slashes & 1) === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * The message of a JSON text nested too deep, in the words of Go's encoding/json (which Kubernetes'
 * decoders share): `invalid character '[' exceeded max depth`.
 */
export function jsonDepthMessage(text: string, at: number): string {
  return `invalid character '${text[at]}' exceeded max depth`;
}

/**
 * Whether a decoded value (plain JSON data: objects, arrays, scalars) nests deeper than `max`. Iterative,
 * stops at the first container past `max`; for values built after decoding (a JSON patch's `copy` and
 * `move` can stack subtrees), where no text is left to scan. The value must be a tree (no cycles).
 */
export function valueDepthExceeds(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: { v: object; d: number }[] = [{ v: value, d: 1 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (d > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push({ v: c as object, d: d + 1 });
  }
  return false;
}
