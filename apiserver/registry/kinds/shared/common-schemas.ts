/**
 * Schemas of the nested types several kinds share (Kubernetes v1.32 core/v1 definitions): references to
 * other objects, taints, resource quantities. Frozen: schemas are shared and never change.
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { obj, requiredStr, str, time } from './schema-builders.js';

const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
};

/** `ObjectReference`: enough to inspect or modify the referred object; map-type atomic. */
export const objectReferenceSchema: Schema = deepFreeze(
  obj(
    'A reference to an object, by kind, namespace and name (optionally pinned to a uid or resourceVersion).',
    {
      apiVersion: str('API version of the referent.'),
      fieldPath: str('A field inside the referent when the reference is to part of it, e.g. "spec.containers{name}".'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent.'),
      resourceVersion: str('The resourceVersion of the referent this reference was made to, if any.'),
      uid: str('UID of the referent.'),
    },
    undefined,
    {
      'x-kubernetes-map-type': 'atomic',
      protobuf: { kind: 1, namespace: 2, name: 3, uid: 4, apiVersion: 5, resourceVersion: 6, fieldPath: 7 },
    },
  ),
);

/** `LocalObjectReference`: an object in the same namespace, by name; map-type atomic. */
export const localObjectReferenceSchema: Schema = deepFreeze(
  obj(
    'A reference to an object in the same namespace, by name.',
    { name: str('Name of the referent (an empty value is accepted but almost certainly wrong).', { default: '' }) },
    undefined,
    { 'x-kubernetes-map-type': 'atomic', protobuf: { name: 1 } },
  ),
);

/** The effects a taint may have (TaintEffect), in the order Kubernetes reports them in errors. */
export const TAINT_EFFECTS = Object.freeze(['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const);

/** `Taint`: attached to a node, repels pods that do not tolerate it. */
export const taintSchema: Schema = deepFreeze(
  obj(
    'A taint on a node: pods that do not tolerate it are affected according to its effect.',
    {
      effect: str(
        'What happens to pods that do not tolerate the taint. Valid effects: NoSchedule (new pods are not scheduled), PreferNoSchedule (the scheduler avoids the node), NoExecute (running pods are evicted too).',
        { default: '', enum: ['NoExecute', 'NoSchedule', 'PreferNoSchedule'] },
      ),
      key: requiredStr('The taint key (a qualified name) applied to the node.'),
      timeAdded: time('When the taint was added; only written for NoExecute taints.'),
      value: str('The taint value corresponding to the key (a label value).'),
    },
    ['key', 'effect'],
    { protobuf: { key: 1, value: 2, effect: 3, timeAdded: ptr(4) } },
  ),
);

/** The pattern of `resource.Quantity` strings. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** `resource.Quantity`: a string such as `100m` or `1Gi`, or a bare number. */
export const quantitySchema = (description: string): Schema => ({
  description,
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: QUANTITY_PATTERN,
  protobufType: 'quantity',
});

/** `map[ResourceName]Quantity` (capacity, allocatable). */
export const resourceListSchema = (description: string): Schema => ({ type: 'object', description, additionalProperties: quantitySchema('') });
