/**
 * ObjectMeta validation with Kubernetes' rules and messages (apimachinery `api/validation/objectmeta.go`):
 * names, namespace scope, labels, annotations, owner references, finalizers, generation, and on update
 * the immutable fields. `resourceVersion` belongs to the registry (409/422 there), and so does the check
 * that the object's namespace matches the request (a 400, not a field error).
 *
 * Paths follow upstream, including its quirks: label, annotation and finalizer errors name the whole map or
 * list (`metadata.labels`), and owner reference errors name `metadata.ownerReferences.<field>` without an
 * index.
 */
import type { ObjectMeta, OwnerReference } from '../api/object.js';
import type { NameRule } from '../registry/kind-strategy.js';
import { forbidden, invalidValue, required, type FieldError } from './field-error.js';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isPathSegmentName, isQualifiedName, isValidLabelValue, maskTrailingDash } from './names.js';

/** Total bytes of annotation keys plus values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export interface ObjectMetaOptions {
  readonly namespaced: boolean;
  readonly nameRule: NameRule;
  /** The request's namespace. Informational: the registry answers a mismatch with a 400 before validation. */
  readonly requestNamespace?: string;
}

/** Kinds that may never own anything (upstream `BannedOwners`): events. */
const bannedOwners = new Set(['v1/Event', 'events.k8s.io/v1/Event']);

/** Name syntax per rule; `prefix` is for generateName (a trailing '-' is allowed). */
function nameProblems(rule: NameRule, value: string, prefix: boolean): string[] {
  switch (rule) {
    case 'dns-label':
      return isDNS1123Label(prefix ? maskTrailingDash(value) : value);
    case 'dns-1035-label':
      return isDNS1035Label(prefix ? maskTrailingDash(value) : value);
    case 'path-segment':
      return prefix ? isPathSegmentName(value).filter((m) => !m.startsWith('may not be ')) : isPathSegmentName(value);
    default:
      return isDNS1123Subdomain(prefix ? maskTrailingDash(value) : value);
  }
}

/** Every rule for an object being created (and, with `validateObjectMetaUpdate`, updated). */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions): FieldError[] {
  const errs: FieldError[] = [];
  const name = meta.name ?? '';
  const generateName = meta.generateName ?? '';
  if (generateName !== '') {
    for (const msg of nameProblems(opts.nameRule, generateName, true)) errs.push(invalidValue('metadata.generateName', generateName, msg));
  }
  if (name === '') {
    if (generateName === '') errs.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of nameProblems(opts.nameRule, name, false)) errs.push(invalidValue('metadata.name', name, msg));
  }

  const namespace = meta.namespace ?? '';
  if (opts.namespaced) {
    if (namespace === '') errs.push(required('metadata.namespace', ''));
    else for (const msg of isDNS1123Label(namespace)) errs.push(invalidValue('metadata.namespace', namespace, msg));
  } else if (namespace !== '') {
    errs.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }

  if (meta.generation !== undefined && meta.generation < 0) {
    errs.push(invalidValue('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  if (meta.labels !== undefined && meta.labels !== null) validateLabels(meta.labels, errs);
  if (meta.annotations !== undefined && meta.annotations !== null) validateAnnotations(meta.annotations, errs);
  if (meta.ownerReferences !== undefined && meta.ownerReferences !== null) validateOwnerReferences(meta.ownerReferences, errs);
  if (meta.finalizers !== undefined && meta.finalizers !== null) {
    for (const f of meta.finalizers) for (const msg of isQualifiedName(f)) errs.push(invalidValue('metadata.finalizers', f, msg));
  }
  return errs;
}

function validateLabels(labels: Readonly<Record<string, string>>, errs: FieldError[]): void {
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalidValue('metadata.labels', k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalidValue('metadata.labels', v, msg));
  }
}

function validateAnnotations(annotations: Readonly<Record<string, string>>, errs: FieldError[]): void {
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    // Upstream checks the lower-cased key (annotation keys may use upper case in the name part anyway).
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalidValue('metadata.annotations', k, msg));
    total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({ type: 'FieldValueTooLong', field: 'metadata.annotations', detail: `must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  }
}

/** `group/version` -> [group, version]; a bare `v1` is the core group. */
function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

function validateOwnerReferences(refs: readonly OwnerReference[], errs: FieldError[]): void {
  const path = 'metadata.ownerReferences';
  const controllers: string[] = [];
  for (const ref of refs) {
    const apiVersion = ref.apiVersion ?? '';
    const [group, version] = splitApiVersion(apiVersion);
    if (version === '') errs.push(invalidValue(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if ((ref.kind ?? '') === '') errs.push(invalidValue(`${path}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if ((ref.name ?? '') === '') errs.push(invalidValue(`${path}.name`, ref.name ?? '', 'name must not be empty'));
    if ((ref.uid ?? '') === '') errs.push(invalidValue(`${path}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (bannedOwners.has(`${group === '' ? '' : `${group}/`}${version}/${ref.kind}`)) {
      errs.push(invalidValue(path, ref, `${group}/${version}, Kind=${ref.kind} is disallowed from being an owner`));
    }
    if (ref.controller === true) controllers.push(`${ref.kind}/${ref.name}`);
  }
  if (controllers.length > 1) {
    errs.push(
      invalidValue(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`),
    );
  }
}

const immutable = (field: string, value: unknown): FieldError => invalidValue(field, value, 'field is immutable');

/**
 * The rules only an update has, comparing `meta` with the stored `old`: immutable name, namespace, uid,
 * creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds (the registry pins the latter two
 * before validating, so a client cannot trip them); generation never decreases; no new finalizers once
 * deletion started. Run `validateObjectMeta` on `meta` as well: this function does not repeat it.
 */
export function validateObjectMetaUpdate(meta: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp !== undefined && old.deletionTimestamp !== null) {
    const before = new Set(old.finalizers ?? []);
    const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length > 0) {
      const list = [...new Set(added)].sort().map((f) => JSON.stringify(f)).join(', ');
      errs.push(forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${list}}`));
    }
  }
  if ((meta.generation ?? 0) < (old.generation ?? 0)) {
    errs.push(invalidValue('metadata.generation', meta.generation ?? 0, 'must not be decremented'));
  }
  if ((meta.name ?? '') !== (old.name ?? '')) errs.push(immutable('metadata.name', meta.name ?? ''));
  if ((meta.namespace ?? '') !== (old.namespace ?? '')) errs.push(immutable('metadata.namespace', meta.namespace ?? ''));
  if ((meta.uid ?? '') !== (old.uid ?? '')) errs.push(immutable('metadata.uid', meta.uid ?? ''));
  if ((meta.creationTimestamp ?? null) !== (old.creationTimestamp ?? null)) errs.push(immutable('metadata.creationTimestamp', meta.creationTimestamp ?? null));
  if ((meta.deletionTimestamp ?? null) !== (old.deletionTimestamp ?? null)) errs.push(immutable('metadata.deletionTimestamp', meta.deletionTimestamp ?? null));
  if ((meta.deletionGracePeriodSeconds ?? null) !== (old.deletionGracePeriodSeconds ?? null)) {
    errs.push(immutable('metadata.deletionGracePeriodSeconds', meta.deletionGracePeriodSeconds ?? null));
  }
  return errs;
}
