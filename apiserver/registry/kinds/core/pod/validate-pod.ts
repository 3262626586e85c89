/**
 * The rules of a Pod object beyond its spec (Kubernetes v1.32 ValidatePodCreate, ValidatePodUpdate and
 * ValidatePodStatusUpdate; ObjectMeta is the registry's). Paths and messages are Kubernetes':
 *
 * - create: the pod spec (validate-pod-spec.ts, any restart policy), a projected service account token
 *   needs `serviceAccountName`, images without surrounding blanks, no ephemeral containers (`cannot be
 *   set on create`), no `nodeName` while scheduling gates remain;
 * - update: the new spec is valid; containers may not be added or removed; only images,
 *   `activeDeadlineSeconds` (set, or lowered), added tolerations (or a changed tolerationSeconds),
 *   removed scheduling gates, `terminationGracePeriodSeconds` from negative to 1 and, while the pod is
 *   gated, additions to `nodeSelector` may change. Anything else is one Forbidden error at `spec` with
 *   kube's `pod updates may not change fields other than ...` and the changed paths (kube appends a Go
 *   struct diff there; this server lists the paths that differ);
 * - status: the custom condition types are qualified names (kube reports them at
 *   `metadata.conditions[i].Type`, a path quirk kept for fidelity); `nodeName` only through a binding;
 *   `nominatedNodeName` a DNS subdomain; `qosClass` immutable; terminated containers of pods that do not
 *   restart stay terminated; resource claim statuses name claims of the spec; pod and host IPs are valid,
 *   at most one per family, unique, and `hostIPs[0]` equals `hostIP`.
 *
 * Both updates keep the mirror pod annotation as it is (validateMirrorAnnotationUpdate).
 *
 * Kubernetes 1.32 checks neither `status.phase` values nor condition `status` values on pods; neither
 * does this server.
 */
import { isIP } from 'node:net';
import { type FieldError, FieldPath, duplicate, forbidden, invalidValue, required } from '../../../../validation/field-error.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../../../validation/names.js';
import { jsonEqual } from '../../../patch/json-value.js';
import { type JsonObject, arrayAt, isObject, numberAt, objectAt, objectItems, stringAt } from './json-values.js';
import { validatePodSpec } from './validate-pod-spec.js';

const SPEC = FieldPath.root('spec');
const STATUS = FieldPath.root('status');
const MAX_INT32 = 2147483647;
const INVALID_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** What a pod update may change (kube's updatablePodSpecFields, joined with ","). */
export const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
].join(',');

/**
 * Kubernetes' semantic equality: an empty list or map equals an absent one (Go's nil and empty slices and
 * maps compare equal there), so a client that sends `tolerations: []` changes nothing.
 */
function semanticEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return jsonEqual(a, b);
}

const specOf = (pod: JsonObject): JsonObject => objectAt(pod, 'spec') ?? {};
const statusOf = (pod: JsonObject): JsonObject => objectAt(pod, 'status') ?? {};

/** The spec checks a pod shares with create and update (validatePodMetadataAndSpec minus ObjectMeta). */
function validatePodSpecForPod(spec: JsonObject): FieldError[] {
  const errs = validatePodSpec(spec, SPEC);
  if (stringAt(spec, 'serviceAccountName') === '') {
    for (const [vi, volume] of objectItems(arrayAt(spec, 'volumes'))) {
      const projected = objectAt(volume, 'projected');
      if (projected === undefined) continue;
      for (const [si, source] of objectItems(arrayAt(projected, 'sources'))) {
        if (objectAt(source, 'serviceAccountToken') !== undefined) {
          const at = SPEC.child('volumes').index(vi).child('projected').child('sources').index(si).child('serviceAccountToken');
          errs.push(forbidden(at, 'must not be specified when serviceAccountName is not set'));
        }
      }
    }
  }
  return errs;
}

function imageWhitespace(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    for (const [i, c] of objectItems(arrayAt(spec, list))) {
      const image = stringAt(c, 'image');
      if (image.trim().length !== image.length) errs.push(invalidValue(SPEC.child(list).index(i).child('image'), image, 'must not have leading or trailing whitespace'));
    }
  }
  return errs;
}

export function validatePodCreate(pod: JsonObject): FieldError[] {
  const spec = specOf(pod);
  const errs = validatePodSpecForPod(spec);
  errs.push(...imageWhitespace(spec));
  if (arrayAt(spec, 'ephemeralContainers').length > 0) errs.push(forbidden(SPEC.child('ephemeralContainers'), 'cannot be set on create'));
  if (stringAt(spec, 'nodeName') !== '' && arrayAt(spec, 'schedulingGates').length > 0) {
    errs.push(forbidden(SPEC.child('nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  }
  return errs;
}

/** ValidateContainerUpdates: same count; images required and without surrounding blanks. Returns stop. */
function containerUpdates(spec: JsonObject, old: JsonObject, list: 'containers' | 'initContainers', errs: FieldError[]): boolean {
  const next = arrayAt(spec, list);
  if (next.length !== arrayAt(old, list).length) {
    errs.push(forbidden(SPEC.child(list), 'pod updates may not add or remove containers'));
    return true;
  }
  for (const [i, c] of objectItems(next)) {
    const image = stringAt(c, 'image');
    const at = SPEC.child(list).index(i).child('image');
    if (image === '') errs.push(required(at, ''));
    if (image.trim().length !== image.length) errs.push(invalidValue(at, image, 'must not have leading or trailing whitespace'));
  }
  return false;
}

/** Every old toleration must still be there, possibly with another tolerationSeconds. */
function onlyAddedTolerations(spec: JsonObject, old: JsonObject): FieldError[] {
  const next = arrayAt(spec, 'tolerations');
  for (const o of arrayAt(old, 'tolerations')) {
    const found = next.some((n) => isObject(n) && isObject(o) && semanticEqual({ ...o, tolerationSeconds: n.tolerationSeconds }, n));
    if (!found) return [forbidden(SPEC.child('tolerations'), 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return [];
}

function onlyDeletedSchedulingGates(spec: JsonObject, old: JsonObject): FieldError[] {
  const oldNames = new Set([...objectItems(arrayAt(old, 'schedulingGates'))].map(([, g]) => stringAt(g, 'name')));
  for (const [, g] of objectItems(arrayAt(spec, 'schedulingGates'))) {
    const name = stringAt(g, 'name');
    if (!oldNames.has(name)) return [forbidden(SPEC.child('schedulingGates'), `only deletion is allowed, but found new scheduling gate '${name}'`)];
  }
  return [];
}

/** The JSON paths (under `spec`) where `a` and `b` differ, for the update error's detail. */
function changedPaths(a: unknown, b: unknown, path: string, out: string[]): void {
  if (semanticEqual(a, b)) return;
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) changedPaths(a[k], b[k], `${path}.${k}`, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) changedPaths(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  out.push(path);
}

export function validatePodUpdate(pod: JsonObject, oldPod: JsonObject): FieldError[] {
  const spec = specOf(pod);
  const old = specOf(oldPod);
  const errs = validatePodSpecForPod(spec);
  if (containerUpdates(spec, old, 'containers', errs)) return errs;
  if (containerUpdates(spec, old, 'initContainers', errs)) return errs;

  const deadline = numberAt(spec, 'activeDeadlineSeconds');
  const oldDeadline = numberAt(old, 'activeDeadlineSeconds');
  if (deadline !== undefined) {
    if (deadline < 0 || deadline > MAX_INT32) {
      errs.push(invalidValue(SPEC.child('activeDeadlineSeconds'), deadline, `must be between 0 and ${MAX_INT32}, inclusive`));
      return errs;
    }
    if (oldDeadline !== undefined && oldDeadline < deadline) {
      errs.push(invalidValue(SPEC.child('activeDeadlineSeconds'), deadline, 'must be less than or equal to previous value'));
      return errs;
    }
  } else if (oldDeadline !== undefined) {
    errs.push(invalidValue(SPEC.child('activeDeadlineSeconds'), null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...onlyAddedTolerations(spec, old));
  errs.push(...onlyDeletedSchedulingGates(spec, old));
  if (semanticEqual(spec, old)) return errs;

  // Munge what may change back to the old values; whatever still differs is forbidden.
  const munged: JsonObject = structuredClone(spec);
  for (const list of ['containers', 'initContainers'] as const) {
    const olds = arrayAt(old, list);
    arrayAt(munged, list).forEach((c, i) => {
      const o = olds[i];
      if (!isObject(c)) return;
      if (isObject(o) && o.image !== undefined) c.image = o.image;
      else delete c.image;
    });
  }
  for (const field of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations'] as const) {
    if (old[field] === undefined) delete munged[field];
    else munged[field] = old[field];
  }
  const oldGrace = numberAt(old, 'terminationGracePeriodSeconds');
  if (oldGrace !== undefined && oldGrace < 0 && numberAt(munged, 'terminationGracePeriodSeconds') === 1) munged.terminationGracePeriodSeconds = oldGrace;
  if (arrayAt(old, 'schedulingGates').length > 0) errs.push(...gatedNodeSelector(munged, old));
  if (!semanticEqual(munged, old)) {
    const paths: string[] = [];
    changedPaths(old, munged, 'spec', paths);
    paths.sort();
    errs.push(forbidden(SPEC, `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS}\n${paths.map((p) => `  ${p}: changed`).join('\n')}`));
  }
  return errs;
}

/** A gated pod may gain nodeSelector entries (no changes or removals); accepted ones are munged back. */
function gatedNodeSelector(munged: JsonObject, old: JsonObject): FieldError[] {
  const next = objectAt(munged, 'nodeSelector') ?? {};
  const prev = objectAt(old, 'nodeSelector') ?? {};
  if (semanticEqual(next, prev)) return [];
  for (const [k, v] of Object.entries(prev)) {
    if (next[k] !== v) return [invalidValue(SPEC.child('nodeSelector'), next, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)')];
  }
  if (old.nodeSelector === undefined) delete munged.nodeSelector;
  else munged.nodeSelector = old.nodeSelector;
  return [];
}

const SYSTEM_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized']);

/** Containers that terminated may not leave that state unless the restart policy restarts them. */
function stateTransitions(next: readonly unknown[], prev: readonly unknown[], path: FieldPath, policy: string, restartable: ReadonlySet<string>): FieldError[] {
  if (policy === 'Always') return [];
  const errs: FieldError[] = [];
  for (const [i, o] of objectItems(prev)) {
    const terminated = objectAt(objectAt(o, 'state') ?? {}, 'terminated');
    if (terminated === undefined) continue;
    if ((numberAt(terminated, 'exitCode') ?? 0) !== 0 && policy === 'OnFailure') continue;
    if (restartable.has(stringAt(o, 'name'))) continue;
    for (const [, n] of objectItems(next)) {
      if (stringAt(n, 'name') === stringAt(o, 'name') && objectAt(objectAt(n, 'state') ?? {}, 'terminated') === undefined) {
        errs.push(forbidden(path.index(i).child('state'), 'may not be transitioned to non-terminated state'));
      }
    }
  }
  return errs;
}

/**
 * At most one address per family, each valid (validatePodIPs / validateHostIPs); repeats are reported
 * here for hostIPs (an atomic list) and by the schema for podIPs (a map list keyed by ip).
 */
function validateIPList(list: readonly unknown[], path: FieldPath, checkRepeats: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ips = [...objectItems(list)].map(([, o]) => stringAt(o, 'ip'));
  ips.forEach((ip, i) => {
    if (isIP(ip) === 0) errs.push(invalidValue(path.index(i), ip, INVALID_IP));
  });
  if (ips.length > 1) {
    const families = ips.map((ip) => isIP(ip));
    if (ips.length > 2 || families[0] === families[1]) errs.push(invalidValue(path, list, 'may specify no more than one IP for each IP family'));
    if (!checkRepeats) return errs;
    const seen = new Set<string>();
    ips.forEach((ip, i) => {
      if (seen.has(ip)) errs.push(duplicate(path.index(i), list[i]));
      seen.add(ip);
    });
  }
  return errs;
}

/**
 * The mirror pod annotation (`<legacy domain>/config.mirror`, which the node agent sets on the API copy
 * of a static pod) can be neither added, changed nor removed (ValidatePodSpecificAnnotationUpdates).
 */
export function validateMirrorAnnotationUpdate(pod: JsonObject, oldPod: JsonObject, mirrorKey: string): FieldError[] {
  const annotations = (p: JsonObject): JsonObject => objectAt(objectAt(p, 'metadata') ?? {}, 'annotations') ?? {};
  const next = annotations(pod);
  const prev = annotations(oldPod);
  const at = FieldPath.root('metadata').child('annotations').key(mirrorKey);
  if (prev[mirrorKey] !== undefined && next[mirrorKey] !== prev[mirrorKey]) return [forbidden(at, 'may not remove or update mirror pod annotation')];
  if (prev[mirrorKey] === undefined && next[mirrorKey] !== undefined) return [forbidden(at, 'may not add mirror pod annotation')];
  return [];
}

export function validatePodStatusUpdate(pod: JsonObject, oldPod: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const status = statusOf(pod);
  const oldStatus = statusOf(oldPod);
  const spec = specOf(pod);
  const oldSpec = specOf(oldPod);
  const conditionsPath = FieldPath.root('metadata').child('conditions');
  for (const [i, c] of objectItems(arrayAt(status, 'conditions'))) {
    const type = stringAt(c, 'type');
    if (SYSTEM_CONDITIONS.has(type)) continue;
    for (const msg of isQualifiedName(type)) errs.push(invalidValue(conditionsPath.index(i).child('Type'), type, msg));
  }
  if (stringAt(spec, 'nodeName') !== stringAt(oldSpec, 'nodeName')) errs.push(forbidden(STATUS.child('nodeName'), 'may not be changed directly'));
  const nominated = stringAt(status, 'nominatedNodeName');
  if (nominated !== '' && nominated !== stringAt(oldStatus, 'nominatedNodeName')) {
    for (const msg of isDNS1123Subdomain(nominated)) errs.push(invalidValue(STATUS.child('nominatedNodeName'), nominated, msg));
  }
  if (stringAt(status, 'qosClass') !== stringAt(oldStatus, 'qosClass')) errs.push(invalidValue(STATUS.child('qosClass'), stringAt(status, 'qosClass'), 'field is immutable'));

  const policy = stringAt(oldSpec, 'restartPolicy');
  const sidecars = new Set([...objectItems(arrayAt(oldSpec, 'initContainers'))].filter(([, c]) => c.restartPolicy === 'Always').map(([, c]) => stringAt(c, 'name')));
  const none = new Set<string>();
  errs.push(...stateTransitions(arrayAt(status, 'containerStatuses'), arrayAt(oldStatus, 'containerStatuses'), STATUS.child('containerStatuses'), policy, none));
  errs.push(...stateTransitions(arrayAt(status, 'initContainerStatuses'), arrayAt(oldStatus, 'initContainerStatuses'), STATUS.child('initContainerStatuses'), policy, sidecars));
  errs.push(...stateTransitions(arrayAt(status, 'ephemeralContainerStatuses'), arrayAt(oldStatus, 'ephemeralContainerStatuses'), STATUS.child('ephemeralContainerStatuses'), 'Never', none));

  const claims = new Set([...objectItems(arrayAt(spec, 'resourceClaims'))].map(([, c]) => stringAt(c, 'name')));
  // Repeated names are the schema's to report (a map list keyed by name).
  for (const [i, s] of objectItems(arrayAt(status, 'resourceClaimStatuses'))) {
    const name = stringAt(s, 'name');
    const at = STATUS.child('resourceClaimStatuses').index(i).child('name');
    if (!claims.has(name)) errs.push(invalidValue(at, name, 'must match the name of an entry in `spec.resourceClaims`'));
    const claimName = s.resourceClaimName;
    if (typeof claimName === 'string') for (const msg of isDNS1123Subdomain(claimName)) errs.push(invalidValue(at, claimName, msg));
  }

  errs.push(...validateIPList(arrayAt(status, 'podIPs'), STATUS.child('podIPs'), false));
  const hostIPs = arrayAt(status, 'hostIPs');
  if (hostIPs.length > 0) {
    const first = isObject(hostIPs[0]) ? stringAt(hostIPs[0], 'ip') : '';
    if (first !== stringAt(status, 'hostIP')) errs.push(invalidValue(STATUS.child('hostIPs').index(0).child('ip'), first, 'must be equal to `hostIP`'));
    errs.push(...validateIPList(hostIPs, STATUS.child('hostIPs'), true));
  }
  return errs;
}
