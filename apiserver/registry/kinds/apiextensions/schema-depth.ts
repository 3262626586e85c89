/**
 * A bound on how deeply a definition's schema nests (schema positions: properties, items,
 * additionalProperties, the junctors ...). Kubernetes has none beyond its request size and Go's JSON
 * nesting limit; every walk over a schema here (validation, the structural checks, the CEL declarations,
 * OpenAPI publishing, field sets) recurses, so a schema nested thousands deep inside a 3 MiB body would
 * exhaust the stack. The deepest published definitions (cert-manager's issuers, 19 levels) are far below
 * the bound. Measured without recursion, so any input is safe to measure.
 */
import { isObject, type Json } from './json-schema-node.js';

/** The deepest nesting of schema nodes accepted (the root is 1). */
export const MAX_SCHEMA_DEPTH = 64;

const MAP_MEMBERS = ['properties', 'patternProperties', 'definitions', 'dependencies'] as const;
const ONE_MEMBERS = ['items', 'additionalProperties', 'additionalItems', 'not'] as const;
const LIST_MEMBERS = ['allOf', 'oneOf', 'anyOf', 'items'] as const;

/** The nesting depth of `root`, counting at most to `limit + 1`. */
export function schemaDepth(root: Json, limit = MAX_SCHEMA_DEPTH): number {
  let max = 0;
  const stack: [Json, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) max = depth;
    if (max > limit) return max;
    const push = (v: unknown): void => {
      if (isObject(v)) stack.push([v, depth + 1]);
    };
    for (const m of MAP_MEMBERS) if (isObject(node[m])) for (const v of Object.values(node[m] as Json)) push(v);
    for (const m of ONE_MEMBERS) push(node[m]);
    for (const m of LIST_MEMBERS) if (Array.isArray(node[m])) for (const v of node[m] as unknown[]) push(v);
  }
  return max;
}
