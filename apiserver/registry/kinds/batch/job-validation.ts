/**
 * Job spec validation as Kubernetes v1.32 runs it (pkg/apis/batch/validation ValidateJob, ValidateJobSpec,
 * ValidateJobSpecUpdate with the strategy's options; the JobManagedBy, JobSuccessPolicy,
 * JobBackoffLimitPerIndex, JobPodReplacementPolicy and ElasticIndexedJob gates on), with its field paths and
 * messages:
 * - the generated selector (unless manualSelector): the template carries `controller-uid` and `job-name`
 *   (and their prefixed forms, required on create and on updates of jobs that have them) with the job's uid
 *   and name, and the selector picks them;
 * - the selector is required, valid, and matches the template's labels;
 * - counters non-negative; Indexed jobs need completions, parallelism at most 10^5, the per-index limits;
 *   managedBy a domain-prefixed path of at most 63 characters; podFailurePolicy, successPolicy and
 *   podReplacementPolicy rules; the pod template (core/pod) with restartPolicy `OnFailure` or `Never`
 *   (`Never` only with a podFailurePolicy); an Indexed job's largest pod hostname a DNS label;
 * - updates: completions (only an Indexed job, in tandem with parallelism), selector, completionMode,
 *   podFailurePolicy, backoffLimitPerIndex, managedBy and successPolicy immutable; the template immutable
 *   except, for a job suspended and never started, its node affinity, node selector, tolerations, labels,
 *   annotations and scheduling gates.
 *
 * One difference, on purpose: Kubernetes validates the spec twice on update (ValidateJob and
 * ValidateJobUpdate both call ValidateJobSpec), listing each spec error twice; this server lists it once.
 * The podFailurePolicy and successPolicy rules: job-policy-validation.ts.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../selectors/label-selector-object.js';
import { type FieldError, FieldPath, invalidValue, notSupported, required, tooLong } from '../../../validation/field-error.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../validation/names.js';
import { jsonEqual } from '../../patch/json-value.js';
import { type JsonObject, isObject, objectAt, stringAt } from '../core/pod/json-values.js';
import { validatePodTemplateSpec } from '../core/pod/validate-pod-template-spec.js';
import { validateLabelSelector } from '../../../validation/label-selector.js';
import { LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL, jobLabels } from './job-names.js';
import { validatePodFailurePolicy, validateSuccessPolicy } from './job-policy-validation.js';

const SPEC = FieldPath.root('spec');
const MAX_PARALLELISM_INDEXED = 100_000;
const MAX_FAILED_INDEXES = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000;
const MAX_MANAGED_BY = 63;

const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function nonNegative(errs: FieldError[], spec: JsonObject, name: string, path = SPEC): void {
  const v = int(spec[name]);
  if (v !== undefined && v < 0) errs.push(invalidValue(path.child(name), v, 'must be greater than or equal to 0'));
}

const labelsOf = (meta: JsonObject | undefined): Record<string, string> => {
  const labels = meta === undefined ? undefined : objectAt(meta, 'labels');
  const out: Record<string, string> = {};
  if (labels !== undefined) for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') out[k] = v;
  return out;
};

/** A selector as Kubernetes' LabelSelectorAsSelector sees it; undefined when it does not convert. */
function selectorMatches(selector: unknown, labels: Record<string, string>): boolean | undefined {
  try {
    return labelSelectorFromObject(isObject(selector) ? (selector as unknown as LabelSelectorObject) : null).matches(labels);
  } catch {
    return undefined;
  }
}

/** Kubernetes' ValidateHasLabel on the template's metadata. */
function hasLabel(errs: FieldError[], labels: Record<string, string>, rawLabels: unknown, key: string, expected: string): void {
  const at = SPEC.child('template').child('metadata').child('labels').key(key);
  if (!(key in labels)) errs.push(required(at, expected));
  else if (labels[key] !== expected) errs.push(invalidValue(at, rawLabels ?? null, `must be '${expected}'`));
}

/** validateGeneratedSelector: what selector generation must have produced. */
function validateGeneratedSelector(job: KubeObject, spec: JsonObject, naming: Naming, requirePrefixed: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.manualSelector === true || !isSet(spec.selector)) return errs;
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  if (uid === '') errs.push(required('metadata.uid'));
  const templateMeta = objectAt(objectAt(spec, 'template') ?? {}, 'metadata');
  const labels = labelsOf(templateMeta);
  const raw = templateMeta?.labels;
  hasLabel(errs, labels, raw, LEGACY_CONTROLLER_UID_LABEL, uid);
  hasLabel(errs, labels, raw, LEGACY_JOB_NAME_LABEL, name);
  const expected: Record<string, string> = {};
  if (requirePrefixed) {
    const prefixed = jobLabels(naming);
    hasLabel(errs, labels, raw, prefixed.controllerUid, uid);
    hasLabel(errs, labels, raw, prefixed.jobName, name);
    expected[prefixed.controllerUid] = uid;
    expected[prefixed.jobName] = name;
  }
  expected[LEGACY_CONTROLLER_UID_LABEL] = uid;
  expected[LEGACY_JOB_NAME_LABEL] = name;
  if (selectorMatches(spec.selector, expected) === false) errs.push(invalidValue(SPEC.child('selector'), spec.selector, '`selector` not auto-generated'));
  return errs;
}

/** IsDomainPrefixedPath: `<RFC 1123 subdomain>/<HTTP path characters>`. */
function domainPrefixedPath(path: FieldPath, value: string): FieldError[] {
  if (value === '') return [required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [invalidValue(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((msg) => invalidValue(path, host, msg));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(rest)) {
    errs.push(invalidValue(path, rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  }
  return errs;
}

function validateIndexedLimits(errs: FieldError[], spec: JsonObject): void {
  const completions = int(spec.completions);
  const parallelism = int(spec.parallelism);
  const maxFailed = int(spec.maxFailedIndexes);
  if (completions === undefined) errs.push(required(SPEC.child('completions'), 'when completion mode is Indexed'));
  if (parallelism !== undefined && parallelism > MAX_PARALLELISM_INDEXED) {
    errs.push(invalidValue(SPEC.child('parallelism'), parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
  }
  if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) {
    errs.push(invalidValue(SPEC.child('maxFailedIndexes'), maxFailed, 'must be less than or equal to completions'));
  }
  if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES) {
    errs.push(invalidValue(SPEC.child('maxFailedIndexes'), maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
  }
  if (completions !== undefined && completions > COMPLETIONS_SOFT_LIMIT && isSet(spec.backoffLimitPerIndex)) {
    if (maxFailed === undefined) errs.push(required(SPEC.child('maxFailedIndexes'), `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
    const tail = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
    if (parallelism !== undefined && parallelism > PARALLELISM_LIMIT_HIGH_COMPLETIONS) {
      errs.push(invalidValue(SPEC.child('parallelism'), parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_HIGH_COMPLETIONS} ${tail}`));
    }
    if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_HIGH_COMPLETIONS) {
      errs.push(invalidValue(SPEC.child('maxFailedIndexes'), maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_HIGH_COMPLETIONS} ${tail}`));
    }
  }
}

/** validateJobSpec: everything of the spec but the selector. */
function validateSpecFields(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    nonNegative(errs, spec, name);
  }
  if (isSet(spec.maxFailedIndexes) && !isSet(spec.backoffLimitPerIndex)) errs.push(required(SPEC.child('backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  if (typeof spec.managedBy === 'string') {
    errs.push(...domainPrefixedPath(SPEC.child('managedBy'), spec.managedBy));
    if (spec.managedBy.length > MAX_MANAGED_BY) errs.push(tooLong(SPEC.child('managedBy'), MAX_MANAGED_BY));
  }
  const mode = typeof spec.completionMode === 'string' ? spec.completionMode : undefined;
  if (mode !== undefined) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(notSupported(SPEC.child('completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') validateIndexedLimits(errs, spec);
  }
  if (mode === undefined || mode === 'NonIndexed') {
    if (isSet(spec.backoffLimitPerIndex)) errs.push(invalidValue(SPEC.child('backoffLimitPerIndex'), spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (isSet(spec.maxFailedIndexes)) errs.push(invalidValue(SPEC.child('maxFailedIndexes'), spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  const podFailurePolicy = objectAt(spec, 'podFailurePolicy');
  if (podFailurePolicy !== undefined) errs.push(...validatePodFailurePolicy(spec, podFailurePolicy, SPEC.child('podFailurePolicy')));
  const successPolicy = objectAt(spec, 'successPolicy');
  if (successPolicy !== undefined) {
    if (mode !== 'Indexed') errs.push(invalidValue(SPEC.child('successPolicy'), successPolicy, 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, successPolicy, SPEC.child('successPolicy')));
  }
  if (typeof spec.podReplacementPolicy === 'string') {
    const policy = spec.podReplacementPolicy;
    const at = SPEC.child('podReplacementPolicy');
    if (podFailurePolicy !== undefined) {
      if (policy !== 'Failed') errs.push(notSupported(at, policy, ['Failed']));
    } else if (!REPLACEMENT_POLICIES.includes(policy)) errs.push(notSupported(at, policy, REPLACEMENT_POLICIES));
  }
  const templatePath = SPEC.child('template');
  // A missing `containers` is already the schema's `Required value` (pod spec schema); not twice.
  const containersMissing = objectAt(objectAt(spec, 'template') ?? {}, 'spec')?.containers === undefined;
  const containersPath = templatePath.child('spec').child('containers').toString();
  for (const e of validatePodTemplateSpec(spec.template, templatePath)) {
    if (!(containersMissing && e.type === 'FieldValueRequired' && e.field === containersPath)) errs.push(e);
  }
  const restartPolicy = stringAt(objectAt(objectAt(spec, 'template') ?? {}, 'spec') ?? {}, 'restartPolicy');
  const restartPath = templatePath.child('spec').child('restartPolicy');
  if (restartPolicy === 'Always' || restartPolicy === '') errs.push(required(restartPath, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') errs.push(notSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  else if (podFailurePolicy !== undefined && restartPolicy !== 'Never') {
    errs.push(invalidValue(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

/** ValidateJobSpec: the fields, then the selector and its match with the template's labels. */
function validateSpec(spec: JsonObject): FieldError[] {
  const errs = validateSpecFields(spec);
  const selectorPath = SPEC.child('selector');
  if (!isSet(spec.selector)) errs.push(required(selectorPath));
  else errs.push(...validateLabelSelector(spec.selector, selectorPath));
  const templateMeta = objectAt(objectAt(spec, 'template') ?? {}, 'metadata');
  if (selectorMatches(spec.selector, labelsOf(templateMeta)) === false) {
    errs.push(invalidValue(SPEC.child('template').child('metadata').child('labels'), templateMeta?.labels ?? null, '`selector` does not match template `labels`'));
  }
  return errs;
}

/** ValidateJob (ObjectMeta aside: the registry validates it), with the prefixed labels required or not. */
export function validateJob(job: KubeObject, naming: Naming, requirePrefixedLabels: boolean): FieldError[] {
  const spec = isObject(job.spec) ? job.spec : {};
  const errs = validateGeneratedSelector(job, spec, naming, requirePrefixedLabels);
  errs.push(...validateSpec(spec));
  const completions = int(spec.completions);
  if (spec.completionMode === 'Indexed' && completions !== undefined && completions > 0) {
    // The controller names the pod hostnames `<job>-<index>`: the largest must be a DNS label.
    const name = job.metadata.name ?? '';
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) errs.push(invalidValue('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
  }
  return errs;
}

const immutable = (path: FieldPath, value: unknown, old: unknown): FieldError[] =>
  jsonEqual(value ?? null, old ?? null) ? [] : [invalidValue(path, value ?? null, 'field is immutable')];

/**
 * The template as the immutability check compares it: for a job suspended and never started, the old
 * template takes the new one's node affinity, node selector, tolerations, labels, annotations and
 * scheduling gates (the other affinity members stay immutable).
 */
function comparableOldTemplate(template: JsonObject, oldTemplate: JsonObject): JsonObject {
  const old = structuredClone(oldTemplate);
  const spec = objectAt(template, 'spec') ?? {};
  if (!isObject(old.spec)) old.spec = {};
  const oldSpec = old.spec as JsonObject;
  const affinity = objectAt(spec, 'affinity');
  const oldAffinity = objectAt(oldSpec, 'affinity');
  const take = (to: JsonObject, from: JsonObject, key: string): void => {
    if (from[key] === undefined) delete to[key];
    else to[key] = from[key];
  };
  if (affinity === undefined && oldAffinity !== undefined) {
    delete oldAffinity.nodeAffinity;
    if (Object.keys(oldAffinity).length === 0) delete oldSpec.affinity;
  } else if (affinity !== undefined && oldAffinity === undefined) {
    oldSpec.affinity = affinity.nodeAffinity === undefined ? {} : { nodeAffinity: affinity.nodeAffinity };
  } else if (affinity !== undefined && oldAffinity !== undefined) {
    take(oldAffinity, affinity, 'nodeAffinity');
  }
  take(oldSpec, spec, 'nodeSelector');
  take(oldSpec, spec, 'tolerations');
  take(oldSpec, spec, 'schedulingGates');
  const meta = objectAt(template, 'metadata') ?? {};
  if (!isObject(old.metadata)) old.metadata = {};
  take(old.metadata as JsonObject, meta, 'annotations');
  take(old.metadata as JsonObject, meta, 'labels');
  return old;
}

/** ValidateJobSpecUpdate's immutability rules (the spec itself is validated by `validateJob`). */
export function validateJobSpecUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const spec = isObject(job.spec) ? job.spec : {};
  const oldSpec = isObject(old.spec) ? old.spec : {};
  const errs: FieldError[] = [];
  // Completions: only an Indexed job may change them, and only together with parallelism (elastic jobs).
  if (!jsonEqual(spec.completions ?? null, oldSpec.completions ?? null)) {
    if (spec.completionMode !== 'Indexed') errs.push(...immutable(SPEC.child('completions'), spec.completions, oldSpec.completions));
    else if (isSet(spec.completions) && spec.completions !== spec.parallelism) {
      errs.push(invalidValue(SPEC.child('completions'), spec.completions, 'can only be modified in tandem with spec.parallelism'));
    }
  }
  errs.push(...immutable(SPEC.child('selector'), spec.selector, oldSpec.selector));
  const template = objectAt(spec, 'template') ?? {};
  const oldTemplate = objectAt(oldSpec, 'template') ?? {};
  const suspendedNeverStarted = oldSpec.suspend === true && !isSet(objectAt(old as JsonObject, 'status')?.startTime);
  errs.push(...immutable(SPEC.child('template'), template, suspendedNeverStarted ? comparableOldTemplate(template, oldTemplate) : oldTemplate));
  for (const name of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    errs.push(...immutable(SPEC.child(name), spec[name], oldSpec[name]));
  }
  return errs;
}

/** Whether a stored job's template carries both prefixed labels (then updates must keep them). */
export function hasPrefixedLabels(job: KubeObject, naming: Naming): boolean {
  const labels = labelsOf(objectAt(objectAt(isObject(job.spec) ? job.spec : {}, 'template') ?? {}, 'metadata'));
  const prefixed = jobLabels(naming);
  return prefixed.controllerUid in labels && prefixed.jobName in labels;
}
