/**
 * Turns internal schemas into published OpenAPI v2 (Swagger) or v3 schema objects:
 * - `x-kubernetes-*` extensions are renamed through `Naming.extension`, except
 *   `x-kubernetes-group-version-kind`, which kubectl reads under that name in every mode; the strategic
 *   merge extensions (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`) are published under
 *   both names, because kubectl computes client-side apply patches from them under those names alone
 *   (without them it would send list replacements that never delete a removed container);
 * - the shared schemas (ObjectMeta, ListMeta, ...) become `$ref`s to their definitions, found by object
 *   identity (kinds share the very objects of `object-meta-schema.ts`);
 * - int-or-string fields get `type: string, format: int-or-string`, as Kubernetes publishes IntOrString
 *   (in v3 only those without their own `anyOf`: a custom resource's schema is published as written);
 * - v2 drops what Swagger 2.0 cannot say (`nullable`, `anyOf`, `oneOf`, `not`).
 * Each publisher memoizes by schema object, so a schema shared by many kinds is converted once.
 */
import type { Naming } from '../../naming/naming.js';
import type { Schema } from '../../schema/schema.js';

export type Dialect = 'v2' | 'v3';

const gvkExtension = 'x-kubernetes-group-version-kind';
const kubectlReadsToo = new Set(['x-kubernetes-patch-strategy', 'x-kubernetes-patch-merge-key']);
const extensionPrefix = 'x-kubernetes-';
const dropInV2 = new Set(['nullable', 'anyOf', 'oneOf', 'not']);
/** Internal annotations (protobuf field numbers and wire forms), never published. */
const internal = new Set(['protobuf', 'protobufType']);

export type Published = Record<string, unknown>;

export interface SchemaPublisher {
  /** The published form of `schema`; a registered shared schema nested anywhere becomes a `$ref`. */
  publish(schema: Schema): Published;
  /** The published form of a shared schema's own definition (its body, not a `$ref` to itself). */
  definition(schema: Schema): Published;
}

/**
 * `refs` maps shared schema objects to their definition names; `refPrefix` is `#/definitions/` (v2) or
 * `#/components/schemas/` (v3).
 */
export function schemaPublisher(naming: Naming, dialect: Dialect, refs: ReadonlyMap<Schema, string>): SchemaPublisher {
  const refPrefix = dialect === 'v2' ? '#/definitions/' : '#/components/schemas/';
  const memo = new Map<Schema, Published>();
  const renamed = new Map<string, string>();
  const keyName = (key: string): string => {
    if (!key.startsWith(extensionPrefix) || key === gvkExtension) return key;
    let name = renamed.get(key);
    if (name === undefined) renamed.set(key, (name = naming.extension(key.slice(extensionPrefix.length))));
    return name;
  };

  // A reference in a property position; v3 wraps it in allOf so siblings (description) stay valid.
  const reference = (name: string, description: string | undefined): Published => {
    const $ref = refPrefix + name;
    if (dialect === 'v2') return description === undefined ? { $ref } : { description, $ref };
    return { allOf: [{ $ref }], ...(description === undefined ? {} : { description }), default: {} };
  };

  const walk = (s: Schema): Published => {
    const ref = refs.get(s);
    if (ref !== undefined) return reference(ref, s.description);
    return body(s);
  };

  const body = (s: Schema): Published => {
    const cached = memo.get(s);
    if (cached !== undefined) return cached;
    const out: Published = {};
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    // A node that states its alternatives (`anyOf: [{type: integer}, {type: string}]`, as custom resource
    // schemas do) is published in v3 as written, as Kubernetes publishes CRD schemas; v2 cannot say anyOf.
    if (intOrString && s.type === undefined && (dialect === 'v2' || s.anyOf === undefined)) {
      out['type'] = 'string';
      out['format'] = 'int-or-string';
    }
    for (const [key, value] of Object.entries(s)) {
      if (value === undefined || internal.has(key)) continue;
      if (dialect === 'v2' && dropInV2.has(key)) continue;
      if (dialect === 'v2' && intOrString && key === 'x-kubernetes-int-or-string') continue;
      switch (key) {
        case 'properties': {
          const props: Published = {};
          for (const [name, child] of Object.entries(value as Record<string, Schema>)) props[name] = walk(child);
          out[key] = props;
          break;
        }
        case 'items':
        case 'not':
          out[key] = walk(value as Schema);
          break;
        case 'additionalProperties':
          out[key] = typeof value === 'boolean' ? value : walk(value as Schema);
          break;
        case 'allOf':
        case 'anyOf':
        case 'oneOf':
          out[key] = (value as Schema[]).map(walk);
          break;
        default:
          out[keyName(key)] = value;
          if (kubectlReadsToo.has(key)) out[key] = value;
      }
    }
    memo.set(s, out);
    return out;
  };

  return { publish: walk, definition: body };
}
