/**
 * A structural OpenAPI v3 schema, as kept for every kind (built-in kinds as data in
 * `registry/kinds/<group>/<kind>.ts`; custom resources from their definitions). One schema drives decoding
 * (unknown and duplicate fields), pruning, defaulting, type and bound validation, the published OpenAPI
 * documents, and the merge strategies of strategic merge patch and server-side apply.
 *
 * Extensions are always written with Kubernetes' names (`x-kubernetes-*`) internally; the published
 * documents rename them through `Naming.extension` (except `x-kubernetes-group-version-kind`, which kubectl
 * reads in every mode). Schemas are immutable: never change one after it is registered.
 *
 * Structural means: every node states its `type` (except where `x-kubernetes-int-or-string` or
 * `x-kubernetes-preserve-unknown-fields` stand in for it), objects list `properties` or give
 * `additionalProperties` (a map), arrays give `items`. Logical junctors (`allOf`, `anyOf`, `oneOf`, `not`)
 * only add value validation; they never introduce fields.
 */
export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

export interface Schema {
  readonly type?: SchemaType;
  readonly description?: string;
  /** Object fields. */
  readonly properties?: Readonly<Record<string, Schema>>;
  /** A map: every value follows this schema (`true`: any value). Exclusive with `properties`. */
  readonly additionalProperties?: Schema | boolean;
  /** Array elements. */
  readonly items?: Schema;
  readonly required?: readonly string[];
  readonly nullable?: boolean;
  /** Applied when the field is absent (and, for non-nullable fields, when it is null). */
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  /** `int32`, `int64`, `byte` (base64), `date-time`, `date`, `duration`, `uuid`, `quantity`, ... */
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly multipleOf?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly allOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly not?: Schema;

  /** Keep fields the schema does not list (no pruning, no unknown-field errors below this node). */
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** The value may be an integer or a string (`IntOrString`). */
  readonly 'x-kubernetes-int-or-string'?: boolean;
  /** The value is a whole object with apiVersion, kind and metadata (validated as ObjectMeta). */
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  /** Array semantics for merging and validation. Default `atomic`. */
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  /** With list-type `map`: the fields that identify an element (unique together). */
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  /** Map semantics for merging. Default `granular`. */
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** Strategic merge patch: `merge`, `retainKeys`, `merge,retainKeys`, `replace`. */
  readonly 'x-kubernetes-patch-strategy'?: string;
  /** Strategic merge patch: the element key of a merged list. */
  readonly 'x-kubernetes-patch-merge-key'?: string;
  /** CEL rules evaluated against this node (the CRD and admission issues evaluate them). */
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
  /**
   * Protobuf field numbers of an object node's properties (Kubernetes' `generated.proto`), beside the
   * schema so a kind's JSON, YAML, OpenAPI and protobuf forms come from one definition. A kind whose
   * schema carries them is served in protobuf (`apiserver/codec/protobuf/`); custom resources never are.
   * Every property of such a node needs a number. Never published.
   */
  readonly protobuf?: ProtobufFields;
  /**
   * The protobuf wire form of this value where the JSON schema alone does not tell it (never published):
   * `quantity` (`resource.Quantity`, a message {string = 1}), `microtime` (`MicroTime`, an RFC 3339 string
   * with microseconds in JSON), `duration` (`metav1.Duration`, a Go duration string in JSON, int64
   * nanoseconds on the wire).
   */
  readonly protobufType?: 'quantity' | 'microtime' | 'duration';
  /** Published on each kind's top-level schema: the group/version/kind it describes. */
  readonly 'x-kubernetes-group-version-kind'?: readonly { readonly group: string; readonly version: string; readonly kind: string }[];
}

/**
 * One property's protobuf field. `pointer`: a pointer (or otherwise presence-tracked) field in Go, so a
 * zero value on the wire (`false`, `0`, `""`) was set on purpose and is kept when decoding; zero values of
 * plain fields are dropped, as Go's JSON `omitempty` drops them (defaults restore required zeros).
 */
export interface ProtobufField {
  readonly tag: number;
  readonly pointer?: boolean;
  /**
   * The field belongs to a Go embedded (`json:",inline"`) struct: JSON flattens its fields into this
   * object, protobuf nests them in one message at field `embedded` of this message (a Volume's sources in
   * VolumeSource = 2, a key selector's `name` in LocalObjectReference = 1, an ephemeral container's
   * Container fields in EphemeralContainerCommon = 1). `tag` is the number inside that message. Embedded
   * structs are never pointers: Go writes the embedded message always, even when it is empty. A list is a
   * path through embedded structs inside embedded structs, outermost first (admissionregistration's
   * NamedRuleWithOperations embeds RuleWithOperations = 2, which embeds Rule = 2: `[2, 2]`).
   */
  readonly embedded?: number | readonly number[];
}

/** Property name -> field number (a plain number: not a pointer). */
export type ProtobufFields = Readonly<Record<string, number | ProtobufField>>;

/** A pointer field's number (`*bool`, `*int64`, `*string`, ...). */
export const ptr = (tag: number): ProtobufField => ({ tag, pointer: true });
/** A field of the Go embedded struct at field `embedded` (a number, or a path of nested ones; see `ProtobufField.embedded`). */
export const inline = (embedded: number | readonly number[], field: number | ProtobufField): ProtobufField =>
  typeof field === 'number' ? { tag: field, embedded } : { ...field, embedded };
