/**
 * A validation rule's `fieldPath` (`.spec.ports['http']`, `['a.b'].c`) resolved against the schema node
 * that holds the rule, in the field-path notation of errors (`spec.ports[http]`, `a.b.c`), as Kubernetes'
 * `ValidFieldPath`: `.name` and `['name']` select a property of an object or a key of a map (a map key is
 * written `[key]`); list indices are not allowed. undefined when the path does not resolve (Kubernetes
 * refuses such a rule when the definition is written; at validation time it is ignored).
 *
 * Quoted names take the escapes `\a \b \f \n \r \t \v \' \\`; any other escape makes the path invalid.
 */
import type { SchemaNode, SchemaView } from '../cel/types/schema-node.js';
import { fieldPathTokens, unescapeQuoted } from './field-path-syntax.js';


/** The normalized error path of `fieldPath` below `schema`, or undefined when it does not resolve. */
export function normalizeRuleFieldPath(fieldPath: string, schema: SchemaNode, view: SchemaView): string | undefined {
  const toks = fieldPathTokens(fieldPath);
  let node: SchemaNode | undefined = schema;
  let out = '';
  const step = (name: string): boolean => {
    const props = view.properties(node!);
    if (props !== undefined) {
      if (!Object.prototype.hasOwnProperty.call(props, name)) return false;
      node = props[name];
      out += out === '' ? name : `.${name}`;
      return true;
    }
    const ap = view.additionalProperties(node!);
    if (ap === undefined) return false;
    node = ap;
    out += `[${name}]`;
    return true;
  };
  let i = 0;
  while (i < toks.length) {
    const t = toks[i++]!;
    if (t === '.') {
      const name = toks[i++];
      if (name === undefined || !step(name)) return undefined;
    } else if (t === '[') {
      const quoted = toks[i++];
      if (quoted === undefined || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return undefined;
      const name = unescapeQuoted(quoted.slice(1, -1));
      if ('badEscape' in name || !step(name.value)) return undefined;
      if (toks[i++] !== ']') return undefined;
    } else {
      return undefined;
    }
  }
  return out;
}
