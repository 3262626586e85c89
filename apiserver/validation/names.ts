/**
 * Syntax checks of names, keys and values, with Kubernetes' messages. Each returns the list of problems
 * (empty: valid); callers wrap them into field errors (`invalidValue(path, value, msg)`).
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = `(${QUALIFIED_NAME})?`;
const CONFIG_KEY = '[-._a-zA-Z0-9]+';
const C_IDENTIFIER = '[A-Za-z_][A-Za-z0-9_]*';
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';

const whole = (re: string): RegExp => new RegExp(`^${re}$`);
const dns1123LabelRe = whole(DNS1123_LABEL);
const dns1123SubdomainRe = whole(DNS1123_SUBDOMAIN);
const qualifiedNameRe = whole(QUALIFIED_NAME);
const labelValueRe = whole(LABEL_VALUE);
const configKeyRe = whole(CONFIG_KEY);
const cIdentifierRe = whole(C_IDENTIFIER);
const dns1035LabelRe = whole(DNS1035_LABEL);

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const QUALIFIED_NAME_MAX = 63;
export const LABEL_VALUE_MAX = 63;

/** Kubernetes' "(e.g. 'a',  or 'b', regex used for validation is '...')" tail (two spaces before "or"). */
function regexError(msg: string, re: string, ...examples: string[]): string {
  const eg = examples.length === 0 ? '' : `e.g. ${examples.map((e) => `'${e}'`).join(',  or ')}, `;
  return `${msg} (${eg}regex used for validation is '${re}')`;
}

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const emptyError = (): string => 'must be non-empty';

export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1123LabelRe.test(v)) {
    errs.push(regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!dns1123SubdomainRe.test(v)) {
    errs.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN, 'example.com'));
  }
  return errs;
}

export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!dns1035LabelRe.test(v)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL, 'my-name', 'abc-123'));
  }
  return errs;
}

/** A label or annotation key: `[prefix/]name`, prefix a DNS subdomain, name a qualified name part. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')
        + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!qualifiedNameRe.test(name)) {
    errs.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!labelValueRe.test(v)) {
    errs.push(regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE, 'MyValue', 'my_value', '12345'));
  }
  return errs;
}

/** A key of ConfigMap/Secret data. */
export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!configKeyRe.test(v)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_KEY, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export function isCIdentifier(v: string): string[] {
  if (cIdentifierRe.test(v)) return [];
  return [regexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'", C_IDENTIFIER, 'my_name', 'MY_NAME', 'MyName')];
}

/** Environment variable names (relaxed since v1.30): printable ASCII other than '='. */
export function isEnvVarName(v: string): string[] {
  if (v.length > 0 && /^[\x20-\x3c\x3e-\x7e]+$/.test(v)) return [];
  return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
}

/** Names that are one path segment (most resources accept any such name). */
export function isPathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (v.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** A port name: an IANA_SVC_NAME (at most 15 characters, at least one letter, no '--'). */
export function isValidPortName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(v)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (v.includes('--')) errs.push("must not contain consecutive hyphens");
  if (v.length > 0 && !/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.startsWith('-') || v.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

export function isValidPortNum(n: number): string[] {
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** The name prefix of `generateName`: Kubernetes drops a trailing '-' before checking the name rule. */
export function maskTrailingDash(prefix: string): string {
  return prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -2)}a` : prefix;
}
