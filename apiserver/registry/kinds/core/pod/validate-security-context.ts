/** Validation of the container and pod `securityContext`: user and group ids, and Kubernetes' combinations. */
import { type FieldError, type FieldPath, invalidValue, notSupported } from '../../../../validation/field-error.js';
import { type JsonObject, arrayAt, numberAt, objectAt, stringAt } from './json-values.js';

const MAX_ID = 0xffffffff;
const ID_RANGE_ERROR = `must be between 0 and ${MAX_ID}, inclusive`;

function validateId(sc: JsonObject, field: string, path: FieldPath): FieldError[] {
  const v = numberAt(sc, field);
  return v !== undefined && (v < 0 || v > MAX_ID) ? [invalidValue(path.child(field), v, ID_RANGE_ERROR)] : [];
}

/** A container's `securityContext`. */
export function validateSecurityContext(container: JsonObject, path: FieldPath): FieldError[] {
  const sc = objectAt(container, 'securityContext');
  if (sc === undefined) return [];
  const errs = [...validateId(sc, 'runAsUser', path), ...validateId(sc, 'runAsGroup', path)];
  if (sc.allowPrivilegeEscalation === false && sc.privileged === true) {
    errs.push(invalidValue(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
  }
  const caps = objectAt(sc, 'capabilities');
  if (sc.allowPrivilegeEscalation === false && caps !== undefined && arrayAt(caps, 'add').includes('CAP_SYS_ADMIN')) {
    errs.push(invalidValue(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  return errs;
}

const FS_GROUP_CHANGE_POLICIES: readonly string[] = ['Always', 'OnRootMismatch'];

/** The pod's `securityContext` (`path` is `spec.securityContext`). */
export function validatePodSecurityContext(spec: JsonObject, path: FieldPath): FieldError[] {
  const sc = objectAt(spec, 'securityContext');
  if (sc === undefined) return [];
  const errs = [...validateId(sc, 'runAsUser', path), ...validateId(sc, 'runAsGroup', path), ...validateId(sc, 'fsGroup', path)];
  const groups = arrayAt(sc, 'supplementalGroups');
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    if (typeof g === 'number' && (g < 0 || g > MAX_ID)) errs.push(invalidValue(path.child('supplementalGroups').index(i), g, ID_RANGE_ERROR));
  }
  if (typeof sc.fsGroupChangePolicy === 'string' && !FS_GROUP_CHANGE_POLICIES.includes(sc.fsGroupChangePolicy)) {
    errs.push(notSupported(path.child('fsGroupChangePolicy'), stringAt(sc, 'fsGroupChangePolicy'), FS_GROUP_CHANGE_POLICIES));
  }
  return errs;
}
