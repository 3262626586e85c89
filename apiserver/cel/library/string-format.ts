/**
 * Version 2 of cel-go's strings extension adds `string.format(list)` and `strings.quote(string)`;
 * Kubernetes enables it from 1.29 (before: version 0, see strings.ts).
 *
 * `format` is cel-go's first formatter (the one of cel-go v0.22, which Kubernetes 1.32 ships), with the
 * default locale `en_US` (golang.org/x/text printer) for the floating-point clauses:
 *
 * | clause        | accepts                           | prints                                                |
 * |---------------|-----------------------------------|-------------------------------------------------------|
 * | `%s`          | all but opaque/objects            | strings as is; doubles as Go `%g`; lists `[a, "b"]`  |
 * | `%d`          | int, uint                         | decimal                                               |
 * | `%f`, `%.Nf`  | double, "NaN"/"Infinity" strings  | fixed point, 6 digits by default, grouped `1,234.5`   |
 * | `%e`          | double, same strings              | `1.052033 × 10⁰³` (the precision is cel-go's width)   |
 * | `%b`, `%o`    | int, uint (`%b` also bool)        | binary / octal, `-` for negatives                     |
 * | `%x`, `%X`    | int, uint, string, bytes          | hexadecimal (of the UTF-8 bytes for strings)          |
 *
 * Inside lists and maps (`%s`), members print as CEL literals: strings quoted (Go `%q`), bytes `b"..."`,
 * doubles `%.6f`, timestamps `timestamp("...")`, durations `duration("...")`; map entries `key:value`
 * sorted by the printed key. Errors carry cel-go's messages (`could not parse formatting clause:
 * unrecognized formatting clause "a"`, `index 2 out of range`, `error during formatting: decimal clause can
 * only be used on integers, was given double`).
 *
 * Cost: Kubernetes' cost function has no case for them, so each call costs 1 (cel-go's default).
 */
import { CelEvalError } from '../errors.js';
import { CelType, CelUint, Duration, Timestamp, type CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { durationString, goFixed, goFormatFloat, goQuote, goScientificParts, timestampString } from './go-format.js';
import { compareStrings, isList, isMap, list, str, typeNameOf } from './support.js';

const DEFAULT_PRECISION = 6;

class FormatError extends Error {}

const fail = (msg: string): never => {
  throw new FormatError(msg);
};

const utf8 = new TextDecoder('utf-8');
const bytesToString = (b: Uint8Array): string => utf8.decode(b);

/** `%s` of one value (top level). */
function formatString(v: CelValue): string {
  if (isList(v)) return formatList(v);
  if (isMap(v)) return formatMap(v);
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
    case 'number':
      return goFormatFloat(v);
    case 'boolean':
      return String(v);
  }
  if (v === null) return 'null';
  if (v instanceof CelUint) return v.value.toString();
  if (v instanceof Uint8Array) return bytesToString(v);
  if (v instanceof Timestamp) return timestampString(v);
  if (v instanceof Duration) return durationString(v);
  if (v instanceof CelType) return v.name;
  return fail(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${typeNameOf(v)}`,
  );
}

/** A list or map member as a CEL literal (cel-go's clauseForType + quoteForCEL). */
function formatMember(v: CelValue): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof Uint8Array) return `b${goQuote(bytesToString(v))}`;
  if (typeof v === 'boolean' || v === null || v instanceof CelType) return formatString(v);
  if (v instanceof Timestamp) return `timestamp(${goQuote(timestampString(v))})`;
  if (v instanceof Duration) return `duration(${goQuote(durationString(v))})`;
  if (isList(v)) return formatList(v);
  if (isMap(v)) return formatMap(v);
  if (typeof v === 'number') {
    const s = goFixed(v, DEFAULT_PRECISION);
    return Number.isFinite(v) ? s : goQuote(s);
  }
  return fail(`no formatting function for ${typeNameOf(v)}`);
}

function formatList(l: readonly CelValue[]): string {
  return `[${l.map(formatMember).join(', ')}]`;
}

function formatMap(m: import('../values/value.js').CelMap): string {
  const pairs: Array<[string, string]> = [];
  for (const k of m.keys()) {
    let key: string;
    if (typeof k === 'string') key = goQuote(k);
    else if (typeof k === 'boolean') key = String(k);
    else if (typeof k === 'bigint') key = k.toString();
    else if (k instanceof CelUint) key = k.value.toString();
    else key = fail(`no formatting function for map key of type ${typeNameOf(k)}`);
    pairs.push([key, formatMember(m.get(k)!)]);
  }
  // Go sorts the printed keys as strings (bytewise, i.e. code point order).
  pairs.sort((a, b) => compareStrings(a[0], b[0]));
  return `{${pairs.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

function formatDecimal(v: CelValue): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof CelUint) return v.value.toString();
  return fail(`decimal clause can only be used on integers, was given ${typeNameOf(v)}`);
}

/** A double for %f/%e: doubles, or the strings NaN/Infinity/-Infinity (cel-go converts those). */
function floatArg(v: CelValue, clause: 'fixed-point' | 'scientific'): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return fail(`${clause} clause can only be used on doubles, was given ${typeNameOf(v)}`);
}

/** en_US grouping of the integer part (golang.org/x/text's decimal pattern `#,##0.###`). */
function group(fixed: string): string {
  const neg = fixed.startsWith('-');
  const body = neg ? fixed.slice(1) : fixed;
  const dot = body.indexOf('.');
  const intPart = dot < 0 ? body : body.slice(0, dot);
  const rest = dot < 0 ? '' : body.slice(dot);
  return (neg ? '-' : '') + intPart.replace(/\B(?=(\d{3})+$)/g, ',') + rest;
}

/** Localized non-finite values (x/text): `NaN`, `∞`, `-∞`. */
const nonFinite = (f: number): string => (Number.isNaN(f) ? 'NaN' : f > 0 ? '∞' : '-∞');

function formatFixed(v: CelValue, precision: number | undefined): string {
  const f = floatArg(v, 'fixed-point');
  if (!Number.isFinite(f)) return nonFinite(f);
  return group(goFixed(f, precision ?? DEFAULT_PRECISION));
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * cel-go builds the verb as `%<precision>e`, so the "precision" is a width: the digits stay 6. x/text
 * prints the exponent as ` × 10` and superscript digits (at least two).
 */
function formatScientific(v: CelValue, precision: number | undefined): string {
  const f = floatArg(v, 'scientific');
  const width = precision ?? DEFAULT_PRECISION;
  let out: string;
  if (!Number.isFinite(f)) out = nonFinite(f);
  else {
    const { mantissa, exp } = goScientificParts(f, DEFAULT_PRECISION);
    const e = String(Math.abs(exp)).padStart(2, '0');
    out = `${mantissa}\u202f×\u202f10${exp < 0 ? '⁻' : ''}${[...e].map((d) => SUPERSCRIPT[Number(d)]).join('')}`;
  }
  const len = [...out].length;
  return len < width ? ' '.repeat(width - len) + out : out;
}

function formatBinary(v: CelValue): string {
  if (typeof v === 'bigint') return v.toString(2);
  if (v instanceof CelUint) return v.value.toString(2);
  if (typeof v === 'boolean') return v ? '1' : '0';
  return fail(`only integers and bools can be formatted as binary, was given ${typeNameOf(v)}`);
}

function formatOctal(v: CelValue): string {
  if (typeof v === 'bigint') return v.toString(8);
  if (v instanceof CelUint) return v.value.toString(8);
  return fail(`octal clause can only be used on integers, was given ${typeNameOf(v)}`);
}

function formatHex(v: CelValue, upper: boolean): string {
  let out: string;
  if (typeof v === 'bigint') out = v.toString(16);
  else if (v instanceof CelUint) out = v.value.toString(16);
  else if (typeof v === 'string') out = Buffer.from(v, 'utf8').toString('hex');
  else if (v instanceof Uint8Array) out = Buffer.from(v).toString('hex');
  else return fail(`only integers, byte buffers, and strings can be formatted as hex, was given ${typeNameOf(v)}`);
  return upper ? out.toUpperCase() : out;
}

/** cel-go's `string.format`: see the module comment. */
export function formatCel(format: string, args: readonly CelValue[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw new CelEvalError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw new CelEvalError('unexpected end of string');
    const arg = args[argIndex]!;
    // Clause: optional `.digits` precision, then the verb.
    let j = i + 1;
    let precision: number | undefined;
    if (format[j] === '.') {
      j++;
      let digits = '';
      for (;;) {
        if (j >= format.length) {
          throw new CelEvalError('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
        }
        if (!/[0-9]/.test(format[j]!)) break;
        digits += format[j];
        j++;
      }
      if (digits === '') {
        throw new CelEvalError(
          'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
        );
      }
      precision = Number(digits);
    }
    const verb = String.fromCodePoint(format.codePointAt(j)!);
    let text: string;
    try {
      switch (verb) {
        case 's': text = formatString(arg); break;
        case 'd': text = formatDecimal(arg); break;
        case 'f': text = formatFixed(arg, precision); break;
        case 'e': text = formatScientific(arg, precision); break;
        case 'b': text = formatBinary(arg); break;
        case 'o': text = formatOctal(arg); break;
        case 'x': text = formatHex(arg, false); break;
        case 'X': text = formatHex(arg, true); break;
        default:
          throw new CelEvalError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
      }
    } catch (e) {
      if (e instanceof FormatError) throw new CelEvalError(`error during formatting: ${e.message}`);
      throw e;
    }
    out += text;
    i = j + verb.length;
    argIndex++;
  }
  return out;
}

/** cel-go's `strings.quote`: `"` + the string with \a \b \f \n \r \t \v \\ \" escaped, everything else as is. */
export function quoteCel(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\x07': out += '\\a'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\v': out += '\\v'; break;
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      default: out += ch;
    }
  }
  return `${out}"`;
}

const overloads: Overload[] = [
  { signature: 'string.format(list<dyn>): string', impl: (f, args) => formatCel(str(f), list(args)) },
  { signature: 'strings.quote(string): string', impl: (s) => quoteCel(str(s)) },
];

export const stringFormatLibrary: CelLibrary = {
  name: 'cel.lib.ext.strings.v2',
  since: 29,
  overloads,
  namespaces: ['strings'],
};
