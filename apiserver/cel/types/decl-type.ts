/**
 * The declared types of CEL rules over a structural schema: one `DeclType` tree per schema (Kubernetes'
 * `apiservercel.DeclType` built by `SchemaDeclType`). It drives three things:
 *  - the checker: every object node becomes a cel-js object type with typed fields (`register.ts`);
 *  - adaptation of JSON data to CEL values under that schema (`adapt.ts`);
 *  - the static cost estimator: `maxElements` and `minSerializedSize` follow Kubernetes' size rules.
 *
 * The OpenAPI v3 -> CEL mapping (spec "OpenAPI v3 to CEL type mapping"):
 *
 * | schema                                          | DeclType                                           |
 * |-------------------------------------------------|----------------------------------------------------|
 * | `x-int-or-string`                               | `dyn` (holds an int or a string at run time)       |
 * | object with `additionalProperties` (a schema)   | `map<string, T>`                                   |
 * | object (with or without `properties`)           | object type, fields under their escaped names      |
 * | object with `x-embedded-resource`, and the root | object; `apiVersion`, `kind`, `metadata.name`,     |
 * |                                                 | `metadata.generateName` implicitly declared         |
 * | object with `x-preserve-unknown-fields`         | object; only declared properties are fields        |
 * | array (`x-list-type` atomic, set, map)          | `list<T>` (the list type is kept for run time)     |
 * | boolean / number / integer                      | `bool` / `double` / `int`                          |
 * | string, format byte / date, date-time / duration| `bytes` / `timestamp` / `duration`                 |
 * | string                                          | `string`                                           |
 *
 * Not exposed (no DeclType; a property so typed is no field, a list or map of it is not exposed either):
 * a node without `type` (only `x-preserve-unknown-fields`), an array without items, unknown types.
 * Property names that cannot be escaped (escaping.ts) are no fields, though they still count for size
 * (`minSerializedSize`) when required.
 *
 * Type names: the root object is `rootName` (Kubernetes uses `selfType<n>`); a field's object type is
 * `<parent>.<escaped field>`, a list's element type `<list>.__idx__`, a map's value type
 * `<map>.__elem__` (Kubernetes writes `@idx` and `@elem`; cel-js accepts only word characters and dots in
 * operator signatures, and an escaped field name never has the form `__idx__`, so names stay unique).
 */
import type { ListType } from '../values/value.js';
import { escapePropertyName } from './escaping.js';
import { KUBERNETES_EXTENSIONS, SchemaView, type ExtensionPrefix, type SchemaNode } from './schema-node.js';

/** Kubernetes' request size bound used for size estimates (`apiservercel.MaxRequestSizeBytes`, 3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
/** Longest JSON duration string counted (with quotes). */
export const MAX_DURATION_SIZE_JSON = 32;
/** Longest JSON date-time (`9999-12-31T23:59:59.999999999Z` with quotes). */
export const MAX_DATETIME_SIZE_JSON = 32;
/** Shortest JSON duration (`"0"`). */
export const MIN_DURATION_SIZE_JSON = 3;
/** A JSON date (`"YYYY-MM-DD"`). */
export const JSON_DATE_SIZE = 12;
/** Shortest JSON date-time (date, `T`, time, quotes). */
export const MIN_DATETIME_SIZE_JSON = 21;
/** `""`. */
export const MIN_STRING_SIZE = 2;
/** `true`. */
export const MIN_BOOL_SIZE = 4;
/** `0`. */
export const MIN_NUMBER_SIZE = 1;

export type ScalarKind = 'bool' | 'int' | 'double' | 'string' | 'bytes' | 'timestamp' | 'duration';

interface DeclCommon {
  /** The type as cel-js declares it: `int`, `list<string>`, `map<string, selfType.spec.__elem__>`, `selfType.spec`. */
  readonly celType: string;
  /**
   * Kubernetes' `MaxElements`: the largest length of a string (in bytes) or bytes value, the most items
   * of a list, entries of a map, or the longest serialized int-or-string. 0 where there is no size (bool,
   * int, double, objects).
   */
  readonly maxElements: number;
  /** The smallest JSON serialization of a value of this type (Kubernetes' `MinSerializedSize`). */
  readonly minSerializedSize: number;
  /** `nullable: true` on the schema: a null value adapts to CEL null instead of an error. */
  readonly nullable: boolean;
}

export interface ScalarDecl extends DeclCommon {
  readonly kind: ScalarKind;
  /** For `timestamp`: the schema's format (`date` or `date-time`), which decides how strings parse. */
  readonly format?: 'date' | 'date-time';
  /** The schema's own `maxLength` for strings and bytes (kept for the estimator). */
  readonly maxLength?: number;
  /** The schema's `enum`, when given. */
  readonly enum?: readonly unknown[];
}

/** `x-int-or-string`: checked as `dyn`, an int or a string at run time. */
export interface IntOrStringDecl extends DeclCommon {
  readonly kind: 'int-or-string';
}

export interface ListDecl extends DeclCommon {
  readonly kind: 'list';
  readonly elem: DeclType;
  /** `x-list-type` (`atomic` when absent) with the `x-list-map-keys` of a map list. */
  readonly listType: ListType;
  readonly maxItems?: number;
}

export interface MapDecl extends DeclCommon {
  readonly kind: 'map';
  readonly elem: DeclType;
  readonly maxProperties?: number;
}

export interface DeclField {
  /** The CEL field name (escaped). */
  readonly name: string;
  /** The property name in the JSON object. */
  readonly property: string;
  readonly type: DeclType;
  readonly required: boolean;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
}

export interface ObjectDecl extends DeclCommon {
  readonly kind: 'object';
  /** The checker's type name (also `CelObject.typeName` of adapted values). */
  readonly name: string;
  /** Accessible fields by CEL (escaped) name. */
  readonly fields: ReadonlyMap<string, DeclField>;
  /** The same fields by property name. */
  readonly properties: ReadonlyMap<string, DeclField>;
  readonly embeddedResource: boolean;
  /** The schema keeps unknown fields: they exist in the data but are never fields. */
  readonly preserveUnknownFields: boolean;
}

export type DeclType = ScalarDecl | IntOrStringDecl | ListDecl | MapDecl | ObjectDecl;

export interface DeclTypeOptions {
  /** Extension spelling of the schema (`x-kubernetes-`, the default, or `x-platform-`). */
  readonly extensionPrefix?: ExtensionPrefix;
  /** The name of the root object type. Default `selfType`. */
  readonly rootName?: string;
  /**
   * The node is the root of a resource (a custom resource's schema): `apiVersion`, `kind`,
   * `metadata.name` and `metadata.generateName` are declared even when the schema omits them. Embedded
   * resources below get the same automatically.
   */
  readonly resourceRoot?: boolean;
}

export const DEFAULT_ROOT_TYPE_NAME = 'selfType';

/**
 * The DeclType of a schema node, or undefined when the node is not exposed to CEL (see the file comment).
 */
export function schemaDeclType(schema: SchemaNode, opts: DeclTypeOptions = {}): DeclType | undefined {
  const view = new SchemaView(opts.extensionPrefix ?? KUBERNETES_EXTENSIONS);
  return build(view, schema, opts.resourceRoot ?? false, opts.rootName ?? DEFAULT_ROOT_TYPE_NAME);
}

const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');
const zeroIfNegative = (n: number): number => (n < 0 ? 0 : n);

function build(view: SchemaView, s: SchemaNode, resourceRoot: boolean, name: string): DeclType | undefined {
  const nullable = view.nullable(s);
  if (view.intOrString(s)) {
    // Kubernetes 1.32 bounds an int-or-string by the request size whatever its maxLength (1.34 uses maxLength).
    return { kind: 'int-or-string', celType: 'dyn', maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: 1, nullable };
  }
  if (resourceRoot) s = withTypeAndObjectMeta(view, s);
  switch (view.type(s)) {
    case 'array': {
      const items = view.items(s);
      if (!items) return undefined;
      const elem = build(view, items, view.embeddedResource(items), `${name}.__idx__`);
      if (!elem) return undefined;
      const maxItems = view.bound(s, 'maxItems');
      return {
        kind: 'list',
        celType: `list<${elem.celType}>`,
        elem,
        listType: listTypeOf(view, s),
        maxItems,
        maxElements: maxItems !== undefined ? zeroIfNegative(maxItems) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1)),
        minSerializedSize: 2,
        nullable,
      };
    }
    case 'object': {
      const additional = view.additionalProperties(s);
      if (additional) {
        const elem = build(view, additional, view.embeddedResource(additional), `${name}.__elem__`);
        if (!elem) return undefined;
        const maxProperties = view.bound(s, 'maxProperties');
        return {
          kind: 'map',
          celType: `map<string, ${elem.celType}>`,
          elem,
          maxProperties,
          // A map entry is at least `"":` and `,` around the smallest value.
          maxElements: maxProperties !== undefined ? zeroIfNegative(maxProperties) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 6)),
          minSerializedSize: 2,
          nullable,
        };
      }
      const required = new Set(view.required(s));
      const fields = new Map<string, DeclField>();
      const properties = new Map<string, DeclField>();
      // An object is at least `{}`; each required property without a default adds `"name":value,`.
      let minSerializedSize = 2;
      const props = view.properties(s) ?? {};
      for (const property of Object.keys(props)) {
        const prop = props[property]!;
        const escaped = escapePropertyName(property);
        const type = build(view, prop, view.embeddedResource(prop), `${name}.${escaped ?? property}`);
        if (!type) continue;
        if (escaped !== undefined) {
          const enumValues = view.enumValues(prop);
          const field: DeclField = {
            name: escaped,
            property,
            type,
            required: required.has(property),
            ...(enumValues ? { enum: enumValues } : {}),
            ...(view.hasDefault(prop) ? { default: view.defaultValue(prop) } : {}),
          };
          fields.set(escaped, field);
          properties.set(property, field);
        }
        if (required.has(property) && !view.hasDefault(prop)) minSerializedSize += utf8Length(property) + type.minSerializedSize + 4;
      }
      return {
        kind: 'object',
        celType: name,
        name,
        fields,
        properties,
        embeddedResource: view.embeddedResource(s),
        preserveUnknownFields: view.preserveUnknownFields(s),
        maxElements: 0,
        minSerializedSize,
        nullable,
      };
    }
    case 'string':
      return stringDecl(view, s, nullable);
    case 'boolean':
      return { kind: 'bool', celType: 'bool', maxElements: 0, minSerializedSize: MIN_BOOL_SIZE, nullable };
    case 'number':
      return { kind: 'double', celType: 'double', maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE, nullable };
    case 'integer':
      return { kind: 'int', celType: 'int', maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE, nullable };
    default:
      return undefined;
  }
}

function stringDecl(view: SchemaView, s: SchemaNode, nullable: boolean): ScalarDecl {
  const maxLength = view.bound(s, 'maxLength');
  const enumValues = view.enumValues(s);
  const extra = { ...(maxLength !== undefined ? { maxLength } : {}), ...(enumValues ? { enum: enumValues } : {}) };
  switch (view.format(s)) {
    case 'byte':
      return {
        kind: 'bytes',
        celType: 'bytes',
        // bytes are bounded by maxLength as given (base64 text is longer than the bytes it holds)
        maxElements: maxLength !== undefined ? zeroIfNegative(maxLength) : MAX_REQUEST_SIZE_BYTES - 2,
        minSerializedSize: MIN_STRING_SIZE,
        nullable,
        ...extra,
      };
    case 'duration':
      return { kind: 'duration', celType: 'google.protobuf.Duration', maxElements: MAX_DURATION_SIZE_JSON, minSerializedSize: MIN_DURATION_SIZE_JSON, nullable, ...extra };
    case 'date':
      return { kind: 'timestamp', format: 'date', celType: 'google.protobuf.Timestamp', maxElements: JSON_DATE_SIZE, minSerializedSize: JSON_DATE_SIZE, nullable, ...extra };
    case 'date-time':
      return { kind: 'timestamp', format: 'date-time', celType: 'google.protobuf.Timestamp', maxElements: MAX_DATETIME_SIZE_JSON, minSerializedSize: MIN_DATETIME_SIZE_JSON, nullable, ...extra };
  }
  let maxElements: number;
  if (maxLength !== undefined) {
    // maxLength counts code points; a code point is up to 4 bytes.
    maxElements = zeroIfNegative(maxLength) * 4;
  } else if (enumValues && enumValues.length > 0) {
    maxElements = enumValues.reduce<number>((m, v) => (typeof v === 'string' ? Math.max(m, utf8Length(v)) : m), 0);
  } else {
    maxElements = MAX_REQUEST_SIZE_BYTES - 2;
  }
  return { kind: 'string', celType: 'string', maxElements, minSerializedSize: MIN_STRING_SIZE, nullable, ...extra };
}

function listTypeOf(view: SchemaView, s: SchemaNode): ListType {
  switch (view.listType(s)) {
    case 'set':
      return { type: 'set' };
    case 'map':
      return { type: 'map', keys: view.listMapKeys(s) };
    default:
      return { type: 'atomic' };
  }
}

const STRING_NODE: SchemaNode = Object.freeze({ type: 'string' });

/**
 * The schema with `kind`, `apiVersion` and `metadata: {name, generateName}` declared (Kubernetes'
 * `WithTypeAndObjectMeta`): unchanged when it already declares all of them as strings under an object
 * `metadata` with properties; otherwise a copy where those three properties are replaced (a declared
 * `metadata` loses its other properties: only name and generateName are ever accessible).
 */
export function withTypeAndObjectMeta(view: SchemaView, s: SchemaNode): SchemaNode {
  const props = view.properties(s);
  const meta = props?.metadata;
  const metaProps = meta ? view.properties(meta) : undefined;
  const isString = (n: SchemaNode | undefined): boolean => n !== undefined && view.type(n) === 'string';
  if (
    props &&
    isString(props.kind) &&
    isString(props.apiVersion) &&
    meta &&
    view.type(meta) === 'object' &&
    metaProps &&
    isString(metaProps.name) &&
    isString(metaProps.generateName)
  ) {
    return s;
  }
  return {
    ...s,
    properties: {
      ...(props ?? {}),
      kind: STRING_NODE,
      apiVersion: STRING_NODE,
      metadata: { type: 'object', properties: { name: STRING_NODE, generateName: STRING_NODE } },
    },
  };
}

/** Every object type of a tree, parents before children (each name once). */
export function objectTypesOf(t: DeclType, out: Map<string, ObjectDecl> = new Map()): Map<string, ObjectDecl> {
  switch (t.kind) {
    case 'object':
      if (out.has(t.name)) return out;
      out.set(t.name, t);
      for (const f of t.fields.values()) objectTypesOf(f.type, out);
      return out;
    case 'list':
    case 'map':
      return objectTypesOf(t.elem, out);
    default:
      return out;
  }
}
