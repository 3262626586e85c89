/**
 * YAML request bodies, the counterpart of json-strict.ts: one document, YAML 1.1 scalars (as Kubernetes'
 * go-yaml: `yes`/`no`/`on`/`off` are booleans), duplicate keys reported by path instead of failing the
 * parse, so `fieldValidation` treats them exactly as duplicate JSON keys. The last occurrence wins.
 */
import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { badRequest } from '../errors/constructors.js';
import type { StrictJson } from './json-strict.js';

/** Alias expansions allowed per document: a guard against "billion laughs" bodies. */
const MAX_ALIAS_COUNT = 100;

/**
 * Parses a single YAML document; with `detectDuplicates` (default true) also lists duplicate keys.
 * Invalid YAML, several documents, or too many alias expansions throw 400 `error decoding YAML: <reason>`.
 * An empty document decodes to `null`.
 */
export function parseYamlStrict(text: string, detectDuplicates = true): StrictJson {
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false });
  const first = doc.errors[0];
  if (first !== undefined) throw badRequest(`error decoding YAML: ${first.message}`);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
  const duplicateFields: string[] = [];
  if (detectDuplicates && doc.contents !== null) collect(doc.contents as Node, '', duplicateFields);
  return { value, duplicateFields };
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
