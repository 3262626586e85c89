/**
 * YAML request bodies, the counterpart of json-strict.ts: one document, YAML 1.1 scalars (as Kubernetes'
 * go-yaml: `yes`/`no`/`on`/`off` are booleans), duplicate keys reported by path instead of failing the
 * parse, so `fieldValidation` treats them exactly as duplicate JSON keys. The last occurrence wins.
 */
import { Composer, isMap, isScalar, isSeq, Parser, YAMLParseError, type CST, type Document, type Node } from 'yaml';
import { checkAliases, cstShape, textDepthBound } from '../codec/yaml-bounds.js';
import { badRequest } from '../errors/constructors.js';
import { maxNestingDepth, maxYamlExpandedBytes } from '../request/limits.js';
import { findDuplicateKeys, type StrictJson } from './json-strict.js';
import { jsonDepthExceededAt } from '../codec/nesting-depth.js';

export interface YamlLimits {
  /** Deepest nesting, aliases expanded (default `maxNestingDepth`). */
  readonly maxDepth?: number;
  /** Largest value once aliases are expanded, about its JSON size (default `maxYamlExpandedBytes`). */
  readonly maxExpandedBytes?: number;
}

/**
 * Parses a single YAML document; with `detectDuplicates` (default true) also lists duplicate keys.
 * Invalid YAML, several documents, nesting deeper than the limit (`exceeded max depth of 500`), an anchor
 * containing itself, or aliases expanding past the limits (`document contains excessive aliasing`) throw
 * 400 `error decoding YAML: <reason>`, each before the value is built (codec/yaml-bounds.ts). An empty
 * document decodes to `null`.
 */
export function parseYamlStrict(text: string, detectDuplicates = true, limits: YamlLimits = {}): StrictJson {
  const maxDepth = limits.maxDepth ?? maxNestingDepth;
  const json = asJson(text, detectDuplicates, maxDepth);
  if (json !== undefined) return json;
  // A cheap upper bound first: the parser itself is slow on deeply nested flow collections.
  if (textDepthBound(text, maxDepth)) throw badRequest(`error decoding YAML: exceeded max depth of ${maxDepth}`);
  const tokens = [...new Parser().parse(text)];
  const shape = cstShape(tokens, maxDepth);
  if (shape.tooDeepAt >= 0) throw badRequest(`error decoding YAML: exceeded max depth of ${maxDepth}`);
  const doc = composeOne(tokens, text.length);
  const first = doc.errors[0];
  if (first !== undefined) throw badRequest(`error decoding YAML: ${first.message}`);
  let value: unknown;
  try {
    if (shape.aliases) {
      checkAliases(doc.contents, maxDepth, limits.maxExpandedBytes ?? maxYamlExpandedBytes);
      // checkAliases bounds what aliases expand to (the library's own per-alias guard would refuse
      // documents Kubernetes accepts); each alias then becomes a copy, as go-yaml makes it, not a second
      // reference to one object that pruning and defaulting would change at both places.
      value = JSON.parse(JSON.stringify(doc.toJS({ maxAliasCount: -1 })));
    } else {
      value = doc.toJS({ maxAliasCount: -1 });
    }
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
  const duplicateFields: string[] = [];
  if (detectDuplicates && doc.contents !== null) collect(doc.contents as Node, '', duplicateFields);
  return { value, duplicateFields };
}

/**
 * A YAML body that is JSON (kubectl's server-side apply sends JSON as `application/apply-patch+yaml`),
 * decoded by `JSON.parse`: the same value and duplicate keys as the YAML parser gives, some 20 times
 * faster (2.8 MB: 0.1 s instead of 2.2 s of a blocked event loop). Undefined when the text is not JSON
 * (then it is parsed as YAML, which also words the errors). Too deep: go-yaml's words, as Kubernetes
 * decodes such a body as YAML.
 */
function asJson(text: string, detectDuplicates: boolean, maxDepth: number): StrictJson | undefined {
  const at = text.search(/\S/);
  const first = at < 0 ? '' : text[at];
  if (first !== '{' && first !== '[') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (detectDuplicates) {
    try {
      return { value, duplicateFields: findDuplicateKeys(text, maxDepth) };
    } catch {
      throw badRequest(`error decoding YAML: exceeded max depth of ${maxDepth}`);
    }
  }
  if (jsonDepthExceededAt(text, maxDepth) >= 0) throw badRequest(`error decoding YAML: exceeded max depth of ${maxDepth}`);
  return { value, duplicateFields: [] };
}

/** The first document of the tokens (`parseDocument` over tokens already parsed); a second one is an error. */
/**
 * YAML 1.1 types go-yaml does not turn into values of their own when decoding into JSON: `!!binary` would be
 * bytes (a Uint8Array no JSON walker expects: a 500), timestamps a Date (go-yaml keeps a plain timestamp a
 * string), `!!set`/`!!omap`/`!!pairs` a Set or Map. Without them these stay strings, maps and lists.
 */
const NOT_JSON_TAGS = new Set(['binary', 'timestamp', 'set', 'omap', 'pairs'].map((t) => `tag:yaml.org,2002:${t}`));

function composeOne(tokens: readonly CST.Token[], length: number): Document.Parsed {
  // logLevel 'error': a map key that is a collection is stringified as go-yaml's would be turned into text, and the
  // library would also print a process warning per such request (stderr noise any client could cause).
  const composer = new Composer({ version: '1.1', uniqueKeys: false, logLevel: 'error', customTags: (tags) => tags.filter((t) => typeof t === 'string' || !NOT_JSON_TAGS.has(t.tag)) });
  let doc: Document.Parsed | undefined;
  for (const d of composer.compose(tokens, true, length)) {
    if (doc === undefined) doc = d;
    else {
      doc.errors.push(new YAMLParseError(d.range.slice(0, 2) as [number, number], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
      break;
    }
  }
  return doc!;
}

function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

function collect(node: Node, path: string, out: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = keyText(pair.key);
      if (key === '<<') continue;
      const child = path === '' ? key : `${path}.${key}`;
      if (seen.has(key)) out.push(child);
      else seen.add(key);
      if (pair.value !== null && typeof pair.value === 'object') collect(pair.value as Node, child, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (item !== null && typeof item === 'object') collect(item as Node, `${path}[${i}]`, out);
    });
  }
}
