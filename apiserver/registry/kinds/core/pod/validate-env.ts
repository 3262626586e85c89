/**
 * Validation of a container's `env` and `envFrom` as Kubernetes v1.32 does it (relaxed variable names:
 * any printable ASCII but '='), including the `valueFrom` rule: exactly one source, and none with `value`.
 */
import { type FieldError, type FieldPath, invalidValue, notSupported, required } from '../../../../validation/field-error.js';
import { isConfigMapKey, isDNS1123Subdomain, isEnvVarName, isQualifiedName } from '../../../../validation/names.js';
import { type JsonObject, arrayAt, objectAt, objectItems, stringAt } from './json-values.js';

/** Pod fields an env var may read through `fieldRef` (labels and annotations take a subscript). */
const ENV_FIELD_PATHS: readonly string[] = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const ENV_FIELD_PATH_SET = new Set(ENV_FIELD_PATHS);

/** Container resources an env var or downward API file may read through `resourceFieldRef`. */
export const RESOURCE_FIELD_PATHS: readonly string[] = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];
const RESOURCE_FIELD_PATH_SET = new Set(RESOURCE_FIELD_PATHS);

const SUBSCRIPTED = /^(metadata\.(?:labels|annotations))\['(.*)'\]$/;

/** `fieldRef`: `supported` lists the plain paths allowed (env vars and volumes differ). */
export function validateObjectFieldSelector(fs: JsonObject, supported: readonly string[], supportedSet: ReadonlySet<string>, path: FieldPath): FieldError[] {
  const apiVersion = stringAt(fs, 'apiVersion');
  const fieldPath = stringAt(fs, 'fieldPath');
  if (apiVersion === '') return [required(path.child('apiVersion'), '')];
  if (fieldPath === '') return [required(path.child('fieldPath'), '')];
  const m = SUBSCRIPTED.exec(fieldPath);
  if (m !== null) {
    const key = m[1] === 'metadata.annotations' ? m[2]!.toLowerCase() : m[2]!;
    return isQualifiedName(key).map((msg) => invalidValue(path, key, msg));
  }
  if (!supportedSet.has(fieldPath)) return [notSupported(path.child('fieldPath'), fieldPath, supported)];
  return [];
}

/** `resourceFieldRef`; volumes also require `containerName`. */
export function validateResourceFieldSelector(fs: JsonObject, path: FieldPath, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (volume && stringAt(fs, 'containerName') === '') errs.push(required(path.child('containerName'), ''));
  const resource = stringAt(fs, 'resource');
  if (resource === '') errs.push(required(path.child('resource'), ''));
  else if (!RESOURCE_FIELD_PATH_SET.has(resource) && !resource.startsWith('limits.hugepages-') && !resource.startsWith('requests.hugepages-')) {
    errs.push(notSupported(path.child('resource'), resource, RESOURCE_FIELD_PATHS));
  }
  return errs;
}

function validateKeySelector(sel: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = stringAt(sel, 'name');
  for (const msg of isDNS1123Subdomain(name)) errs.push(invalidValue(path.child('name'), name, msg));
  const key = stringAt(sel, 'key');
  if (key === '') errs.push(required(path.child('key'), ''));
  else for (const msg of isConfigMapKey(key)) errs.push(invalidValue(path.child('key'), key, msg));
  return errs;
}

function validateValueFrom(ev: JsonObject, path: FieldPath): FieldError[] {
  const from = objectAt(ev, 'valueFrom');
  if (from === undefined) return [];
  const errs: FieldError[] = [];
  let sources = 0;
  const fieldRef = objectAt(from, 'fieldRef');
  if (fieldRef !== undefined) {
    sources++;
    errs.push(...validateObjectFieldSelector(fieldRef, ENV_FIELD_PATHS, ENV_FIELD_PATH_SET, path.child('fieldRef')));
  }
  const resourceFieldRef = objectAt(from, 'resourceFieldRef');
  if (resourceFieldRef !== undefined) {
    sources++;
    errs.push(...validateResourceFieldSelector(resourceFieldRef, path.child('resourceFieldRef'), false));
  }
  const configMapKeyRef = objectAt(from, 'configMapKeyRef');
  if (configMapKeyRef !== undefined) {
    sources++;
    errs.push(...validateKeySelector(configMapKeyRef, path.child('configMapKeyRef')));
  }
  const secretKeyRef = objectAt(from, 'secretKeyRef');
  if (secretKeyRef !== undefined) {
    sources++;
    errs.push(...validateKeySelector(secretKeyRef, path.child('secretKeyRef')));
  }
  if (sources === 0) {
    errs.push(invalidValue(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  } else if (stringAt(ev, 'value') !== '') {
    errs.push(invalidValue(path, '', 'may not be specified when `value` is not empty'));
  } else if (sources > 1) {
    errs.push(invalidValue(path, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}

/** `env`: names required and valid, `valueFrom` well formed. Duplicate names are allowed, as upstream. */
export function validateEnv(container: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, ev] of objectItems(arrayAt(container, 'env'))) {
    const at = path.index(i);
    const name = stringAt(ev, 'name');
    if (name === '') errs.push(required(at.child('name'), ''));
    else for (const msg of isEnvVarName(name)) errs.push(invalidValue(at.child('name'), name, msg));
    errs.push(...validateValueFrom(ev, at.child('valueFrom')));
  }
  return errs;
}

function validateEnvSource(ref: JsonObject, path: FieldPath): FieldError[] {
  const name = stringAt(ref, 'name');
  if (name === '') return [required(path.child('name'), '')];
  return isDNS1123Subdomain(name).map((msg) => invalidValue(path.child('name'), name, msg));
}

/** `envFrom`: exactly one of configMapRef / secretRef per entry; a valid prefix. */
export function validateEnvFrom(container: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, ev] of objectItems(arrayAt(container, 'envFrom'))) {
    const at = path.index(i);
    const prefix = stringAt(ev, 'prefix');
    if (prefix !== '') for (const msg of isEnvVarName(prefix)) errs.push(invalidValue(at.child('prefix'), prefix, msg));
    let sources = 0;
    const configMapRef = objectAt(ev, 'configMapRef');
    if (configMapRef !== undefined) {
      sources++;
      errs.push(...validateEnvSource(configMapRef, at.child('configMapRef')));
    }
    const secretRef = objectAt(ev, 'secretRef');
    if (secretRef !== undefined) {
      sources++;
      errs.push(...validateEnvSource(secretRef, at.child('secretRef')));
    }
    // Kubernetes reports both at the list's path, not the entry's.
    if (sources === 0) errs.push(invalidValue(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(invalidValue(path, '', 'may not have more than one field specified at a time'));
  }
  return errs;
}
