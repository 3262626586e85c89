/**
 * Media types as they appear in `Content-Type` and `Accept`: `type/subtype; k=v; k="quoted v"`.
 * Type, subtype and parameter names are case-insensitive and returned lower-cased; parameter values keep
 * their case (Kubernetes compares `as=Table` exactly).
 */

export interface MediaType {
  /** Lower-cased: `application`. */
  readonly type: string;
  /** Lower-cased: `json`, `merge-patch+json`. */
  readonly subtype: string;
  /** Names lower-cased, values as written (unquoted). */
  readonly params: Readonly<Record<string, string>>;
}

/** One clause of an Accept header. */
export interface AcceptClause extends MediaType {
  /** 0..1; `q` itself is not in `params`. */
  readonly q: number;
}

/** Splits on `sep` outside double quotes. */
function splitUnquoted(text: string, sep: string): string[] {
  if (!text.includes('"')) return text.split(sep);
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && quoted) i++;
    else if (c === sep && !quoted) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

function parseOne(text: string): { type: string; subtype: string; params: Record<string, string> } | undefined {
  const pieces = splitUnquoted(text, ';');
  const range = pieces[0]!.trim().toLowerCase();
  if (range === '') return undefined;
  const slash = range.indexOf('/');
  // A lone `*` is read as `*/*` (some clients send it).
  const type = slash < 0 ? range : range.slice(0, slash).trim();
  const subtype = slash < 0 ? (range === '*' ? '*' : '') : range.slice(slash + 1).trim();
  if (type === '' || subtype === '' || subtype.includes('/')) return undefined;
  const params: Record<string, string> = {};
  for (let i = 1; i < pieces.length; i++) {
    const p = pieces[i]!;
    const eq = p.indexOf('=');
    const k = (eq < 0 ? p : p.slice(0, eq)).trim().toLowerCase();
    if (k === '') continue;
    params[k] = eq < 0 ? '' : unquote(p.slice(eq + 1).trim());
  }
  return { type, subtype, params };
}

/**
 * Parses one media type (a `Content-Type` value). Undefined for text without a `type/subtype` (empty, a
 * bare word, `a/b/c`).
 */
export function parseMediaType(text: string): MediaType | undefined {
  return parseOne(text);
}

/** `type/subtype` without parameters, lower-cased; '' when unparseable. */
export function essence(text: string): string {
  const m = parseOne(text);
  return m === undefined ? '' : `${m.type}/${m.subtype}`;
}

/**
 * Parses an Accept header into clauses ordered by preference: higher `q` first, then the more specific
 * (`a/b` before `a/*` before `*\/*`), then header order. Clauses with `q=0` (explicitly unacceptable),
 * a malformed `q`, or no `type/subtype` are dropped.
 */
export function parseAccept(header: string): readonly AcceptClause[] {
  // Clients send the same few Accept headers over and over: parsed once each (a bounded memo).
  let parsed = acceptMemo.get(header);
  if (parsed === undefined) {
    parsed = Object.freeze(parseAcceptUncached(header));
    if (header.length <= 1024) {
      if (acceptMemo.size >= 256) acceptMemo.clear();
      acceptMemo.set(header, parsed);
    }
  }
  return parsed;
}

const acceptMemo = new Map<string, readonly AcceptClause[]>();

function parseAcceptUncached(header: string): AcceptClause[] {
  const clauses: { c: AcceptClause; i: number }[] = [];
  const parts = splitUnquoted(header, ',');
  for (let i = 0; i < parts.length; i++) {
    const m = parseOne(parts[i]!);
    if (m === undefined) continue;
    let q = 1;
    if (Object.hasOwn(m.params, 'q')) {
      const raw = m.params.q!;
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(raw) ? Number(raw) : 0;
      delete m.params.q;
    }
    if (q <= 0) continue;
    clauses.push({ c: { ...m, q }, i });
  }
  const specificity = (c: AcceptClause): number => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  clauses.sort((a, b) => b.c.q - a.c.q || specificity(b.c) - specificity(a.c) || a.i - b.i);
  return clauses.map((x) => x.c);
}
