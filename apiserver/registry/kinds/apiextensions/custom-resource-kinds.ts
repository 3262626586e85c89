/**
 * The kinds a CustomResourceDefinition serves: one KindStrategy per served version, built from the
 * definition alone (a pure function; the definition is assumed accepted, i.e. valid). What Kubernetes'
 * custom resource strategy does, expressed as the generic registry's data and hooks:
 *
 * - identity: `spec.group` taken literally (custom groups are never under the group domain), the version's
 *   name, `spec.names` (kind, plural as the resource, singular defaulting to the lower-case kind, shortNames,
 *   categories), namespaced from `spec.scope`;
 * - schema: the version's `schema.openAPIV3Schema` in the engine's form (engine-schema.ts, extensions renamed
 *   from the naming's prefix), as the resource root: `apiVersion`, `kind` and `metadata` (the full
 *   ObjectMeta, so metadata is validated, pruned and defaulted as for every kind; the definition's own
 *   `metadata.name`/`generateName` constraints are kept on top). A version without a schema preserves
 *   unknown fields;
 * - strategic merge patch is refused (415), as Kubernetes does for custom resources;
 * - the `status` sub-resource when the version declares it: create drops `status`, main writes keep the
 *   stored status and status writes keep everything but `status` (the registry's defaults for kinds with
 *   status). Kubernetes' custom resources always carry `metadata.generation` (1 on create): with a status
 *   sub-resource only changes outside metadata and status bump it; without one a status change bumps it
 *   too, as upstream compares everything but metadata;
 * - the Table from `additionalPrinterColumns` (custom-resource-table.ts, Age when none);
 * - `selectableFields` as field selector labels (the path without its leading dot), the value printed as
 *   Kubernetes does (strings as they are, booleans and integers in text, "" when absent);
 * - the `scale` sub-resource from the version's `subresources.scale` paths (registry/scale-subresource.ts),
 *   with Kubernetes' checks of those paths on every write (spec replicas on create and update, status
 *   replicas and the selector string on status writes too); like `status` it limits generation bumps;
 * - a deprecated version's `Warning` (its `deprecationWarning`, else Kubernetes' default text naming the
 *   newest served non-deprecated version above it).
 *
 * Versions and storage (`versionedStorage`, apiextensions/conversion/custom-resource-storage.ts): objects are
 * written in the storage version and read in the served one, converted by the definition's strategy (`None`,
 * or its conversion webhook; see `CustomResourceKindsOptions`), pruned and defaulted on every read from
 * storage as Kubernetes' storage codec does.
 *
 * The registries serving these kinds must be created with `validationStyle: 'crd'` (Kubernetes' messages
 * for custom resources and the ratcheting of unchanged invalid values on update); see `CUSTOM_RESOURCE_VALIDATION_STYLE`.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { objectMetaSchema } from '../../../schema/object-meta-schema.js';
import type { Schema } from '../../../schema/schema.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { jsonEqual } from '../../patch/json-value.js';
import { customResourceTable } from './custom-resource-table.js';
import { engineSchemaOf } from './engine-schema.js';
import { isObject, objectAt, stringAt, type Json } from './json-schema-node.js';
import { evaluateJsonPath, parseSimpleJsonPath } from './simple-json-path.js';
import { converterFor, type CustomResourceConversion } from '../../../apiextensions/conversion/converter-for.js';
import { ConversionError } from '../../../apiextensions/conversion/conversion-error.js';
import type { CrConverter } from '../../../apiextensions/conversion/custom-resource-converter.js';
import { customResourceStorage, type CustomResourceStorageConfig } from '../../../apiextensions/conversion/custom-resource-storage.js';
import type { WebhookConverterOptions } from '../../../apiextensions/conversion/webhook-converter.js';
import { customResourceScale, validateScaleSpec, validateScaleStatus, type ScaleSubresource } from '../../scale-subresource.js';
import { compareVersionPriority } from '../../../endpoints/discovery/version-priority.js';

/** The `validationStyle` of the generic registries serving custom resources. */
export const CUSTOM_RESOURCE_VALIDATION_STYLE = 'crd' as const;

const PRESERVE_UNKNOWN: Json = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** One frozen KindStrategy per served version of `crd`, in the definition's version order. */
export function customResourceKinds(crd: KubeObject, naming: Naming, options: CustomResourceKindsOptions = {}): KindStrategy[] {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = objectAt(spec, 'names') ?? {};
  const kind = stringAt(names, 'kind');
  const singular = stringAt(names, 'singular') || kind.toLowerCase();
  const shortNames = stringList(names.shortNames);
  const categories = stringList(names.categories);
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const prefix = naming.extension('');
  const storage = storageConfig(crd, spec, kind, versions, prefix, options);
  return versions
    .filter((v) => v.served === true)
    .map((v) => {
      const subresources = objectAt(v, 'subresources') ?? {};
      const hasStatus = isObject(subresources.status);
      const hasScale = isObject(subresources.scale);
      const scale = hasScale ? scaleOf(subresources.scale as Json) : undefined;
      const deprecationWarning = v.deprecated === true ? deprecationWarningOf(v, spec, versions, kind) : undefined;
      const schema = storage.schemas.get(stringAt(v, 'name'))!;
      const strategy: KindStrategy = {
        group: stringAt(spec, 'group'),
        version: stringAt(v, 'name'),
        kind,
        resource: stringAt(names, 'plural'),
        singular,
        namespaced: stringAt(spec, 'scope') === 'Namespaced',
        ...(shortNames.length > 0 ? { shortNames } : {}),
        ...(categories.length > 0 ? { categories } : {}),
        ...(hasStatus ? { subresources: ['status'] as const } : {}),
        ...(scale === undefined ? {} : { scale, ...scaleValidation(scale) }),
        ...(deprecationWarning === undefined ? {} : { deprecationWarning }),
        schema,
        versionedStorage: customResourceStorage(storage, stringAt(v, 'name')),
        strategicMergePatch: false,
        tracksGeneration: true,
        table: customResourceTable(v.additionalPrinterColumns),
        selectableFields: selectableFields(v.selectableFields),
        prepareForCreate(obj) {
          // No status is stored; its schema default (Gateway API's "Waiting for controller") appears on every
          // read from storage, the create's answer included (versionedStorage defaults on read).
          if (hasStatus) delete obj.status;
        },
        ...(hasStatus || hasScale
          ? {}
          : {
              prepareForUpdate(obj: KubeObject, old: KubeObject) {
                // The registry bumps for changes outside metadata and status; upstream counts status too here.
                if (!jsonEqual(obj.status, old.status)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
              },
            }),
      };
      return deepFreeze(strategy);
    });
}

/** The scale sub-resource of `subresources.scale` (an accepted definition: the two replicas paths are set). */
function scaleOf(scale: Json): ScaleSubresource {
  const labelSelectorPath = stringAt(scale, 'labelSelectorPath');
  return customResourceScale({
    specReplicasPath: stringAt(scale, 'specReplicasPath'),
    statusReplicasPath: stringAt(scale, 'statusReplicasPath'),
    ...(labelSelectorPath === '' ? {} : { labelSelectorPath }),
  });
}

/** Kubernetes' checks of the scale paths: spec and status on main writes, status on status writes. */
function scaleValidation(scale: ScaleSubresource): Pick<KindStrategy, 'validate' | 'validateStatusUpdate'> {
  return {
    validate: (obj) => [...validateScaleSpec(obj, scale), ...validateScaleStatus(obj, scale)],
    validateStatusUpdate: (obj) => validateScaleStatus(obj, scale),
  };
}

/**
 * A deprecated version's warning: its `deprecationWarning`, else `<group>/<version> <Kind> is deprecated`,
 * followed by `; use <group>/<other> <Kind>` naming the highest-priority served, non-deprecated version
 * that ranks above it (Kubernetes' version priority), when there is one.
 */
function deprecationWarningOf(v: Json, spec: Json, versions: readonly Json[], kind: string): string {
  if (typeof v.deprecationWarning === 'string') return v.deprecationWarning;
  const group = stringAt(spec, 'group');
  const name = stringAt(v, 'name');
  const newer = versions
    .filter((o) => o.served === true && o.deprecated !== true && compareVersionPriority(stringAt(o, 'name'), name) < 0)
    .map((o) => stringAt(o, 'name'))
    .sort(compareVersionPriority);
  const msg = `${group}/${name} ${kind} is deprecated`;
  return newer.length === 0 ? msg : `${msg}; use ${group}/${newer[0]!} ${kind}`;
}

/** What `customResourceKinds` takes beyond the definition and the naming. */
export interface CustomResourceKindsOptions {
  /**
   * How a `Webhook` conversion calls its server: `resolveService` maps a `service` reference to the address
   * dialled (default: the reference's own name `<name>.<namespace>.svc`, port and path, through DNS: no
   * Services are served yet, see docs/differences.md), `timeoutMs` (30 s), `reviewGroup`
   * (`apiextensions.k8s.io`). The converter is made from the definition at each call, so kinds rebuilt from
   * a changed definition use its new `caBundle`, URL or service at once.
   */
  readonly webhook?: WebhookConverterOptions;
}

/**
 * The storage boundary shared by the definition's versions: the schema of EVERY version (objects may be
 * stored in one that is no longer served), the storage version and the conversion strategy. A strategy
 * the definition cannot have (refused by its validation) fails every conversion, never the build.
 */
function storageConfig(crd: KubeObject, spec: Json, kind: string, versions: readonly Json[], prefix: string, options: CustomResourceKindsOptions): CustomResourceStorageConfig {
  const schemas = new Map<string, Schema>();
  for (const v of versions) {
    const openAPIV3Schema = objectAt(objectAt(v, 'schema') ?? {}, 'openAPIV3Schema') ?? PRESERVE_UNKNOWN;
    schemas.set(stringAt(v, 'name'), resourceSchema(openAPIV3Schema, prefix));
  }
  const storageVersion = stringAt(versions.find((v) => v.storage === true) ?? versions[0] ?? {}, 'name');
  let converter: CrConverter;
  try {
    converter = converterFor(crd.metadata?.name ?? '', spec.conversion as CustomResourceConversion | undefined, options.webhook);
  } catch (err) {
    if (!(err instanceof ConversionError)) throw err;
    converter = { convert: () => Promise.reject(err) };
  }
  return { group: stringAt(spec, 'group'), kind, schemas, storageVersion, preserveUnknownFields: spec.preserveUnknownFields === true, converter };
}

/** The version's schema as a resource root (see the file comment). Never shares nodes with `crd`. */
function resourceSchema(openAPIV3Schema: Json, prefix: string): Schema {
  const root = engineSchemaOf(structuredClone(openAPIV3Schema), prefix) as Json;
  const own = isObject(root.properties) ? root.properties : {};
  const ownMeta = objectAt(own, 'metadata');
  const metaProps = { ...(objectMetaSchema.properties as Json) };
  for (const field of ['name', 'generateName']) {
    const constraint = ownMeta === undefined ? undefined : objectAt(objectAt(ownMeta, 'properties') ?? {}, field);
    if (constraint !== undefined) metaProps[field] = { ...(metaProps[field] as Json), ...constraint, type: 'string' };
  }
  const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = own;
  return {
    ...root,
    type: 'object',
    properties: {
      apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'The REST resource this object represents, in CamelCase.' },
      metadata: { ...objectMetaSchema, properties: metaProps } as Schema,
      ...(rest as Record<string, Schema>),
    },
  } as Schema;
}

/** `selectableFields` as field labels: `.spec.color` -> `spec.color`, read from the object at each call. */
function selectableFields(fields: unknown): Readonly<Record<string, (obj: KubeObject) => string>> {
  const out: Record<string, (obj: KubeObject) => string> = {};
  if (!Array.isArray(fields)) return out;
  for (const f of fields) {
    const jsonPath = isObject(f) ? stringAt(f, 'jsonPath') : '';
    const steps = parseSimpleJsonPath(jsonPath);
    if (jsonPath === '' || steps === undefined) continue;
    out[jsonPath.replace(/^\./, '')] = (obj) => {
      const v = evaluateJsonPath(steps, obj)[0];
      if (typeof v === 'string') return v;
      if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'bigint') return String(v);
      return '';
    };
  }
  return out;
}

const stringList = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
