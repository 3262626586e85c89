/**
 * The JSON paths of custom resource printer columns and selectable fields, evaluated as Kubernetes'
 * jsonpath package does for `{<path>}` with missing keys allowed: `.a.b`, `['a']`/`["a"]`, `[n]` (negative
 * from the end), `[*]` and `.*`, and filters `[?(@.x.y=="v")]` / `!=` / bare existence `[?(@.x)]` with
 * string, number, boolean or null literals. The result is every value the path reaches, in document order;
 * a missing key or index yields nothing (never an error). A path that cannot be parsed yields `undefined`
 * from `parseSimpleJsonPath` (the definition's validation refuses such paths before they get here).
 */

export type JsonPathStep =
  | { readonly type: 'field'; readonly name: string }
  | { readonly type: 'index'; readonly index: number }
  | { readonly type: 'wildcard' }
  | { readonly type: 'filter'; readonly path: readonly JsonPathStep[]; readonly op: '==' | '!=' | 'exists'; readonly value?: unknown };

const IDENT = /^[A-Za-z0-9_$-]+/;

/** The steps of `path` (leading `.` optional, `{...}` braces accepted), or undefined when it is not a simple path. */
export function parseSimpleJsonPath(path: string): JsonPathStep[] | undefined {
  let s = path.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  const steps: JsonPathStep[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === '.') {
      i++;
      if (s[i] === '*') {
        steps.push({ type: 'wildcard' });
        i++;
        continue;
      }
      const m = IDENT.exec(s.slice(i));
      if (m === null) {
        if (i === s.length && steps.length === 0) return steps; // "." is the whole object
        return undefined;
      }
      steps.push({ type: 'field', name: m[0] });
      i += m[0].length;
    } else if (s[i] === '[') {
      const close = bracketEnd(s, i);
      if (close < 0) return undefined;
      const inner = s.slice(i + 1, close).trim();
      const step = bracketStep(inner);
      if (step === undefined) return undefined;
      steps.push(step);
      i = close + 1;
    } else if (i === 0) {
      const m = IDENT.exec(s);
      if (m === null) return undefined;
      steps.push({ type: 'field', name: m[0] });
      i += m[0].length;
    } else {
      return undefined;
    }
  }
  return steps;
}

/** The index of the `]` closing the `[` at `open`, skipping quoted strings. */
function bracketEnd(s: string, open: number): number {
  let quote = '';
  for (let i = open + 1; i < s.length; i++) {
    const c = s[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ']') return i;
  }
  return -1;
}

function bracketStep(inner: string): JsonPathStep | undefined {
  if (inner === '*') return { type: 'wildcard' };
  if (/^-?\d+$/.test(inner)) return { type: 'index', index: Number(inner) };
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  if (quoted !== null) return { type: 'field', name: quoted[2]! };
  const filter = /^\?\((.*)\)$/.exec(inner);
  if (filter === null) return undefined;
  const expr = filter[1]!.trim();
  const cmp = /^@((?:\.[A-Za-z0-9_$-]+)+)\s*(==|!=)\s*(.+)$/.exec(expr);
  if (cmp !== null) {
    const path = parseSimpleJsonPath(cmp[1]!);
    const value = literal(cmp[3]!.trim());
    if (path === undefined || value === NOT_A_LITERAL) return undefined;
    return { type: 'filter', path, op: cmp[2] as '==' | '!=', value };
  }
  const exists = /^@((?:\.[A-Za-z0-9_$-]+)+)$/.exec(expr);
  if (exists === null) return undefined;
  return { type: 'filter', path: parseSimpleJsonPath(exists[1]!)!, op: 'exists' };
}

const NOT_A_LITERAL = Symbol('not a literal');

function literal(text: string): unknown {
  const q = /^(['"])(.*)\1$/.exec(text);
  if (q !== null) return q[2];
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'nil' || text === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return NOT_A_LITERAL;
}

/** Every value `steps` reach from `root`. */
export function evaluateJsonPath(steps: readonly JsonPathStep[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) applyStep(step, v, next);
    current = next;
  }
  return current;
}

function applyStep(step: JsonPathStep, v: unknown, out: unknown[]): void {
  switch (step.type) {
    case 'field':
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, step.name)) {
        out.push((v as Record<string, unknown>)[step.name]);
      }
      return;
    case 'index':
      if (Array.isArray(v)) {
        const i = step.index < 0 ? v.length + step.index : step.index;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
      return;
    case 'wildcard':
      if (Array.isArray(v)) out.push(...v);
      else if (v !== null && typeof v === 'object') out.push(...Object.values(v));
      return;
    case 'filter': {
      const items = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : [];
      for (const item of items) {
        const found = evaluateJsonPath(step.path, item);
        if (step.op === 'exists' ? found.length > 0 : found.length > 0 && (found[0] === step.value) === (step.op === '==')) out.push(item);
      }
      return;
    }
  }
}
