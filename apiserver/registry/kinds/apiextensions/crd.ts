/**
 * CustomResourceDefinition (`apiextensions.<domain>/v1`, `apiextensions.k8s.io/v1` in k8s.io mode):
 * cluster-scoped, short names `crd`/`crds`, category `api-extensions`, a status sub-resource, and
 * Kubernetes' default table (NAME, CREATED AT), as kube-apiserver serves it.
 *
 * Hooks, as Kubernetes' CRD strategy:
 * - defaults (SetDefaults_CustomResourceDefinitionSpec): `names.singular` = lower-case kind,
 *   `names.listKind` = kind + `List`; the schema defaults `conversion` to strategy None and a webhook
 *   service's port to 443;
 * - create resets `status` and records the storage version in `status.storedVersions`; an update keeps
 *   the stored status (the registry does) and appends a new storage version to `storedVersions`;
 *   `metadata.generation` follows spec changes;
 * - validation (crd-validation.ts): the whole definition on create; on update the same plus the immutable
 *   fields, lenient toward what is already stored. The `status` sub-resource validates `acceptedNames`.
 *
 * - deletion, as Kubernetes' CRD storage: the first delete only marks the definition (deletionTimestamp),
 *   adds the `customresourcecleanup.apiextensions.<domain>` finalizer and sets Terminating
 *   (InstanceDeletionPending); the CRD finalizer controller (apiextensions/serving/) deletes the instances
 *   and removes the finalizer, which removes the definition.
 *
 * What the definition serves is built by `customResourceKinds` and served by apiextensions/serving/.
 */
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, type FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { defaultTable } from '../shared/table.js';
import { crdSchema } from './crd-schema.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, validateNames } from './crd-validation.js';
import { isObject, objectAt, stringAt, type Json } from './json-schema-node.js';
import { cleanupFinalizer, setCondition } from './crd-conditions.js';
import { removeUnknownSchemaMembers } from './schema-members.js';
import type { Naming } from '../../../naming/naming.js';

const prefixOf = (ctx: StrategyContext): string => ctx.naming.extension('');

/** Kubernetes' defaults of `spec.names` that depend on `kind`. */
function defaultNames(obj: KubeObject): void {
  const spec = isObject(obj.spec) ? obj.spec : undefined;
  const names = spec === undefined ? undefined : objectAt(spec, 'names');
  if (names === undefined) return;
  const kind = stringAt(names, 'kind');
  if (stringAt(names, 'singular') === '') names.singular = kind.toLowerCase();
  if (stringAt(names, 'listKind') === '' && kind !== '') names.listKind = `${kind}List`;
}

/** Appends the storage version to `status.storedVersions` when it is not there yet. */
function recordStorageVersion(obj: KubeObject): void {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const status: Json = isObject(obj.status) ? obj.status : (obj.status = {});
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as unknown[]) : [];
  for (const v of Array.isArray(spec.versions) ? spec.versions : []) {
    if (isObject(v) && v.storage === true && !stored.includes(v.name)) stored.push(v.name);
  }
  if (stored.length > 0) status.storedVersions = stored;
}

export const customResourceDefinitions = Object.freeze({
  groupPrefix: 'apiextensions',
  group: '',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  resource: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: Object.freeze(['crd', 'crds']),
  categories: Object.freeze(['api-extensions']),
  subresources: Object.freeze(['status'] as const),
  schema: crdSchema,
  tracksGeneration: true,
  table: defaultTable,
  prepareForCreate(obj: KubeObject): void {
    defaultNames(obj);
    obj.status = {};
    recordStorageVersion(obj);
  },
  prepareForUpdate(obj: KubeObject): void {
    defaultNames(obj);
    recordStorageVersion(obj);
  },
  // On update the full validation runs in validateUpdate, which needs the stored definition.
  validate: (obj: KubeObject, ctx: StrategyContext): FieldError[] => (ctx.operation === 'create' ? validateCustomResourceDefinition(obj, prefixOf(ctx)) : []),
  validateUpdate: (obj: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[] => validateCustomResourceDefinitionUpdate(obj, old, prefixOf(ctx)),
  unknownFields: (obj: Record<string, unknown>, naming: Naming): string[] => removeUnknownSchemaMembers(obj, naming.extension('')),
  markForDeletion(obj: KubeObject, naming: Naming): boolean {
    const finalizer = cleanupFinalizer(naming);
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) obj.metadata.finalizers = [...finalizers, finalizer];
    setCondition(obj, {
      type: 'Terminating',
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    return true;
  },
  validateStatusUpdate: (obj: KubeObject): FieldError[] =>
    validateNames(objectAt(isObject(obj.status) ? obj.status : {}, 'acceptedNames') ?? {}, FieldPath.root('status').child('acceptedNames')),
} satisfies KindStrategy);
