/**
 * RE2 regular expressions for CEL (`matches`, `find`, `findAll`), through the `re2js` port of RE2.
 *
 * Kubernetes evaluates regexes with Go's `regexp` (RE2 syntax, linear time). A pattern RE2 rejects
 * (lookaround `(?=`, backreferences `\1`, possessive or nested repetition `a**`, repeat counts over 1000...)
 * must never fall back to a JavaScript-only match: `compileRe2` throws a `CelEvalError` carrying Go's
 * message (`error parsing regexp: invalid or unsupported Perl syntax: `(?=``), and `validateRe2` gives the
 * same message without throwing, for compile-time checks of literal patterns (cel-go compiles constant
 * patterns when the program is planned, so a bad literal fails the write, not the evaluation).
 *
 * Compiled patterns are cached (bounded, least recently used first out): rules evaluate the same literal
 * pattern for every object.
 */
import { RE2JS } from 're2js';
import { CelEvalError } from '../errors.js';

export type Re2 = RE2JS;

const CACHE_LIMIT = 512;
const cache = new Map<string, RE2JS | string>();

function compileCached(pattern: string): RE2JS | string {
  const hit = cache.get(pattern);
  if (hit !== undefined) {
    // Refresh the entry's position (Map keeps insertion order: the first key is the least recently used).
    cache.delete(pattern);
    cache.set(pattern, hit);
    return hit;
  }
  let compiled: RE2JS | string;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (e) {
    // re2js reports syntax errors with Go's wording; anything else (an internal failure) still refuses.
    compiled = e instanceof Error && e.message ? e.message : `error parsing regexp: ${String(e)}`;
  }
  cache.set(pattern, compiled);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return compiled;
}

/** The compiled pattern; throws `CelEvalError` with Go's parse error when RE2 rejects it. */
export function compileRe2(pattern: string): Re2 {
  const compiled = compileCached(pattern);
  if (typeof compiled === 'string') throw new CelEvalError(compiled);
  return compiled;
}

/** Go's parse error for a pattern RE2 rejects, or undefined when it is valid (for compile-time checks). */
export function validateRe2(pattern: string): string | undefined {
  const compiled = compileCached(pattern);
  return typeof compiled === 'string' ? compiled : undefined;
}

/** Whether `input` contains a match (CEL `matches`: unanchored, as Go's `MatchString`). */
export function re2Test(re: Re2, input: string): boolean {
  return re.test(input);
}

/**
 * The leftmost-first matches of `re` in `input`, as Go's `FindAllString(input, limit)`: successive
 * non-overlapping matches, where an empty match immediately after the previous match is skipped; `limit`
 * < 0 means all, 0 means none.
 */
export function re2FindAll(re: Re2, input: string, limit: number): string[] {
  const out: string[] = [];
  if (limit === 0) return out;
  const m = re.matcher(input);
  let prevEnd = -1;
  while (m.find()) {
    const start = m.start();
    const end = m.end();
    // Go ignores an empty match that abuts the preceding match (re2js, like Java, reports it).
    if (start === end && start === prevEnd) continue;
    out.push(input.slice(start, end));
    prevEnd = end;
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

/** The first match (Go's `FindString`): the empty string when there is none. */
export function re2Find(re: Re2, input: string): string {
  const m = re.matcher(input);
  return m.find() ? input.slice(m.start(), m.end()) : '';
}
