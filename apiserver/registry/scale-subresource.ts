/**
 * The `scale` sub-resource a kind declares (`KindStrategy.scale`): an autoscaling/v1 Scale view of the
 * object's replica count, served by endpoints/handlers/scale.ts as Kubernetes serves a custom resource's
 * `/scale` (apiextensions' ScaleREST) and the built-in workloads' (apps' ScaleREST):
 *
 * - read: the parent's name, namespace, uid, resourceVersion and creationTimestamp; `spec.replicas` from
 *   `specReplicasPath` (a missing value fails the read with 500, as upstream); `status.replicas` from
 *   `statusReplicasPath` (0 when absent); `status.selector` from `labelSelectorPath` (or the kind's
 *   `selector` hook), omitted when empty;
 * - write: the Scale's `spec.replicas` is written at `specReplicasPath` of the parent, which then goes
 *   through the parent's own update pipeline (its validation, generation, managedFields); the Scale's
 *   resourceVersion, when set, is the update's precondition.
 *
 * Paths are the simple JSON paths of a CRD (`.spec.replicas`): dot-separated field names, the leading dot
 * optional. Values are read as Kubernetes' unstructured accessors read them, with their error texts
 * (`.spec.replicas accessor error: x is of the type string, expected int64`).
 */
import type { KubeObject } from '../api/object.js';
import { invalidValue, type FieldError } from '../validation/field-error.js';
import { isObject } from '../api/json.js';

export interface ScaleSubresource {
  /** Where the desired replicas live (`.spec.replicas`): read into and written from the Scale's `spec.replicas`. */
  readonly specReplicasPath: string;
  /** Where the observed replicas live (`.status.replicas`); 0 when absent. */
  readonly statusReplicasPath: string;
  /** Where a label selector in its string form lives (`.status.selector`); unset: the Scale has none. */
  readonly labelSelectorPath?: string;
  /**
   * Built-in kinds: the Scale's `status.selector` computed from the object (a workload's `spec.selector`
   * as text); wins over `labelSelectorPath`.
   */
  selector?(obj: KubeObject): string;
  /**
   * Built-in kinds: checks of the written Scale itself (Kubernetes' ValidateScale: `spec.replicas` must be
   * greater than or equal to 0), a 422 on kind `Scale` before the parent is touched. Custom resources
   * leave it unset: their own validation (`validateScaleSpec`) refuses a bad count on the parent.
   */
  validateScale?(scale: KubeObject): FieldError[];
}

/** The scale sub-resource of a CRD version's `subresources.scale` (its three paths). */
export function customResourceScale(paths: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string }): ScaleSubresource {
  return Object.freeze({
    specReplicasPath: paths.specReplicasPath,
    statusReplicasPath: paths.statusReplicasPath,
    ...(paths.labelSelectorPath === undefined ? {} : { labelSelectorPath: paths.labelSelectorPath }),
  });
}

/** A path's field names: `.spec.replicas` -> [`spec`, `replicas`]. */
export const pathFields = (path: string): string[] => path.replace(/^\./, '').split('.');

/** An unreadable value (an accessor error of Kubernetes' unstructured helpers). */
export class ScalePathError extends Error {
  override readonly name = 'ScalePathError';
}

type Read<T> = { readonly found: false } | { readonly found: true; readonly value: T };

/** Go's `%T` of a decoded JSON value. */
function goType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'bigint') return 'int64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** Go's `%v` of a decoded JSON value. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  return String(v);
}

const jsonPath = (fields: readonly string[]): string => `.${fields.join('.')}`;

/** The value at `fields` (unstructured.NestedFieldNoCopy): a missing or null step is "not found". */
function nestedField(obj: unknown, fields: readonly string[]): Read<unknown> {
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return { found: false };
    if (!isObject(val)) {
      throw new ScalePathError(`${jsonPath(fields.slice(0, i + 1))} accessor error: ${goValue(val)} is of the type ${goType(val)}, expected map[string]interface{}`);
    }
    if (!Object.prototype.hasOwnProperty.call(val, fields[i]!)) return { found: false };
    val = val[fields[i]!];
  }
  return { found: true, value: val };
}

/** An integer at `path` (unstructured.NestedInt64). Throws ScalePathError for a value of another type. */
export function nestedInteger(obj: unknown, path: string): Read<number> {
  const fields = pathFields(path);
  const r = nestedField(obj, fields);
  if (!r.found) return r;
  const v = r.value;
  if (typeof v === 'bigint') return { found: true, value: Number(v) };
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new ScalePathError(`${jsonPath(fields)} accessor error: ${goValue(v)} is of the type ${goType(v)}, expected int64`);
  }
  return { found: true, value: v };
}

/** A string at `path` (unstructured.NestedString). Throws ScalePathError for a value of another type. */
export function nestedString(obj: unknown, path: string): Read<string> {
  const fields = pathFields(path);
  const r = nestedField(obj, fields);
  if (!r.found) return r;
  if (typeof r.value !== 'string') {
    throw new ScalePathError(`${jsonPath(fields)} accessor error: ${goValue(r.value)} is of the type ${goType(r.value)}, expected string`);
  }
  return { found: true, value: r.value };
}

/**
 * Sets `value` at `path` of `obj` (owned), creating missing objects on the way (unstructured.SetNestedField).
 * Throws ScalePathError when a step is not an object.
 */
export function setNested(obj: Record<string, unknown>, path: string, value: unknown): void {
  const fields = pathFields(path);
  let m = obj;
  for (let i = 0; i < fields.length - 1; i++) {
    const f = fields[i]!;
    const v = m[f];
    if (v === undefined) {
      const created: Record<string, unknown> = {};
      m[f] = created;
      m = created;
    } else if (isObject(v)) {
      m = v;
    } else {
      throw new ScalePathError(`value cannot be set because ${jsonPath(fields.slice(0, i + 1))} is not a map[string]interface{}`);
    }
  }
  m[fields[fields.length - 1]!] = value;
}

/** What a Scale shows of an object. */
export interface ScaleValues {
  /** Undefined when the object has no value at `specReplicasPath`. */
  readonly specReplicas: number | undefined;
  readonly statusReplicas: number;
  readonly selector: string;
}

/** Reads the Scale's values from `obj`. Throws ScalePathError for a value of the wrong type. */
export function readScale(obj: KubeObject, sub: ScaleSubresource): ScaleValues {
  const spec = nestedInteger(obj, sub.specReplicasPath);
  const status = nestedInteger(obj, sub.statusReplicasPath);
  let selector = '';
  if (sub.selector !== undefined) selector = sub.selector(obj);
  else if (sub.labelSelectorPath !== undefined && sub.labelSelectorPath !== '') {
    const s = nestedString(obj, sub.labelSelectorPath);
    if (s.found) selector = s.value;
  }
  return { specReplicas: spec.found ? spec.value : undefined, statusReplicas: status.found ? status.value : 0, selector };
}

/**
 * The autoscaling/v1 Scale of `obj` with `values` (replicas as Go's int32 truncates them). `specReplicas`
 * stands in for a missing value (the handler's marker on patches). The parent's managedFields are not
 * copied: the handler sets the Scale's own when it needs them.
 */
export function scaleObject(obj: KubeObject, values: ScaleValues, specReplicas = values.specReplicas ?? 0): KubeObject {
  const m = obj.metadata;
  const metadata: Record<string, unknown> = { name: m.name };
  if (m.namespace !== undefined && m.namespace !== '') metadata.namespace = m.namespace;
  if (m.uid !== undefined) metadata.uid = m.uid;
  if (m.resourceVersion !== undefined) metadata.resourceVersion = m.resourceVersion;
  metadata.creationTimestamp = m.creationTimestamp ?? null;
  const spec: Record<string, unknown> = {};
  const replicas = int32(specReplicas);
  if (replicas !== 0) spec.replicas = replicas;
  const status: Record<string, unknown> = { replicas: int32(values.statusReplicas) };
  if (values.selector !== '') status.selector = values.selector;
  return { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata, spec, status } as KubeObject;
}

/** Go's int32(x) of an int64. */
const int32 = (x: number): number => Number(BigInt.asIntN(32, BigInt(Math.trunc(x))));

const MAX_INT32 = 2 ** 31 - 1;

/** One replica count checked as Kubernetes' custom resource validator checks it. */
function checkReplicas(obj: KubeObject, path: string): FieldError[] {
  let r: Read<number>;
  try {
    r = nestedInteger(obj, path);
  } catch (err) {
    if (!(err instanceof ScalePathError)) throw err;
    return [invalidValue(path, 0, err.message)];
  }
  if (!r.found) return [];
  if (r.value < 0) return [invalidValue(path, r.value, 'should be a non-negative integer')];
  if (r.value > MAX_INT32) return [invalidValue(path, r.value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/**
 * Kubernetes' ValidateScaleSpec of a custom resource with a scale sub-resource (create and update of the
 * main resource): the value at `specReplicasPath`, when present, is an integer in [0, 2^31-1]. The field
 * path is the JSON path as written in the CRD (`.spec.replicas`).
 */
export function validateScaleSpec(obj: KubeObject, sub: ScaleSubresource): FieldError[] {
  return checkReplicas(obj, sub.specReplicasPath);
}

/**
 * Kubernetes' ValidateScaleStatus (every write, status included): the value at `statusReplicasPath` as
 * for the spec, and a string at `labelSelectorPath` when one is declared.
 */
export function validateScaleStatus(obj: KubeObject, sub: ScaleSubresource): FieldError[] {
  const errs = checkReplicas(obj, sub.statusReplicasPath);
  if (sub.labelSelectorPath !== undefined && sub.labelSelectorPath !== '') {
    try {
      nestedString(obj, sub.labelSelectorPath);
    } catch (err) {
      if (!(err instanceof ScalePathError)) throw err;
      errs.push(invalidValue(sub.labelSelectorPath, '', err.message));
    }
  }
  return errs;
}
