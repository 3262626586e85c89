/**
 * Go's `%v` and `reflect.TypeOf` renderings of JSON values, so the strategic merge patch errors read
 * exactly as Kubernetes prints them: `map[image:nginx name:a]` (keys sorted), `[a b]`, `<nil>`, and types
 * `map[string]interface {}`, `[]interface {}`, `string`, `int64`, `float64`, `bool`.
 */
import { isObject } from '../json-value.js';

/** `fmt.Sprintf("%v", v)` of a decoded JSON value. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

/** `%v` of a number: integers as int64, others as float64 (`%g`: exponent from 1e21 or below 1e-4). */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) {
    const [mant, exp] = n.toExponential().split('e') as [string, string];
    const e = Number(exp);
    return `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(n);
}

/** `reflect.TypeOf(v).String()` for a value Go's JSON decoder (with PreserveInts) would produce. */
export function goType(v: unknown): string {
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  return 'string';
}

/** The element kind Go compares list elements by (`reflect.Type` identity for JSON values). */
export function goKind(v: unknown): string {
  return v === null || v === undefined ? 'nil' : goType(v);
}
