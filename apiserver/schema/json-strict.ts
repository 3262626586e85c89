/**
 * JSON request bodies: `JSON.parse` for the value (native, the fastest there is), plus — only when the
 * caller asks, i.e. for `fieldValidation` Strict or Warn — a light scanner that finds duplicate object keys,
 * which `JSON.parse` silently resolves to the last occurrence (as Go's decoder does, so the value is the
 * same one Kubernetes would keep).
 */
import { jsonDepthExceededAt, jsonDepthMessage, jsonStringEnd, mayExceedDepth } from '../codec/nesting-depth.js';
import { badRequest } from '../errors/constructors.js';
import { maxNestingDepth } from '../request/limits.js';

export interface StrictJson {
  readonly value: unknown;
  /** Paths of repeated keys, in document order: `metadata.name`, `spec.containers[0].name`. */
  readonly duplicateFields: string[];
}

/**
 * Parses `text`; with `detectDuplicates` (default true) also lists duplicate keys. Invalid JSON throws a
 * 400 BadRequest `error decoding JSON: <reason>`. An empty body is invalid JSON too; callers that accept
 * empty bodies (DELETE) check for them first. A text nested deeper than `maxDepth` (default
 * `maxNestingDepth`) is a 400 too, `error decoding JSON: invalid character '[' exceeded max depth`: the
 * duplicate scan counts the depth as it goes, otherwise only texts long enough to be that deep are scanned.
 */
export function parseJsonStrict(text: string, detectDuplicates = true, maxDepth = maxNestingDepth): StrictJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding JSON: ${(err as Error).message}`);
  }
  let duplicateFields: string[] = [];
  if (detectDuplicates) duplicateFields = findDuplicateKeys(text, maxDepth);
  else {
    const at = jsonDepthExceededAt(text, maxDepth);
    if (at >= 0) throw badRequest(`error decoding JSON: ${jsonDepthMessage(text, at)}`);
  }
  // Go's decoder turns an escaped lone surrogate (`"\ud800"`) into U+FFFD; JSON.parse keeps it, and a name
  // holding one would differ from its own storage key (UTF-8 has no lone surrogates). Rare: only texts with
  // such an escape are walked (after the depth check, so the walk is bounded).
  if (SURROGATE_ESCAPE.test(text)) value = wellFormed(value);
  return { value, duplicateFields };
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The value with every lone surrogate in its strings and keys replaced by U+FFFD. */
function wellFormed(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(LONE_SURROGATE, '\ufffd');
  if (Array.isArray(v)) return v.map(wellFormed);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(LONE_SURROGATE, '\ufffd'), wellFormed(x)]));
  }
  return v;
}

const QUOTE = 0x22;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COMMA = 0x2c;

/**
 * Duplicate keys of a text already known to be valid JSON (so the scanner can skip every check
 * `JSON.parse` made). Iterative, so deep nesting cannot overflow the stack. Path segments are only joined
 * into a string when a duplicate is found. A container opening past `maxDepth` levels is a 400 (the
 * depth limit checked in the same pass).
 */
export function findDuplicateKeys(text: string, maxDepth = Infinity): string[] {
  const checkDepth = mayExceedDepth(text, maxDepth);
  const found: string[] = [];
  // One entry per open container: the keys seen so far (objects) or null (arrays).
  const keySets: (Set<string> | null)[] = [];
  // The segment each open container is at: the current key of an object, the current index of an array.
  const segments: (string | number)[] = [];
  let expectKey = false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = jsonStringEnd(text, i);
      const depth = keySets.length - 1;
      if (expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        const keys = keySets[depth]!;
        if (keys.has(key)) found.push(renderPath(segments, depth, key));
        else keys.add(key);
        segments[depth] = key;
        expectKey = false;
      }
      i = end + 1;
    } else if (c === LBRACE) {
      if (checkDepth && keySets.length >= maxDepth) throw badRequest(`error decoding JSON: ${jsonDepthMessage(text, i)}`);
      keySets.push(new Set());
      segments.push('');
      expectKey = true;
      i++;
    } else if (c === LBRACKET) {
      if (checkDepth && keySets.length >= maxDepth) throw badRequest(`error decoding JSON: ${jsonDepthMessage(text, i)}`);
      keySets.push(null);
      segments.push(0);
      expectKey = false;
      i++;
    } else if (c === RBRACE || c === RBRACKET) {
      keySets.pop();
      segments.pop();
      expectKey = false;
      i++;
    } else if (c === COMMA) {
      const depth = keySets.length - 1;
      if (keySets[depth] === null) segments[depth] = (segments[depth] as number) + 1;
      else expectKey = true;
      i++;
    } else {
      // whitespace, ':', numbers, true/false/null: nothing to track.
      i++;
    }
  }
  return found;
}

/** `a.b[0].c` from the open containers below `depth` plus the final key. */
function renderPath(segments: readonly (string | number)[], depth: number, key: string): string {
  let out = '';
  for (let d = 0; d < depth; d++) {
    const seg = segments[d]!;
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out === '' ? key : `${out}.${key}`;
}
