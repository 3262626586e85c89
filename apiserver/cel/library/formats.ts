/**
 * Kubernetes' format library (`format`, from 1.31): named string formats with a `validate` member.
 *
 * `format.named(name)` gives `optional<kubernetes.NamedFormat>` (none for an unknown name), and each
 * format also has a constant function: `format.dns1123Label()`, `format.dns1123Subdomain()`,
 * `format.dns1035Label()`, `format.qualifiedName()`, `format.dns1123LabelPrefix()`,
 * `format.dns1123SubdomainPrefix()`, `format.dns1035LabelPrefix()`, `format.labelValue()`, `format.uri()`,
 * `format.uuid()`, `format.byte()`, `format.date()`, `format.datetime()`.
 * `<format>.validate(s)` is `optional.none()` when `s` is valid, else `optional.of([messages])` with
 * Kubernetes' messages (the server's own name checks, apiserver/validation/names.ts).
 *
 * The `...Prefix` formats validate a generateName prefix: Kubernetes masks a trailing `-` before checking,
 * by dropping the last two characters and appending `a` (upstream's `maskTrailingDash`, kept as is).
 *
 * Cost: no case in Kubernetes' cost function, so 1 per call.
 */
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../validation/names.js';
import { CelOpaque, Optional, type CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { noSuchOverload, str } from './support.js';
import { requestUriError } from './urls.js';

const maskTrailingDash = (s: string): string => (s.length > 1 && s.endsWith('-') ? `${s.slice(0, -2)}a` : s);

const UUID_RE = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;

/** Go's base64.StdEncoding (padding required; CR and LF ignored, as Go's decoder skips them). */
function isBase64(s: string): boolean {
  const t = s.replace(/[\r\n]/g, '');
  return t.length % 4 === 0 && /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]={2}|[A-Za-z0-9+/]{2}=)?$/.test(t);
}

function validCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

/** strfmt's `date`: Go's time.Parse("2006-01-02"). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  return m !== null && validCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** strfmt's `date-time`: the RFC 3339 / ISO 8601 layouts it tries (time optional seconds and fraction, zone optional). */
function isDateTime(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))?$/.exec(s);
  if (m === null || !validCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || (m[6] !== undefined && Number(m[6]) > 59)) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}

const single = (ok: boolean, msg: string): string[] => (ok ? [] : [msg]);

/** The named formats: CEL name -> (Kubernetes' format name, validator). */
export const NAMED_FORMATS: ReadonlyMap<string, { readonly name: string; readonly validate: (s: string) => string[] }> = new Map([
  ['dns1123Label', { name: 'DNS1123Label', validate: isDNS1123Label }],
  ['dns1123Subdomain', { name: 'DNS1123Subdomain', validate: isDNS1123Subdomain }],
  ['dns1035Label', { name: 'DNS1035Label', validate: isDNS1035Label }],
  ['qualifiedName', { name: 'QualifiedName', validate: isQualifiedName }],
  ['dns1123LabelPrefix', { name: 'DNS1123LabelPrefix', validate: (s: string) => isDNS1123Label(maskTrailingDash(s)) }],
  ['dns1123SubdomainPrefix', { name: 'DNS1123SubdomainPrefix', validate: (s: string) => isDNS1123Subdomain(maskTrailingDash(s)) }],
  ['dns1035LabelPrefix', { name: 'DNS1035LabelPrefix', validate: (s: string) => isDNS1035Label(maskTrailingDash(s)) }],
  ['labelValue', { name: 'LabelValue', validate: isValidLabelValue }],
  ['uri', { name: 'URI', validate: (s: string) => { const e = requestUriError(s); return e === undefined ? [] : [e]; } }],
  ['uuid', { name: 'uuid', validate: (s: string) => single(UUID_RE.test(s), 'does not match the UUID format') }],
  ['byte', { name: 'byte', validate: (s: string) => single(isBase64(s), 'invalid base64') }],
  ['date', { name: 'date', validate: (s: string) => single(isDate(s), 'invalid date') }],
  ['datetime', { name: 'datetime', validate: (s: string) => single(isDateTime(s), 'invalid datetime') }],
]);

/** A `kubernetes.NamedFormat` value. */
export class CelNamedFormat extends CelOpaque {
  readonly typeName = 'kubernetes.NamedFormat';
  constructor(readonly celName: string) {
    super();
  }
  equals(other: CelOpaque): boolean {
    return other instanceof CelNamedFormat && other.celName === this.celName;
  }
}

function validate(f: CelValue, s: CelValue): Optional {
  if (!(f instanceof CelNamedFormat)) throw noSuchOverload();
  const errs = NAMED_FORMATS.get(f.celName)!.validate(str(s));
  return errs.length === 0 ? Optional.NONE : Optional.of(errs);
}

const T = 'kubernetes.NamedFormat';
const overloads: Overload[] = [
  { signature: `${T}.validate(string): optional<list<string>>`, impl: validate },
  {
    signature: `format.named(string): optional<${T}>`,
    impl: (name) => (NAMED_FORMATS.has(str(name)) ? Optional.of(new CelNamedFormat(str(name))) : Optional.NONE),
  },
];
for (const name of NAMED_FORMATS.keys()) {
  const value = new CelNamedFormat(name);
  overloads.push({ signature: `format.${name}(): ${T}`, impl: () => value });
}

export const formatLibrary: CelLibrary = {
  name: 'format',
  since: 31,
  overloads,
  types: [T],
  namespaces: ['format'],
};
