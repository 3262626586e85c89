/**
 * Response bodies: JSON (compact, or Kubernetes' pretty form with two-space indentation) and YAML in the
 * shape Kubernetes' YAML serializer writes (keys sorted, sequences not indented under their key, no line
 * folding, literal blocks for multi-line strings, YAML 1.1 quoting of strings like `yes` or `0777`).
 */
import { stringify } from 'yaml';

/** JSON text without a trailing newline (stream writers add their own separators). */
export function encodeJson(value: unknown, pretty = false): string {
  return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

const yamlOptions = {
  // YAML 1.1 quoting: strings such as "y", "on" or "0777" are quoted, since clients read YAML 1.1.
  version: '1.1',
  indent: 2,
  indentSeq: false,
  lineWidth: 0,
  minContentWidth: 0,
  sortMapEntries: true,
  blockQuote: 'literal',
  aliasDuplicateObjects: false,
} as const;

/** YAML text of one document (no `---`), ending with a newline. `undefined` members are dropped as in JSON. */
export function encodeYaml(value: unknown): string {
  return stringify(value, yamlOptions);
}

const parseBoolTrue = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * Whether to pretty-print, as upstream: `pretty=1` in the negotiated media type, else a `pretty` query
 * parameter (Go ParseBool; an unparseable one means no), else a `User-Agent` of curl, Wget or a browser.
 */
export function wantsPretty(query: URLSearchParams, userAgent: string | undefined, mediaTypePretty = false): boolean {
  if (mediaTypePretty) return true;
  const p = query.get('pretty');
  // Upstream reads `pretty` with ParseBool and treats a parse error as false.
  if (p !== null && p !== '') return parseBoolTrue.has(p);
  if (userAgent === undefined) return false;
  return userAgent.startsWith('curl') || userAgent.startsWith('Wget') || userAgent.startsWith('Mozilla/5.0');
}

