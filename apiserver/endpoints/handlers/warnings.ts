/**
 * The response's `Warning` headers, as kube's warning recorder writes them: each text once (a repeat is
 * dropped), in order, as an RFC 7234 warn-text. The texts are bounded: once their total passes 4,096
 * characters every warning is cut to 256 characters (those already written too), and once the cut ones
 * pass 4,096 again the rest are dropped, so a request that provokes thousands of warnings (unknown fields,
 * say) cannot grow the response's headers past what clients accept (Node's client refuses 16 KiB).
 */
import type { Context } from 'koa';

const TRUNCATE_AT_TOTAL = 4 * 1024;
const TRUNCATE_ITEM = 256;

interface Recorder {
  readonly recorded: Set<string>;
  readonly ordered: string[];
  written: number;
  truncating: boolean;
}

const recorders = new WeakMap<object, Recorder>();

const CONTROL_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Quotes a warning as an RFC 7234 warn-text (`299 - "..."`), escaping quotes and backslashes, control
 * characters as Go's strconv.Quote does (`\n`, `\x00`), and every other non-ASCII character as Go's
 * QuoteToASCII does (`\u00e9`, `\U0001f600`; a lone surrogate as `\ufffd`). A warning may quote a client's
 * field name, and a header cannot carry control characters (Node throws: a 500) nor, from Node, reliably
 * carry non-ASCII ones (their bytes depend on how the body is written); kube sends those as UTF-8.
 */
export function warningHeader(text: string): string {
  const quoted = text
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/[\u0000-\u001f\u007f]/g, (c) => CONTROL_ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/[\ud800-\udbff][\udc00-\udfff]|[^\u0000-\u007f]/g, (c) => {
      const cp = c.codePointAt(0)!;
      if (cp >= 0xd800 && cp <= 0xdfff) return '\\ufffd';
      return cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    });
  return `299 - "${quoted}"`;
}

const runes = (text: string): number => {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
};

const cut = (text: string): string => [...text].slice(0, TRUNCATE_ITEM).join('');

/** Records `texts` as Warning headers of `ctx`'s response (see the file comment). */
export function recordWarnings(ctx: Context, texts: readonly string[]): void {
  if (texts.length === 0) return;
  let r = recorders.get(ctx);
  if (r === undefined) {
    r = { recorded: new Set(), ordered: [], written: 0, truncating: false };
    recorders.set(ctx, r);
  }
  for (const original of texts) {
    if (original === '' || (r.truncating && r.written >= TRUNCATE_AT_TOTAL) || r.recorded.has(original)) continue;
    r.recorded.add(original);
    r.ordered.push(original);
    let text = original;
    let length = runes(text);
    if (r.truncating && length > TRUNCATE_ITEM) {
      text = cut(text);
      length = TRUNCATE_ITEM;
    }
    if (r.truncating || r.written + length <= TRUNCATE_AT_TOTAL) {
      r.written += length;
      ctx.append('Warning', warningHeader(text));
      continue;
    }
    // Over the total for the first time: from now on every warning is cut, the earlier ones rewritten cut.
    r.truncating = true;
    r.written = 0;
    ctx.remove('Warning');
    for (const earlier of r.ordered) {
      const shown = runes(earlier) > TRUNCATE_ITEM ? cut(earlier) : earlier;
      r.written += runes(shown);
      ctx.append('Warning', warningHeader(shown));
    }
  }
}
