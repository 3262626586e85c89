/**
 * Field selectors (`?fieldSelector=metadata.name=x,type!=Opaque`), as apimachinery `fields.ParseSelector`:
 * comma-separated terms `field=value`, `field==value`, `field!=value`; in values `\,` `\=` `\\` escape
 * the separator characters. Errors are 400 BadRequest with upstream's messages.
 */
import { badRequest } from '../errors/constructors.js';
import { checkRequirementCount } from './label-selector.js';
import type { FieldRequirement, FieldSelector } from './selector.js';

/** Splits on commas not escaped by a backslash (the backslash stays in the term). */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (escaped) escaped = false;
    else if (c === 92 /* \ */) escaped = true;
    else if (c === 44 /* , */) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** The first operator occurrence splits the term (no escaping on the left); `!=` and `==` win over `=`. */
function splitTerm(term: string): [string, FieldRequirement['operator'], string] | undefined {
  for (let i = 0; i < term.length; i++) {
    const c = term[i];
    if (c === '!' && term[i + 1] === '=') return [term.slice(0, i), '!=', term.slice(i + 2)];
    if (c === '=') return term[i + 1] === '=' ? [term.slice(0, i), '==', term.slice(i + 2)] : [term.slice(0, i), '=', term.slice(i + 1)];
  }
  return undefined;
}

const needsUnescape = /[\\,=]/;

/**
 * Undoes `escapeFieldValue`. A lone trailing backslash or an unknown escape is
 * `invalid field selector: invalid escape sequence: \x`; an unescaped `,` or `=` is
 * `invalid field selector: unescaped character in value: 61` (upstream prints the rune's number).
 */
export function unescapeFieldValue(s: string): string {
  if (!needsUnescape.test(s)) return s;
  let out = '';
  let escaped = false;
  for (const c of s) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes `\`, `,` and `=` in a value so it survives `parseFieldSelector`. */
export function escapeFieldValue(s: string): string {
  return needsUnescape.test(s) ? s.replace(/[\\,=]/g, (c) => `\\${c}`) : s;
}

function selectorOf(requirements: readonly FieldRequirement[]): FieldSelector {
  const text = requirements.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(',');
  return Object.freeze({
    requirements,
    empty: requirements.length === 0,
    matches(fields: Readonly<Record<string, string>>): boolean {
      for (const r of requirements) {
        // A field the object does not have reads as the empty string, as upstream's field sets.
        const v = Object.hasOwn(fields, r.field) ? fields[r.field]! : '';
        if ((v === r.value) === (r.operator === '!=')) return false;
      }
      return true;
    },
    toString: () => text,
  });
}

/**
 * Parses a field selector. Terms are sorted by their text (as upstream, so equal selectors print alike);
 * empty terms (`a=b,,c=d`, a trailing comma, the empty text) are skipped; the empty text selects
 * everything. A term without an operator is `invalid selector: '<text>'; can't understand '<term>'`.
 * Field names are not checked here: see `checkFieldLabels`. More than `maxSelectorRequirements` terms: 400.
 */
export function parseFieldSelector(text: string): FieldSelector {
  if (text === '') return selectorOf([]);
  const terms = splitTerms(text);
  checkRequirementCount('fieldSelector', terms.reduce((n, t) => (t === '' ? n : n + 1), 0));
  terms.sort();
  const reqs: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (split === undefined) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    reqs.push({ field: split[0], operator: split[1], value: unescapeFieldValue(split[2]) });
  }
  return selectorOf(reqs);
}

/** The field labels every kind supports. */
export const COMMON_FIELD_LABELS: readonly string[] = ['metadata.name', 'metadata.namespace'];

/**
 * Throws 400 `field label not supported: <label>` (upstream's per-kind conversion message) for the first
 * requirement (in selector order) whose field is neither `metadata.name`, `metadata.namespace` nor in
 * `supported`.
 */
export function checkFieldLabels(selector: FieldSelector, supported: readonly string[]): void {
  for (const r of selector.requirements) {
    if (r.field === 'metadata.name' || r.field === 'metadata.namespace' || supported.includes(r.field)) continue;
    throw badRequest(`field label not supported: ${r.field}`);
  }
}

/** The value a selector pins `field` to with `=`/`==` (e.g. `metadata.name` for single-object watches). */
export function exactMatch(selector: FieldSelector, field: string): string | undefined {
  for (const r of selector.requirements) if (r.field === field && r.operator !== '!=') return r.value;
  return undefined;
}
