/**
 * Checks on a server-side apply configuration before it is merged, with Kubernetes' answers (all 400):
 *
 * - its apiVersion and kind must be the endpoint's: `invalid object type: /v1, Kind=Secret`;
 * - `metadata.managedFields` must be absent: `metadata.managedFields must be nil`;
 * - every field must be declared by the schema and keyed list elements must carry their keys, without
 *   duplicates: `failed to create typed patch object (ns/name; /v1, Kind=ConfigMap): .datax: field not
 *   declared in schema` (Kubernetes answers these 500, a known bug: kubernetes#122480, #139253).
 */
import type { KubeObject } from '../../api/object.js';
import { badRequest } from '../../errors/constructors.js';
import type { Schema } from '../../schema/schema.js';
import { unknownFields } from '../../schema/unknown-fields.js';
import { FieldPathError, toFieldSet } from './fieldpath/from-object.js';
import { isObject } from '../../api/json.js';

/** Go's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Secret`. */
export function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  const group = slash < 0 ? '' : av.slice(0, slash);
  const version = slash < 0 ? av : av.slice(slash + 1);
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

export interface ApplyTarget {
  readonly apiVersion: string;
  readonly kind: string;
  readonly schema: Schema;
  /** Unknown fields the kind finds itself (KindStrategy.unknownFields). */
  readonly kindUnknown?: (config: Record<string, unknown>) => string[];
  readonly namespace: string;
  readonly name: string;
}

/** Returns the configuration as a KubeObject (a null `metadata` dropped), or throws the 400 Kubernetes answers. */
export function checkApplyConfig(config: unknown, t: ApplyTarget): KubeObject {
  if (!isObject(config)) throw badRequest(`invalid object type: ${gvkString(undefined, undefined)}`);
  if (config.apiVersion !== t.apiVersion || config.kind !== t.kind) throw badRequest(`invalid object type: ${gvkString(config.apiVersion, config.kind)}`);
  const meta = config.metadata;
  // A null or non-object metadata states nothing (Go decodes it to an empty ObjectMeta).
  if (!isObject(meta)) delete config.metadata;
  else if (meta.managedFields !== undefined && meta.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
  const where = `${t.namespace}/${t.name}; ${gvkString(t.apiVersion, t.kind)}`;
  const unknown = unknownFields(config, t.schema);
  if (t.kindUnknown !== undefined) unknown.push(...t.kindUnknown(config));
  if (unknown.length > 0) {
    throw badRequest(`failed to create typed patch object (${where}): ${unknown.map((p) => `.${p}: field not declared in schema`).join('\n')}`);
  }
  try {
    toFieldSet(config, t.schema);
  } catch (err) {
    if (err instanceof FieldPathError) throw badRequest(`failed to create typed patch object (${where}): ${err.message}`);
    throw err;
  }
  return config as unknown as KubeObject;
}
