/** Checks of file paths and file modes inside volumes and mounts, with Kubernetes' messages. */
import { type FieldError, type FieldPath, invalidValue } from '../../../../validation/field-error.js';

export const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';

/** A path without `..` elements. */
export function validatePathNoBacksteps(target: string, path: FieldPath): FieldError[] {
  for (const part of target.split('/')) if (part === '..') return [invalidValue(path, target, "must not contain '..'")];
  return [];
}

/** A relative path without `..` elements (subPath, subPathExpr). */
export function validateLocalDescendingPath(target: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(invalidValue(path, target, 'must be a relative path'));
  errs.push(...validatePathNoBacksteps(target, path));
  return errs;
}

/** A relative path that does not start with `..` (projected and downward API file paths). */
export function validateLocalNonReservedPath(target: string, path: FieldPath): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.length > 1 && target.startsWith('..')) errs.push(invalidValue(path, target, "must not start with '..'"));
  return errs;
}

/** A file mode (0..0777), when set. */
export function validateFileMode(mode: unknown, path: FieldPath): FieldError[] {
  return typeof mode === 'number' && (mode > 0o777 || mode < 0) ? [invalidValue(path, mode, FILE_MODE_ERROR)] : [];
}
