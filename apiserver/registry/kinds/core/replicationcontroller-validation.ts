/**
 * ReplicationController validation: Kubernetes v1.32's ValidateReplicationControllerSpec (every write of
 * the main resource; nothing in the spec is immutable) and ValidateReplicationControllerStatus (the
 * status sub-resource), with their field paths and messages, plus document 2's condition rule (`type`
 * required, `status` True, False or Unknown; v1.32 does not check it, docs/differences.md).
 *
 * The template is validated as a PodTemplate's (pod/validate-pod-template-spec.ts), then restricted:
 * restartPolicy Always only, no activeDeadlineSeconds, and with more than one replica every GCE
 * persistent disk read-only (ValidateReadOnlyPersistentDisks).
 */
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, forbidden, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { nonNegative, validateConditions } from '../apps/workload-validation.js';
import { arrayAt, isObject, numberAt, objectAt, objectItems, stringAt, type JsonObject } from './pod/json-values.js';
import { validatePodTemplateSpec } from './pod/validate-pod-template-spec.js';

const SPEC = FieldPath.root('spec');
const STATUS = FieldPath.root('status');

const specOf = (obj: KubeObject): JsonObject => (isObject(obj.spec) ? obj.spec : {});

/** Whether every pair of `selector` is among `labels` (labels.SelectorFromSet(...).Matches). */
const selects = (selector: JsonObject, labels: JsonObject): boolean => Object.entries(selector).every(([k, v]) => labels[k] === v);

function validateReadOnlyDisks(spec: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, v] of objectItems(arrayAt(spec, 'volumes'))) {
    const disk = objectAt(v, 'gcePersistentDisk');
    if (disk !== undefined && disk.readOnly !== true) {
      errs.push(
        invalidValue(path.index(i).child('gcePersistentDisk').child('readOnly'), false, 'must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only'),
      );
    }
  }
  return errs;
}

function validateTemplate(spec: JsonObject, selector: JsonObject, replicas: number): FieldError[] {
  const at = SPEC.child('template');
  const template = objectAt(spec, 'template');
  if (template === undefined) return [required(at, '')];
  const errs: FieldError[] = [];
  const labels = objectAt(objectAt(template, 'metadata') ?? {}, 'labels') ?? {};
  if (Object.keys(selector).length > 0 && !selects(selector, labels)) {
    errs.push(invalidValue(at.child('metadata').child('labels'), labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(template, at));
  const podSpec = objectAt(template, 'spec') ?? {};
  if (replicas > 1) errs.push(...validateReadOnlyDisks(podSpec, at.child('spec').child('volumes')));
  const restartPolicy = stringAt(podSpec, 'restartPolicy');
  if (restartPolicy !== 'Always') errs.push(notSupported(at.child('spec').child('restartPolicy'), restartPolicy, ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(at.child('spec').child('activeDeadlineSeconds'), 'activeDeadlineSeconds in ReplicationController is not Supported'));
  }
  return errs;
}

/** ValidateReplicationControllerSpec: create and every update of the main resource. */
export function validateReplicationController(rc: KubeObject): FieldError[] {
  const spec = specOf(rc);
  const errs: FieldError[] = [];
  errs.push(...nonNegative(numberAt(spec, 'minReadySeconds') ?? 0, SPEC.child('minReadySeconds')));
  const selector = objectAt(spec, 'selector') ?? {};
  if (Object.keys(selector).length === 0) errs.push(required(SPEC.child('selector'), ''));
  const replicas = numberAt(spec, 'replicas') ?? 0;
  errs.push(...nonNegative(replicas, SPEC.child('replicas')));
  errs.push(...validateTemplate(spec, selector, replicas));
  return errs;
}

/** ValidateReplicationControllerStatus (the status sub-resource), with document 2's condition rules. */
export function validateReplicationControllerStatus(rc: KubeObject): FieldError[] {
  const status = isObject(rc.status) ? rc.status : {};
  const n = (key: string): number => numberAt(status, key) ?? 0;
  const errs: FieldError[] = [];
  for (const key of ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']) {
    errs.push(...nonNegative(n(key), STATUS.child(key)));
  }
  for (const key of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) {
    if (n(key) > n('replicas')) errs.push(invalidValue(STATUS.child(key), n(key), 'cannot be greater than status.replicas'));
  }
  if (n('availableReplicas') > n('readyReplicas')) {
    errs.push(invalidValue(STATUS.child('availableReplicas'), n('availableReplicas'), 'cannot be greater than readyReplicas'));
  }
  errs.push(...validateConditions(status, STATUS.child('conditions')));
  return errs;
}
