/**
 * The schema of CustomResourceDefinition (`apiextensions.<domain>/v1`), as Kubernetes v1.32 publishes it,
 * with the field numbers of `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.proto`
 * beside every message.
 *
 * JSONSchemaProps (`versions[].schema.openAPIV3Schema`) is kept as a free-form object
 * (`x-kubernetes-preserve-unknown-fields`), for two reasons the schema model cannot express today:
 * - it is recursive (`properties`, `items`, `allOf` ... hold JSONSchemaProps again), and the OpenAPI
 *   publisher, the field-set builder of server-side apply and the validator walk schemas, not data, so a
 *   cyclic schema would never end for them;
 * - several of its members are JSON unions (`additionalProperties` and `additionalItems`: a schema or a
 *   boolean; `items`: a schema or a list of schemas; `dependencies`: a schema or a string list; `default`,
 *   `enum`, `example`: any JSON), whose protobuf forms are wrapper messages (JSONSchemaPropsOrBool
 *   {allows = 1, schema = 2}, JSONSchemaPropsOrArray {schema = 1, jSONSchemas = 2},
 *   JSONSchemaPropsOrStringArray {schema = 1, property = 2}, JSON {raw = 1}) that a structural node
 *   cannot describe.
 * The kind's validation (crd-validation.ts and the files it calls) checks every member of the schema
 * itself, with Kubernetes' messages, so nothing is lost by not typing it here.
 *
 * Protobuf: every message below carries its numbers, but the top level does not (`kindSchema` gets no
 * numbers), so the kind is served in JSON, YAML (and CBOR) only: a protobuf body would need
 * JSONSchemaProps' message form (`JSON_SCHEMA_PROPS_FIELDS`), which the codec cannot derive from a
 * free-form node. kubectl and client-go's apiextensions clientset speak JSON to this kind. When the codec
 * learns a `protobufType` for JSONSchemaProps, pass `CRD_FIELDS` to `kindSchema`.
 */
import type { Schema } from '../../../schema/schema.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { atomicList, bool, int32, keyedList, obj, requiredStr, str, stringList, struct, time } from '../shared/schema-builders.js';

/** The top-level field numbers (metadata = 1 is added by `kindSchema`). */
export const CRD_FIELDS = Object.freeze({ spec: 2, status: 3 });

/**
 * JSONSchemaProps' field numbers (JSON name -> number), for the day the codec encodes it. The `x-kubernetes-*`
 * members are named `xKubernetes*` in protobuf; `$ref` is `ref`, `$schema` is `schema`.
 */
export const JSON_SCHEMA_PROPS_FIELDS = Object.freeze({
  id: 1, $schema: 2, $ref: 3, description: 4, type: 5, format: 6, title: 7, default: 8, maximum: 9,
  exclusiveMaximum: 10, minimum: 11, exclusiveMinimum: 12, maxLength: 13, minLength: 14, pattern: 15,
  maxItems: 16, minItems: 17, uniqueItems: 18, multipleOf: 19, enum: 20, maxProperties: 21, minProperties: 22,
  required: 23, items: 24, allOf: 25, oneOf: 26, anyOf: 27, not: 28, properties: 29, additionalProperties: 30,
  patternProperties: 31, dependencies: 32, additionalItems: 33, definitions: 34, externalDocs: 35, example: 36,
  nullable: 37, 'x-kubernetes-preserve-unknown-fields': 38, 'x-kubernetes-embedded-resource': 39,
  'x-kubernetes-int-or-string': 40, 'x-kubernetes-list-map-keys': 41, 'x-kubernetes-list-type': 42,
  'x-kubernetes-map-type': 43, 'x-kubernetes-validations': 44,
});

/** The free-form JSONSchemaProps node (see the file comment). */
export const jsonSchemaPropsSchema: Schema = {
  type: 'object',
  description:
    'JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/), restricted to structural schemas: see the CustomResourceDefinition documentation for the members and extensions accepted.',
  'x-kubernetes-preserve-unknown-fields': true,
};

export const namesSchema: Schema = obj(
  'CustomResourceDefinitionNames indicates the names to serve this CustomResourceDefinition',
  {
    categories: stringList(
      "categories is a list of grouped resources this custom resource belongs to (e.g. 'all'). This is published in API discovery documents, and used by clients to support invocations like `kubectl get all`.",
    ),
    kind: requiredStr(
      'kind is the serialized kind of the resource. It is normally CamelCase and singular. Custom resource instances will use this value as the `kind` attribute in API calls.',
    ),
    listKind: str('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
    plural: requiredStr(
      'plural is the plural name of the resource to serve. The custom resources are served under `/apis/<group>/<version>/.../<plural>`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`). Must be all lowercase.',
    ),
    shortNames: stringList(
      'shortNames are short names for the resource, exposed in API discovery documents, and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase.',
    ),
    singular: str('singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.'),
  },
  ['plural', 'kind'],
  { protobuf: { plural: 1, singular: 2, shortNames: 3, kind: 4, listKind: 5, categories: 6 } },
);

const serviceReferenceSchema: Schema = obj(
  'ServiceReference holds a reference to Service.legacy.k8s.io',
  {
    name: requiredStr('name is the name of the service. Required'),
    namespace: requiredStr('namespace is the namespace of the service. Required'),
    path: str('path is an optional URL path at which the webhook will be contacted.'),
    port: int32('port is an optional service port at which the webhook will be contacted. `port` should be a valid port number (1-65535, inclusive). Defaults to 443 for backward compatibility.', {
      default: 443,
    }),
  },
  ['namespace', 'name'],
  { protobuf: { namespace: 1, name: 2, path: 3, port: { tag: 4, pointer: true } } },
);

const webhookClientConfigSchema: Schema = obj(
  'WebhookClientConfig contains the information to make a TLS connection with the webhook.',
  {
    caBundle: str("caBundle is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used.", {
      format: 'byte',
    }),
    service: { ...serviceReferenceSchema, description: 'service is a reference to the service for this webhook. Either service or url must be specified. If the webhook is running within the cluster, then you should use `service`.' },
    url: str(
      'url gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified. The scheme must be "https"; user information, query parameters and fragments are not allowed. The host should not refer to a service running in the cluster; use the `service` field instead. The host may be an IP address.',
    ),
  },
  undefined,
  { protobuf: { service: { tag: 1, pointer: true }, caBundle: 2, url: { tag: 3, pointer: true } } },
);

const conversionSchema: Schema = obj(
  'CustomResourceConversion describes how to convert different versions of a CR.',
  {
    strategy: requiredStr(
      'strategy specifies how custom resources are converted between versions. Allowed values are: - `"None"`: The converter only change the apiVersion and would not touch any other field in the custom resource. - `"Webhook"`: API Server will call to an external webhook to do the conversion. Additional information is needed for this option. This requires spec.preserveUnknownFields to be false, and spec.conversion.webhook to be set.',
    ),
    webhook: obj(
      'WebhookConversion describes how to call a conversion webhook',
      {
        clientConfig: { ...webhookClientConfigSchema, description: 'clientConfig is the instructions for how to call the webhook if strategy is `Webhook`.' },
        conversionReviewVersions: stringList(
          'conversionReviewVersions is an ordered list of preferred `ConversionReview` versions the Webhook expects. The API server will use the first version in the list which it supports. If none of the versions specified in this list are supported by API server, conversion will fail for the custom resource. If a persisted Webhook configuration specifies allowed versions and does not include any versions known to the API Server, calls to the webhook will fail.',
        ),
      },
      ['conversionReviewVersions'],
      { protobuf: { clientConfig: { tag: 2, pointer: true }, conversionReviewVersions: 3 } },
    ),
  },
  ['strategy'],
  { protobuf: { strategy: 1, webhook: { tag: 2, pointer: true } } },
);

const columnSchema: Schema = obj(
  'CustomResourceColumnDefinition specifies a column for server side printing.',
  {
    description: str('description is a human readable description of this column.'),
    format: str(
      "format is an optional OpenAPI type definition for this column. The 'name' format is applied to the primary identifier column to assist in clients identifying column is the resource name. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details.",
    ),
    jsonPath: requiredStr('jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.'),
    name: requiredStr('name is a human readable name for the column.'),
    priority: int32(
      'priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a priority greater than 0.',
    ),
    type: requiredStr('type is an OpenAPI type definition for this column. See https://github.com/OAI/OpenAPI-Specification/blob/master/versions/2.0.md#data-types for details.'),
  },
  ['name', 'type', 'jsonPath'],
  { protobuf: { name: 1, type: 2, format: 3, description: 4, priority: 5, jsonPath: 6 } },
);

const selectableFieldSchema: Schema = obj(
  'SelectableField specifies the JSON path of a field that may be used with field selectors.',
  {
    jsonPath: requiredStr(
      'jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value. Only JSON paths without the array notation are allowed. Must point to a field of type string, boolean or integer. Types with enum values and strings with formats are allowed. If jsonPath refers to absent field in a resource, the jsonPath evaluates to an empty string. Must not point to metdata fields. Required.',
    ),
  },
  ['jsonPath'],
  { protobuf: { jsonPath: 1 } },
);

const scaleSchema: Schema = obj(
  'CustomResourceSubresourceScale defines how to serve the scale subresource for CustomResources.',
  {
    labelSelectorPath: str(
      'labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status` or `.spec`. Must be set to work with HorizontalPodAutoscaler. The field pointed by this JSON path must be a string field (not a complex selector struct) which contains a serialized label selector in string form. If there is no value under the given path in the custom resource, the `status.selector` value in the `/scale` subresource will default to the empty string.',
    ),
    specReplicasPath: requiredStr(
      'specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.spec`. If there is no value under the given path in the custom resource, the `/scale` subresource will return an error on GET.',
    ),
    statusReplicasPath: requiredStr(
      'statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`. Only JSON paths without the array notation are allowed. Must be a JSON Path under `.status`. If there is no value under the given path in the custom resource, the `status.replicas` value in the `/scale` subresource will default to 0.',
    ),
  },
  ['specReplicasPath', 'statusReplicasPath'],
  { protobuf: { specReplicasPath: 1, statusReplicasPath: 2, labelSelectorPath: { tag: 3, pointer: true } } },
);

const subresourcesSchema: Schema = obj(
  'CustomResourceSubresources defines the status and scale subresources for CustomResources.',
  {
    scale: { ...scaleSchema, description: 'scale indicates the custom resource should serve a `/scale` subresource that returns an `autoscaling/v1` Scale object.' },
    status: {
      type: 'object',
      description:
        'status indicates the custom resource should serve a `/status` subresource. When enabled: 1. requests to the custom resource primary endpoint ignore changes to the `status` stanza of the object. 2. requests to the custom resource `/status` subresource ignore changes to anything other than the `status` stanza of the object.',
      // CustomResourceSubresourceStatus is an empty message; any member is dropped, as Go's decoder does.
      properties: {},
      protobuf: {},
    },
  },
  undefined,
  { protobuf: { status: { tag: 1, pointer: true }, scale: { tag: 2, pointer: true } } },
);

const versionSchema: Schema = obj(
  'CustomResourceDefinitionVersion describes a version for CRD.',
  {
    additionalPrinterColumns: atomicList(
      { ...columnSchema, default: {} },
      'additionalPrinterColumns specifies additional columns returned in Table output. See https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables for details. If no columns are specified, a single column displaying the age of the custom resource is used.',
    ),
    deprecated: bool(
      'deprecated indicates this version of the custom resource API is deprecated. When set to true, API requests to this version receive a warning header in the server response. Defaults to false.',
    ),
    deprecationWarning: str(
      'deprecationWarning overrides the default warning returned to API clients. May only be set when `deprecated` is true. The default warning indicates this version is deprecated and recommends use of the newest served version of equal or greater stability, if one exists.',
    ),
    name: requiredStr(
      'name is the version name, e.g. “v1”, “v2beta1”, etc. The custom resources are served under this version at `/apis/<group>/<version>/...` if `served` is true.',
    ),
    schema: obj(
      'CustomResourceValidation is a list of validation methods for CustomResources.',
      { openAPIV3Schema: { ...jsonSchemaPropsSchema, description: 'openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.' } },
      undefined,
      { protobuf: { openAPIV3Schema: { tag: 1, pointer: true } } },
    ),
    selectableFields: atomicList(
      { ...selectableFieldSchema, default: {} },
      'selectableFields specifies paths to fields that may be used as field selectors. A maximum of 8 selectable fields are allowed. See https://kubernetes.io/docs/concepts/overview/working-with-objects/field-selectors',
    ),
    // `served` and `storage` are plain Go bools: absent reads as false (the default keeps them in the stored object).
    served: bool('served is a flag enabling/disabling this version from being served via REST APIs', { default: false }),
    storage: bool(
      'storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.',
      { default: false },
    ),
    subresources: { ...subresourcesSchema, description: 'subresources specify what subresources this version of the defined custom resource have.' },
  },
  ['name', 'served', 'storage'],
  {
    protobuf: {
      name: 1,
      served: 2,
      storage: 3,
      schema: { tag: 4, pointer: true },
      subresources: { tag: 5, pointer: true },
      additionalPrinterColumns: 6,
      deprecated: 7,
      deprecationWarning: { tag: 8, pointer: true },
      selectableFields: 9,
    },
  },
);

const conditionSchema: Schema = obj(
  'CustomResourceDefinitionCondition contains details for the current condition of this pod.',
  {
    lastTransitionTime: time('lastTransitionTime last time the condition transitioned from one status to another.'),
    message: str('message is a human-readable message indicating details about last transition.'),
    reason: str("reason is a unique, one-word, CamelCase reason for the condition's last transition."),
    status: requiredStr('status is the status of the condition. Can be True, False, Unknown.'),
    type: requiredStr('type is the type of the condition. Types include Established, NamesAccepted and Terminating.'),
  },
  ['type', 'status'],
  { protobuf: { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 } },
);

export const specSchema: Schema = obj(
  'CustomResourceDefinitionSpec describes how a user wants their resource to appear',
  {
    conversion: {
      ...conversionSchema,
      description: 'conversion defines conversion settings for the CRD.',
      // Kubernetes' SetDefaults_CustomResourceDefinitionSpec: no conversion means strategy None.
      default: { strategy: 'None' },
    },
    group: requiredStr(
      'group is the API group of the defined custom resource. The custom resources are served under `/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).',
    ),
    names: struct(namesSchema, 'names specify the resource and kind names for the custom resource.'),
    preserveUnknownFields: bool(
      'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage. apiVersion, kind, metadata and known fields inside metadata are always preserved. This field is deprecated in favor of setting `x-preserve-unknown-fields` to true in `spec.versions[*].schema.openAPIV3Schema`. See https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#field-pruning for details.',
    ),
    scope: requiredStr('scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.'),
    versions: atomicList(
      { ...versionSchema, default: {} },
      'versions is the list of all API versions of the defined custom resource. Version names are used to compute the order in which served versions are listed in API discovery. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then optionally the string "alpha" or "beta" and another number (the minor version). These are sorted first by GA > beta > alpha (where GA is a version with no suffix such as beta or alpha), and then by comparing major version, then minor version. An example sorted list of versions: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.',
    ),
  },
  ['group', 'names', 'scope', 'versions'],
  { protobuf: { group: 1, names: 3, scope: 4, versions: 7, conversion: { tag: 9, pointer: true }, preserveUnknownFields: 10 } },
);

export const statusSchema: Schema = obj(
  'CustomResourceDefinitionStatus indicates the state of the CustomResourceDefinition',
  {
    acceptedNames: { ...namesSchema, description: 'acceptedNames are the names that are actually being used to serve discovery. They may be different than the names in spec.' },
    conditions: keyedList(conditionSchema, 'conditions indicate state for particular aspects of a CustomResourceDefinition', ['type']),
    storedVersions: stringList(
      'storedVersions lists all versions of CustomResources that were ever persisted. Tracking these versions allows a migration path for stored versions in etcd. The field is mutable so a migration controller can finish a migration to another version (ensuring no old objects are left in storage), and then remove the rest of the versions from this list. Versions may not be removed from `spec.versions` while they exist in this list.',
    ),
  },
  undefined,
  { protobuf: { conditions: 1, acceptedNames: 2, storedVersions: 3 } },
);

export const crdSchema: Schema = kindSchema(
  'CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.',
  {
    spec: struct(specSchema, 'spec describes how the user wants the resources to appear'),
    status: { ...statusSchema, description: 'status indicates the actual state of the CustomResourceDefinition' },
  },
  ['spec'],
);
