/**
 * StatefulSet validation: Kubernetes v1.32's ValidateStatefulSet, ValidateStatefulSetUpdate and
 * ValidateStatefulSetStatusUpdate (pkg/apis/apps/validation) with their field paths and messages, plus
 * the rules document 2 states that v1.32 leaves to the controller (docs/differences.md):
 *
 * - `spec.serviceName` is required (v1.32: optional);
 * - the pod template is validated in full, as a PodTemplate's (v1.32 checks only its labels and
 *   annotations; later Kubernetes validates it in full), with the claim templates standing in for
 *   template volumes of the same name (claims win), so mounts may name claims;
 * - every claim template has a DNS label name, unique among the claims, mounted by a container (or init
 *   container) of the template;
 * - condition `type` is required and `status` is True, False or Unknown.
 *
 * What the schema reports already (a missing `spec.selector` or `spec.serviceName`, values of the wrong
 * type) is not repeated here.
 */
import type { KubeObject } from '../../../api/object.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../selectors/label-selector-object.js';
import type { LabelSelector } from '../../../selectors/selector.js';
import {
  duplicate,
  FieldPath,
  forbidden,
  invalidValue,
  notSupported,
  required,
  type FieldError,
} from '../../../validation/field-error.js';
import { isDNS1123Label } from '../../../validation/names.js';
import { jsonEqual } from '../../patch/json-value.js';
import { arrayAt, isObject, numberAt, objectAt, objectItems, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { validatePodTemplateSpec } from '../core/pod/validate-pod-template-spec.js';
import { validateLabelSelector } from '../../../validation/label-selector.js';
import { nonNegative, validateConditions, validateIntOrPercent } from './workload-validation.js';

const SPEC = FieldPath.root('spec');
const STATUS = FieldPath.root('status');
const POD_MANAGEMENT_POLICIES = ['OrderedReady', 'Parallel'];
const RETENTION_POLICIES = ['Retain', 'Delete'];

/** The fields a StatefulSet update may change; the rest of the spec is immutable. */
export const MUTABLE_SPEC_FIELDS = Object.freeze([
  'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds',
]);
export const IMMUTABLE_SPEC_MESSAGE =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

const specOf = (obj: KubeObject): JsonObject => (isObject(obj.spec) ? obj.spec : {});
const statusOf = (obj: KubeObject): JsonObject => (isObject(obj.status) ? obj.status : {});

function validateUpdateStrategy(spec: JsonObject): FieldError[] {
  const strategy = objectAt(spec, 'updateStrategy') ?? {};
  const at = SPEC.child('updateStrategy');
  const rollingUpdate = objectAt(strategy, 'rollingUpdate');
  switch (stringAt(strategy, 'type')) {
    case '':
      return [required(at, '')];
    case 'OnDelete':
      return rollingUpdate === undefined ? [] : [invalidValue(at.child('rollingUpdate'), rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'")];
    case 'RollingUpdate': {
      if (rollingUpdate === undefined) return [];
      const ru = at.child('rollingUpdate');
      const errs = nonNegative(numberAt(rollingUpdate, 'partition') ?? 0, ru.child('partition'));
      const maxUnavailable = rollingUpdate.maxUnavailable;
      if (maxUnavailable !== undefined && maxUnavailable !== null) errs.push(...validateIntOrPercent(maxUnavailable, ru.child('maxUnavailable'), true));
      return errs;
    }
    default:
      return [invalidValue(at, strategy, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

function validateRetentionPolicy(spec: JsonObject): FieldError[] {
  const policy = objectAt(spec, 'persistentVolumeClaimRetentionPolicy');
  if (policy === undefined) return [];
  const at = SPEC.child('persistentVolumeClaimRetentionPolicy');
  const errs: FieldError[] = [];
  for (const key of ['whenDeleted', 'whenScaled']) {
    const v = stringAt(policy, key);
    if (!RETENTION_POLICIES.includes(v)) errs.push(notSupported(at.child(key), v, RETENTION_POLICIES));
  }
  return errs;
}

/** The selector as a LabelSelector, the checks of its form, and whether converting it failed. */
function validateSelector(spec: JsonObject): { selector: LabelSelector | undefined; errs: FieldError[] } {
  const raw = spec.selector;
  const at = SPEC.child('selector');
  const errs: FieldError[] = [];
  if (isObject(raw)) {
    errs.push(...validateLabelSelector(raw, at));
    const count = Object.keys(objectAt(raw, 'matchLabels') ?? {}).length + arrayAt(raw, 'matchExpressions').length;
    if (count === 0) errs.push(invalidValue(at, raw, 'empty selector is invalid for statefulset'));
  }
  try {
    // A nil selector selects nothing: the template's labels then never match it, as upstream reports.
    return { selector: labelSelectorFromObject(isObject(raw) ? (raw as LabelSelectorObject) : undefined), errs };
  } catch {
    errs.push(invalidValue(at, raw ?? null, ''));
    return { selector: undefined, errs };
  }
}

/**
 * The template with each claim template standing in for the template volume of its name (or added after
 * them), as the controller builds its pods; claims whose names are not valid are left out (reported on
 * their own).
 */
function templateWithClaims(template: JsonObject, claimNames: readonly string[]): JsonObject {
  if (claimNames.length === 0) return template;
  const spec = objectAt(template, 'spec') ?? {};
  const volumes = [...arrayAt(spec, 'volumes')];
  for (const name of claimNames) {
    const claimVolume = { name, persistentVolumeClaim: { claimName: name } };
    const i = volumes.findIndex((v) => isObject(v) && v.name === name);
    if (i >= 0) volumes[i] = claimVolume;
    else volumes.push(claimVolume);
  }
  return { ...template, spec: { ...spec, volumes } };
}

/** The names the template's containers and init containers mount. */
function mountedNames(template: JsonObject): Set<string> {
  const spec = objectAt(template, 'spec') ?? {};
  const names = new Set<string>();
  for (const list of ['containers', 'initContainers']) {
    for (const [, c] of objectItems(arrayAt(spec, list))) {
      for (const [, m] of objectItems(arrayAt(c, 'volumeMounts'))) names.add(stringAt(m, 'name'));
      for (const [, d] of objectItems(arrayAt(c, 'volumeDevices'))) names.add(stringAt(d, 'name'));
    }
  }
  return names;
}

/** The claim templates' names, and the errors of the list (document 2's rules). */
function validateClaimTemplates(spec: JsonObject, template: JsonObject): { names: string[]; errs: FieldError[] } {
  const at = SPEC.child('volumeClaimTemplates');
  const mounted = mountedNames(template);
  const names: string[] = [];
  const errs: FieldError[] = [];
  for (const [i, claim] of objectItems(arrayAt(spec, 'volumeClaimTemplates'))) {
    const nameAt = at.index(i).child('metadata').child('name');
    const name = stringAt(objectAt(claim, 'metadata') ?? {}, 'name');
    if (name === '') {
      errs.push(required(nameAt, ''));
      continue;
    }
    const msgs = isDNS1123Label(name);
    if (msgs.length > 0) {
      for (const m of msgs) errs.push(invalidValue(nameAt, name, m));
      continue;
    }
    if (names.includes(name)) {
      errs.push(duplicate(nameAt, name));
      continue;
    }
    names.push(name);
    if (!mounted.has(name)) errs.push(invalidValue(nameAt, name, 'must match the name of a volumeMount of a container in the template'));
  }
  return { names, errs };
}

function validateTemplate(spec: JsonObject, selector: LabelSelector | undefined, claimNames: readonly string[]): FieldError[] {
  const template = objectAt(spec, 'template') ?? {};
  const at = SPEC.child('template');
  const errs: FieldError[] = [];
  if (selector !== undefined && !selector.empty) {
    const labels = objectAt(objectAt(template, 'metadata') ?? {}, 'labels') ?? {};
    if (!selector.matches(labels as Record<string, string>)) {
      errs.push(invalidValue(at.child('metadata').child('labels'), labels, '`selector` does not match template `labels`'));
    }
  }
  errs.push(...validatePodTemplateSpec(templateWithClaims(template, claimNames), at));
  const podSpec = objectAt(template, 'spec') ?? {};
  const restartPolicy = stringAt(podSpec, 'restartPolicy');
  if (restartPolicy !== 'Always') errs.push(notSupported(at.child('spec').child('restartPolicy'), restartPolicy, ['Always']));
  if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
    errs.push(forbidden(at.child('spec').child('activeDeadlineSeconds'), 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errs;
}

/** ValidateStatefulSetSpec (every write of the main resource). */
export function validateStatefulSet(sts: KubeObject): FieldError[] {
  const spec = specOf(sts);
  const errs: FieldError[] = [];
  const policy = stringAt(spec, 'podManagementPolicy');
  if (policy === '') errs.push(required(SPEC.child('podManagementPolicy'), ''));
  else if (!POD_MANAGEMENT_POLICIES.includes(policy)) {
    errs.push(invalidValue(SPEC.child('podManagementPolicy'), policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  errs.push(...validateUpdateStrategy(spec));
  errs.push(...validateRetentionPolicy(spec));
  errs.push(...nonNegative(numberAt(spec, 'replicas') ?? 0, SPEC.child('replicas')));
  errs.push(...nonNegative(numberAt(spec, 'minReadySeconds') ?? 0, SPEC.child('minReadySeconds')));
  const ordinals = objectAt(spec, 'ordinals');
  if (ordinals !== undefined) errs.push(...nonNegative(numberAt(ordinals, 'start') ?? 0, SPEC.child('ordinals.start')));
  if (spec.serviceName === '') errs.push(required(SPEC.child('serviceName'), ''));

  const { selector, errs: selectorErrs } = validateSelector(spec);
  errs.push(...selectorErrs);
  const template = objectAt(spec, 'template') ?? {};
  const claims = validateClaimTemplates(spec, template);
  errs.push(...validateTemplate(spec, selector, claims.names));
  errs.push(...claims.errs);
  return errs;
}

/** ValidateStatefulSetUpdate beyond the checks of every write: only the mutable fields may change. */
export function validateStatefulSetUpdate(sts: KubeObject, old: KubeObject): FieldError[] {
  const strip = (spec: JsonObject): JsonObject => {
    const rest = { ...spec };
    for (const f of MUTABLE_SPEC_FIELDS) delete rest[f];
    return rest;
  };
  return jsonEqual(strip(specOf(sts)), strip(specOf(old))) ? [] : [forbidden(SPEC, IMMUTABLE_SPEC_MESSAGE)];
}

/** ValidateStatefulSetStatusUpdate (the status sub-resource), with document 2's condition rules. */
export function validateStatefulSetStatusUpdate(sts: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(sts);
  const n = (key: string): number => numberAt(status, key) ?? 0;
  const errs: FieldError[] = [];
  for (const key of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) errs.push(...nonNegative(n(key), STATUS.child(key)));
  const generation = numberAt(status, 'observedGeneration');
  if (generation !== undefined) errs.push(...nonNegative(generation, STATUS.child('observedGeneration')));
  const collisions = numberAt(status, 'collisionCount');
  if (collisions !== undefined) errs.push(...nonNegative(collisions, STATUS.child('collisionCount')));

  const replicasMsg = 'cannot be greater than status.replicas';
  for (const key of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']) {
    if (n(key) > n('replicas')) errs.push(invalidValue(STATUS.child(key), n(key), replicasMsg));
  }
  if (n('availableReplicas') > n('readyReplicas')) {
    errs.push(invalidValue(STATUS.child('availableReplicas'), n('availableReplicas'), 'cannot be greater than status.readyReplicas'));
  }
  errs.push(...validateConditions(status, STATUS.child('conditions')));

  const oldCollisions = numberAt(statusOf(old), 'collisionCount');
  if (oldCollisions !== undefined && (collisions === undefined || collisions < oldCollisions)) {
    errs.push(invalidValue(STATUS.child('collisionCount'), collisions ?? 0, 'cannot be decremented'));
  }
  return errs;
}
