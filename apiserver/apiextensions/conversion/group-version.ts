/**
 * Group/version/kind text as Kubernetes prints it in conversion errors (apimachinery `schema`):
 * `GroupVersionKind.String()` is `<group>/<version>, Kind=<kind>` (always with the slash, so an empty one
 * reads `/, Kind=`), `GroupVersion.String()` is `<version>` for the core group, else `<group>/<version>`.
 */
import { isObject, type JsonObject } from '../../api/json.js';

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/**
 * `apiVersion` split as `schema.ParseGroupVersion` does: `''` is empty, `v1` is the core group, `a/b` is
 * group `a` version `b`; anything with more slashes does not parse (`undefined`), and an object whose
 * apiVersion does not parse has an empty group/version, as Unstructured reports it.
 */
export function parseApiVersion(apiVersion: string): GroupVersion | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

export function groupVersionString(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** The string fields `apiVersion` and `kind` of a JSON object (`''` when absent or not strings). */
export function typeMeta(obj: unknown): { apiVersion: string; kind: string } {
  const o = isObject(obj) ? obj : {};
  return {
    apiVersion: typeof o['apiVersion'] === 'string' ? o['apiVersion'] : '',
    kind: typeof o['kind'] === 'string' ? o['kind'] : '',
  };
}

/** The object's group/version as Unstructured reads it (empty when its apiVersion does not parse). */
export function objectGroupVersion(obj: unknown): GroupVersion {
  return parseApiVersion(typeMeta(obj).apiVersion) ?? { group: '', version: '' };
}

/** `GroupVersionKind.String()` of an object (or list) from its apiVersion and kind. */
export function gvkString(obj: unknown): string {
  const gv = objectGroupVersion(obj);
  return `${gv.group}/${gv.version}, Kind=${typeMeta(obj).kind}`;
}

export type { JsonObject };
