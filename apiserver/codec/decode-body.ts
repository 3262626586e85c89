/**
 * Request bodies (JSON or YAML) to plain values, reporting repeated keys so `fieldValidation` can
 * reject (Strict) or warn (Warn) about them; the decoded value keeps the last occurrence, as upstream's
 * non-strict decoders do. Malformed text is a 400 BadRequest.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from 'yaml';
import { badRequest } from '../errors/constructors.js';
import { findJsonDuplicates, type DuplicateField } from './json-duplicates.js';

export type { DuplicateField } from './json-duplicates.js';

export interface DecodedBody {
  readonly value: unknown;
  /** Repeated keys, in document order; always empty when detection was not asked for. */
  readonly duplicates: readonly DuplicateField[];
}

/**
 * Parses a JSON body. `detectDuplicates` costs one extra scan; leave it off for `fieldValidation=Ignore`.
 * Invalid JSON: 400 `json parse error: <reason>`.
 */
export function decodeJsonBody(text: string, detectDuplicates = true): DecodedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw badRequest(`json parse error: ${(e as Error).message}`);
  }
  return { value, duplicates: detectDuplicates ? findJsonDuplicates(text) : [] };
}

const keyText = (key: unknown): string => {
  if (isScalar(key)) return String(key.value);
  return String(key);
};

/** Repeated keys of every mapping in the document, with paths and lines. */
function yamlDuplicates(doc: Document, lines: LineCounter): DuplicateField[] {
  const out: DuplicateField[] = [];
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = keyText(pair.key);
        const at = path === '' ? key : `${path}.${key}`;
        if (seen.has(key)) {
          const range = (pair.key as Node | null)?.range;
          out.push(range === undefined || range === null ? { path: at } : { path: at, line: lines.linePos(range[0]).line });
        } else {
          seen.add(key);
        }
        walk(pair.value, at);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, `${path}[${i}]`));
    }
  };
  walk(doc.contents, '');
  return out;
}

/** A document with no content (`---` with nothing after it) is an empty scalar spanning no text. */
function isBlank(doc: Document): boolean {
  const c = doc.contents;
  return c === null || (isScalar(c) && c.range !== undefined && c.range !== null && c.range[0] === c.range[1]);
}

/**
 * Parses a YAML body (YAML 1.2 core schema; JSON is valid YAML). Exactly one document: a stream with
 * several non-empty documents is 400 `the request body must contain exactly one YAML document, found N`
 * (send lists or one request per object). Syntax errors are 400
 * `error converting YAML to JSON: yaml: line L: <reason>`. An empty body decodes to `null`. Aliases are
 * expanded with the `yaml` package's alias-count guard.
 */
export function decodeYamlBody(text: string, detectDuplicates = true): DecodedBody {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { uniqueKeys: false, lineCounter: lines, prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [];
  const nonEmpty = list.filter((d) => d.errors.length > 0 || !isBlank(d));
  if (nonEmpty.length > 1) throw badRequest(`the request body must contain exactly one YAML document, found ${nonEmpty.length}`);
  const doc = nonEmpty[0];
  if (doc === undefined) return { value: null, duplicates: [] };
  const first = doc.errors[0];
  if (first !== undefined) {
    const line = lines.linePos(first.pos[0]).line;
    const reason = first.message.split('\n')[0] ?? first.message;
    throw badRequest(`error converting YAML to JSON: yaml: line ${line}: ${reason}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw badRequest(`error converting YAML to JSON: yaml: ${(e as Error).message}`);
  }
  return { value: value === undefined ? null : value, duplicates: detectDuplicates ? yamlDuplicates(doc, lines) : [] };
}

/**
 * Kubernetes' text for one repeated key under `fieldValidation`: `duplicate field "spec.replicas"` for
 * JSON; `line 3: key "replicas" already set in map` for YAML when the line is known.
 */
export function duplicateFieldMessage(d: DuplicateField): string {
  if (d.line === undefined) return `duplicate field ${JSON.stringify(d.path)}`;
  const dot = d.path.lastIndexOf('.');
  const key = dot < 0 ? d.path : d.path.slice(dot + 1);
  return `line ${d.line}: key ${JSON.stringify(key)} already set in map`;
}
