/**
 * A definition's JSONSchemaProps as the schema engine's `Schema` (apiserver/schema/schema.ts): the same
 * JSON with the extensions renamed from the naming's prefix (`x-platform-*`) to Kubernetes' names, which
 * the engine always reads. In k8s.io mode the prefix already is Kubernetes' and nothing is copied.
 *
 * Only schema positions are renamed (a node's own members; `properties` values, `additionalProperties`,
 * `items`, the junctors, `not`); values (`default`, `enum`, `example`) and property names are kept as they
 * are. Extensions of the other spelling are dropped, as the definition's readers ignore them. The result
 * is for validation, pruning and defaulting of values at write time; it is not checked for being
 * structural (the caller validates the definition first).
 */
import type { Schema } from '../../../schema/schema.js';
import { isObject, type Json } from './json-schema-node.js';

const K8S = 'x-kubernetes-';
const VALUE_MEMBERS = new Set(['default', 'enum', 'example']);

/** `node` (a definition's schema, extensions spelled with `prefix`) as an engine schema. */
export function engineSchemaOf(node: Json, prefix: string): Schema {
  return (prefix === K8S ? node : rename(node, prefix)) as Schema;
}

function rename(node: Json, prefix: string): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith(prefix)) out[K8S + k.slice(prefix.length)] = v;
    else if (k.startsWith('x-')) continue;
    else if (VALUE_MEMBERS.has(k)) out[k] = v;
    else if (k === 'properties' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, isObject(s) ? rename(s, prefix) : s]));
    else if ((k === 'additionalProperties' || k === 'items' || k === 'not') && isObject(v)) out[k] = rename(v, prefix);
    else if ((k === 'allOf' || k === 'anyOf' || k === 'oneOf') && Array.isArray(v)) out[k] = v.map((s) => (isObject(s) ? rename(s, prefix) : s));
    else out[k] = v;
  }
  return out;
}
