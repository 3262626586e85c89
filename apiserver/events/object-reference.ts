/**
 * The `ObjectReference` an event is about (client-go's `reference.GetReference`): kind, apiVersion,
 * namespace, name, uid and resourceVersion of the object as the caller has it.
 */
import type { KubeObject } from '../api/object.js';

export interface ObjectReference {
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
  readonly apiVersion?: string;
  readonly resourceVersion?: string;
  readonly fieldPath?: string;
}

/** The reference of `obj`; empty fields are left out, as Go's omitempty does. */
export function referenceOf(obj: KubeObject): ObjectReference {
  const m = obj.metadata;
  const ref: Record<string, string> = {};
  const put = (k: keyof ObjectReference, v: unknown): void => {
    if (typeof v === 'string' && v !== '') ref[k] = v;
  };
  put('kind', obj.kind);
  put('namespace', m.namespace);
  put('name', m.name);
  put('uid', m.uid);
  put('apiVersion', obj.apiVersion);
  put('resourceVersion', m.resourceVersion);
  return ref;
}
