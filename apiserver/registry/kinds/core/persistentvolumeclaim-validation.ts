/**
 * PersistentVolumeClaim validation: Kubernetes v1.32's ValidatePersistentVolumeClaimSpec,
 * ValidatePersistentVolumeClaimUpdate and ValidatePersistentVolumeClaimStatusUpdate (pkg/apis/core/
 * validation) for what the server can check, with their field paths and messages:
 *
 * - spec: at least one access mode, each one of the supported four, ReadWriteOncePod alone;
 *   `resources.requests.storage` required and greater than zero; a DNS subdomain `storageClassName`;
 *   `volumeMode` Block or Filesystem; the selector's form; `dataSource`/`dataSourceRef` name and kind, a
 *   core-group source only a PersistentVolumeClaim, and `dataSource` matching `dataSourceRef` when both are set;
 * - update: the spec is immutable except `volumeName` while it is empty (set once), `storageClassName`
 *   set once from nil (or from the beta annotation), and `resources.requests.storage` of a Bound claim,
 *   which may grow, or shrink only above `status.capacity` (RecoverVolumeExpansionFailure, beta in v1.32);
 *   `volumeMode` is immutable (reported at `volumeMode`, as v1.32 does);
 * - status: quantities of `capacity` and `allocatedResources` not negative.
 *
 * The immutable-spec message is v1.32's first line without the Go diff it appends (docs/differences.md).
 */
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, forbidden, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { validateLabelSelector } from '../../../validation/label-selector.js';
import { isDNS1123Subdomain } from '../../../validation/names.js';
import { jsonClone, jsonEqual } from '../../patch/json-value.js';
import { compareQuantity, isNegative, parseQuantity, QUANTITY_FORMAT_ERROR, type Quantity } from '../shared/quantity.js';
import { arrayAt, isObject, objectAt, stringAt, type JsonObject } from './pod/json-values.js';

/** sets.List order (sorted), as the NotSupported messages list them. */
export const SUPPORTED_ACCESS_MODES = Object.freeze(['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']);
export const SUPPORTED_VOLUME_MODES = Object.freeze(['Block', 'Filesystem']);
/** The beta storage class annotation (a `kubernetes.io` name Kubernetes never renamed). */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
export const IMMUTABLE_SPEC_MESSAGE = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

const SPEC = FieldPath.root('spec');
const specOf = (obj: KubeObject): JsonObject => (isObject(obj.spec) ? obj.spec : {});
const statusOf = (obj: KubeObject): JsonObject => (isObject(obj.status) ? obj.status : {});
const storageRequest = (spec: JsonObject): unknown => objectAt(objectAt(spec, 'resources') ?? {}, 'requests')?.storage;

function validateDataSource(source: JsonObject, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (stringAt(source, 'name') === '') errs.push(required(at.child('name'), ''));
  const kind = stringAt(source, 'kind');
  if (kind === '') errs.push(required(at.child('kind'), ''));
  const group = stringAt(source, 'apiGroup');
  if (group === '' && kind !== 'PersistentVolumeClaim') {
    errs.push(invalidValue(at, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  return errs;
}

/** ValidatePersistentVolumeClaimSpec at `at` (also the claim templates of a StatefulSet could use it). */
export function validatePersistentVolumeClaimSpec(spec: JsonObject, at: FieldPath = SPEC): FieldError[] {
  const errs: FieldError[] = [];
  const modes = arrayAt(spec, 'accessModes');
  if (modes.length === 0) errs.push(required(at.child('accessModes'), 'at least 1 access mode is required'));
  if (spec.selector !== undefined && spec.selector !== null) errs.push(...validateLabelSelector(spec.selector, at.child('selector')));
  let rwop = false;
  let other = false;
  for (const mode of modes) {
    const m = typeof mode === 'string' ? mode : String(mode);
    if (!SUPPORTED_ACCESS_MODES.includes(m)) errs.push(notSupported(at.child('accessModes'), m, SUPPORTED_ACCESS_MODES));
    else if (m === 'ReadWriteOncePod') rwop = true;
    else other = true;
  }
  if (rwop && other) errs.push(forbidden(at.child('accessModes'), 'may not use ReadWriteOncePod with other access modes'));

  const storageAt = at.child('resources').key('storage');
  const storage = storageRequest(spec);
  if (storage === undefined || storage === null) errs.push(required(storageAt, ''));
  else {
    const q = parseQuantity(storage);
    if (q === undefined) errs.push(invalidValue(storageAt, storage, QUANTITY_FORMAT_ERROR));
    else if (isNegative(q) || q.mantissa === 0n) errs.push(invalidValue(storageAt, storage, 'must be greater than zero'));
  }

  const className = spec.storageClassName;
  if (typeof className === 'string' && className !== '') {
    for (const msg of isDNS1123Subdomain(className)) errs.push(invalidValue(at.child('storageClassName'), className, msg));
  }
  if (typeof spec.volumeMode === 'string' && !SUPPORTED_VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(notSupported(at.child('volumeMode'), spec.volumeMode, SUPPORTED_VOLUME_MODES));
  }
  const dataSource = objectAt(spec, 'dataSource');
  const dataSourceRef = objectAt(spec, 'dataSourceRef');
  if (dataSource !== undefined) errs.push(...validateDataSource(dataSource, at.child('dataSource')));
  if (dataSourceRef !== undefined) errs.push(...validateDataSource(dataSourceRef, at.child('dataSourceRef')));
  if (dataSource !== undefined && dataSourceRef !== undefined && stringAt(dataSourceRef, 'namespace') === '') {
    const same = stringAt(dataSource, 'apiGroup') === stringAt(dataSourceRef, 'apiGroup') &&
      stringAt(dataSource, 'kind') === stringAt(dataSourceRef, 'kind') && stringAt(dataSource, 'name') === stringAt(dataSourceRef, 'name');
    if (!same) errs.push(invalidValue(at.child('dataSource'), dataSource, 'must match dataSourceRef'));
  }
  return errs;
}

/** ValidatePersistentVolumeClaim: the spec (the object meta rules are the registry's). */
export function validatePersistentVolumeClaim(pvc: KubeObject): FieldError[] {
  return validatePersistentVolumeClaimSpec(specOf(pvc));
}

const quantityOf = (v: unknown): Quantity | undefined => (v === undefined || v === null ? undefined : parseQuantity(v));

/** ValidatePersistentVolumeClaimUpdate beyond the rules of every write. */
export function validatePersistentVolumeClaimUpdate(pvc: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const newSpec = jsonClone(specOf(pvc));
  const oldSpec = jsonClone(specOf(old));
  // volumeName may be set once (the binder does it).
  if (stringAt(oldSpec, 'volumeName') === '') {
    if (newSpec.volumeName === undefined) delete oldSpec.volumeName;
    else oldSpec.volumeName = newSpec.volumeName;
  }
  // storageClassName may be set once: from nil, or to the class the beta annotation already names.
  const oldAnnotation = old.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  const newAnnotation = pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION];
  const oldClass = oldSpec.storageClassName;
  const newClass = newSpec.storageClassName;
  if ((oldClass === undefined || oldClass === null) && typeof newClass === 'string') {
    const fromAnnotation = oldAnnotation !== undefined && newAnnotation === oldAnnotation && newClass === oldAnnotation;
    const fromNil = oldAnnotation === undefined && (newAnnotation === undefined || newAnnotation === newClass);
    if (fromAnnotation || fromNil) oldSpec.storageClassName = newClass;
  }
  // A bound claim's storage request may change (expansion).
  const newRequests = objectAt(objectAt(newSpec, 'resources') ?? {}, 'requests');
  // The status is the stored one on this path (the main resource never writes it).
  if (stringAt(statusOf(old), 'phase') === 'Bound' && newRequests !== undefined) {
    const oldStorage = storageRequest(oldSpec);
    if (oldStorage === undefined) delete newRequests.storage;
    else newRequests.storage = oldStorage;
  }
  if (!jsonEqual(newSpec, oldSpec)) errs.push(forbidden(SPEC, IMMUTABLE_SPEC_MESSAGE));

  const oldSize = quantityOf(storageRequest(specOf(old)));
  const newSize = quantityOf(storageRequest(specOf(pvc)));
  if (oldSize !== undefined && newSize !== undefined && compareQuantity(newSize, oldSize) < 0) {
    const capacity = quantityOf(objectAt(statusOf(old), 'capacity')?.storage) ?? parseQuantity('0')!;
    if (compareQuantity(newSize, capacity) <= 0) {
      errs.push(forbidden(SPEC.child('resources').child('requests').child('storage'), 'field can not be less than status.capacity'));
    }
  }
  if (!jsonEqual(specOf(pvc).volumeMode ?? null, specOf(old).volumeMode ?? null)) {
    errs.push(invalidValue(FieldPath.root('volumeMode'), specOf(pvc).volumeMode ?? null, 'field is immutable'));
  }
  return errs;
}

/** ValidatePersistentVolumeClaimStatusUpdate: quantities of the status not negative. */
export function validatePersistentVolumeClaimStatusUpdate(pvc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const status = statusOf(pvc);
  for (const member of ['capacity', 'allocatedResources']) {
    for (const [name, value] of Object.entries(objectAt(status, member) ?? {})) {
      const at = FieldPath.root('status').child(member).key(name);
      const q = parseQuantity(value);
      if (q === undefined) errs.push(invalidValue(at, value, QUANTITY_FORMAT_ERROR));
      else if (isNegative(q)) errs.push(invalidValue(at, value, 'must be a valid resource quantity'));
    }
  }
  return errs;
}
