/**
 * ControllerRevision (`apps/v1`): an immutable snapshot of a controller's state (the StatefulSet controller
 * stores its pod template there, apiserver/controllers/statefulset/). Namespaced, no short name, no status.
 * As Kubernetes v1.32's controllerRevisionStrategy and ValidateControllerRevisionCreate/Update:
 * - the name is a DNS subdomain;
 * - `data` (a RawExtension: any JSON object, kept as written) is required ("data is mandatory") and
 *   immutable ("field is immutable");
 * - `revision` (int64) is required by the schema and must not be negative; it may change (the controller
 *   moves an old revision to the front on a rollback).
 * Table columns as kube-apiserver prints them: NAME, CONTROLLER (`<kind>.<group>/<name>` of the controller
 * reference, `<none>` without one), REVISION, AGE. Delete answers a Status.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { Schema } from '../../../schema/schema.js';
import { FieldPath, invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import { jsonEqual } from '../../patch/json-value.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { int64 } from '../shared/schema-builders.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

/** runtime.RawExtension: an object of any form, published as a plain object, {raw = 1} in protobuf. */
const rawExtensionSchema: Schema = {
  type: 'object',
  description: 'Data is the serialized representation of the state.',
  'x-kubernetes-preserve-unknown-fields': true,
};

const schema = kindSchema(
  'ControllerRevision implements an immutable snapshot of state data. Clients are responsible for serializing and deserializing the objects that contain their internal state. Once a ControllerRevision has been successfully created, it can not be updated. The API Server will fail validation of all requests that attempt to mutate the Data field. ControllerRevisions may, however, be deleted. Note that, due to its use by both the DaemonSet and StatefulSet controllers for update and rollback, this object is beta. However, it may be subject to name and representation changes in future releases, and clients should not depend on its stability. It is primarily for internal use by controllers.',
  {
    data: rawExtensionSchema,
    revision: int64('Revision indicates the revision of the state represented by Data.', { default: 0 }),
  },
  ['revision'],
  { data: 2, revision: 3 },
);

/** `<kind>.<group>/<name>` of the controller reference (kubectl's formatResourceName), else `<none>`. */
function controllerCell(obj: KubeObject): string {
  const ref = obj.metadata.ownerReferences?.find((r) => r.controller === true);
  if (ref === undefined) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  const kind = group === '' ? ref.kind : `${ref.kind}.${group}`;
  return kind === '' ? ref.name : `${kind.toLowerCase()}/${ref.name}`;
}

const DATA = FieldPath.root('data');
const REVISION = FieldPath.root('revision');

/** ValidateControllerRevisionCreate (the object meta rules are the registry's). */
export function validateControllerRevision(cr: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (cr.data === undefined || cr.data === null) errs.push(required(DATA, 'data is mandatory'));
  const revision = typeof cr.revision === 'number' ? cr.revision : 0;
  if (revision < 0) errs.push(invalidValue(REVISION, revision, 'must be greater than or equal to 0'));
  return errs;
}

/** ValidateControllerRevisionUpdate beyond the create rules: `data` never changes. */
export function validateControllerRevisionUpdate(cr: KubeObject, old: KubeObject): FieldError[] {
  return jsonEqual(cr.data ?? null, old.data ?? null) ? [] : [invalidValue(DATA, cr.data ?? null, 'field is immutable')];
}

export const controllerRevisions = Object.freeze({
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  resource: 'controllerrevisions',
  singular: 'controllerrevision',
  namespaced: true,
  schema,
  table: table(
    [
      nameColumn,
      column('Controller', 'string', 'Controller of the object'),
      column('Revision', 'string', 'Revision indicates the revision of the state represented by Data.'),
      ageColumn,
    ],
    (obj, now) => [nameCell(obj), controllerCell(obj), typeof obj.revision === 'number' ? obj.revision : 0, ageCell(obj, now)],
  ),
  validate: (cr: KubeObject): FieldError[] => validateControllerRevision(cr),
  validateUpdate: (cr: KubeObject, old: KubeObject): FieldError[] => validateControllerRevisionUpdate(cr, old),
} satisfies KindStrategy);
