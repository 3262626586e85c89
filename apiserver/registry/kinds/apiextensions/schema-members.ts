/**
 * Unknown members of a definition's schemas. The kind's own schema keeps JSONSchemaProps free-form
 * (crd-schema.ts: it is recursive), so the engine's unknown-field walk cannot see inside it; this walk does
 * what Kubernetes' typed decoding of JSONSchemaProps does there: a member JSONSchemaProps (or a validation
 * rule, or externalDocs) does not have is an unknown field — refused under `fieldValidation=Strict`, a
 * warning under Warn, dropped either way. Extensions are the naming's: in `platform.io` mode
 * `x-kubernetes-validations` is as unknown as a typo, so a rule written with the wrong prefix is never
 * silently ignored.
 *
 * Paths are those of Kubernetes' strict decoding errors: struct members and map keys joined by dots, list
 * indexes in brackets (`spec.versions[0].schema.openAPIV3Schema.properties.spec.x-foo`).
 */
import { isObject, type Json } from './json-schema-node.js';

/** JSONSchemaProps' members; the extensions without their prefix. */
const MEMBERS = new Set([
  'id', '$schema', '$ref', 'description', 'type', 'nullable', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties',
  'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties', 'additionalProperties', 'patternProperties',
  'dependencies', 'additionalItems', 'definitions', 'externalDocs', 'example',
]);
const EXTENSIONS = new Set(['preserve-unknown-fields', 'embedded-resource', 'int-or-string', 'list-map-keys', 'list-type', 'map-type', 'validations']);
const RULE_MEMBERS = new Set(['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf']);
const DOCS_MEMBERS = new Set(['description', 'url']);

/** Removes the unknown members of every version's schema (and of `spec.validation`) and returns their paths. */
export function removeUnknownSchemaMembers(crd: Record<string, unknown>, prefix: string): string[] {
  const out: string[] = [];
  const spec = crd.spec;
  if (!isObject(spec)) return out;
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  versions.forEach((v, i) => {
    const schema = isObject(v) && isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (isObject(schema)) walkSchema(schema, `spec.versions[${i}].schema.openAPIV3Schema`, prefix, out);
  });
  return out;
}

function strip(node: Json, path: string, known: (key: string) => boolean, out: string[]): void {
  for (const key of Object.keys(node)) {
    if (known(key)) continue;
    out.push(`${path}.${key}`);
    delete node[key];
  }
}

function walkSchema(node: Json, path: string, prefix: string, out: string[]): void {
  strip(node, path, (k) => MEMBERS.has(k) || (k.startsWith(prefix) && EXTENSIONS.has(k.slice(prefix.length))), out);
  const schemaAt = (v: unknown, p: string): void => {
    if (isObject(v)) walkSchema(v, p, prefix, out);
  };
  const mapAt = (key: string): void => {
    const m = node[key];
    if (isObject(m)) for (const [name, s] of Object.entries(m)) schemaAt(s, `${path}.${key}.${name}`);
  };
  mapAt('properties');
  mapAt('patternProperties');
  mapAt('definitions');
  // Schema-or-bool, schema-or-list, schema-or-string-list members: only their schema forms have members.
  schemaAt(node.additionalProperties, `${path}.additionalProperties`);
  schemaAt(node.additionalItems, `${path}.additionalItems`);
  schemaAt(node.not, `${path}.not`);
  if (Array.isArray(node.items)) node.items.forEach((s, i) => schemaAt(s, `${path}.items[${i}]`));
  else schemaAt(node.items, `${path}.items`);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((s, i) => schemaAt(s, `${path}.${key}[${i}]`));
  }
  const deps = node.dependencies;
  if (isObject(deps)) for (const [name, d] of Object.entries(deps)) schemaAt(d, `${path}.dependencies.${name}`);
  if (isObject(node.externalDocs)) strip(node.externalDocs, `${path}.externalDocs`, (k) => DOCS_MEMBERS.has(k), out);
  const rules = node[`${prefix}validations`];
  if (Array.isArray(rules)) {
    rules.forEach((r, i) => {
      if (isObject(r)) strip(r, `${path}.${prefix}validations[${i}]`, (k) => RULE_MEMBERS.has(k), out);
    });
  }
}
