/**
 * Boolean parsing as Go's `strconv.ParseBool` (what Kubernetes flags and a few fields use), and the more
 * lenient rule Kubernetes applies to boolean QUERY parameters.
 */
import { badRequest } from '../errors/constructors.js';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Go's `strconv.ParseBool`: `1 t T TRUE true True` / `0 f F FALSE false False`. Anything else (including
 * `tRUE` and the empty string) throws a 400 BadRequest `strconv.ParseBool: parsing "x": invalid syntax`.
 */
export function parseBool(text: string): boolean {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  throw badRequest(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
}

/**
 * Kubernetes' conversion of a boolean query parameter (apimachinery `Convert_Slice_string_To_bool`): only
 * `0` and `false` in any letter case are false; every other value, the empty string included (`?watch`),
 * is true. It never fails. It agrees with `parseBool` on every value `parseBool` accepts except `f`/`F`,
 * which Kubernetes (and so this server) reads as true.
 */
export function queryBoolValue(text: string): boolean {
  return !(text === '0' || (text.length === 5 && text.toLowerCase() === 'false'));
}
