/**
 * The nested types both Event kinds share (core/v1 `EventSource`, `EventSeries`, `ObjectReference`), with
 * their protobuf field numbers (kubernetes/api core/v1 generated.proto). events.k8s.io/v1 has its own
 * EventSeries message with the same fields and numbers.
 */
import type { Schema } from '../../../schema/schema.js';
import { objectReferenceSchema } from '../shared/common-schemas.js';
import { int32, obj, str, struct } from '../shared/schema-builders.js';

/** `metav1.MicroTime`: RFC 3339 with microseconds in JSON, its own message in protobuf. */
export const microTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description, protobufType: 'microtime' });

/** `ObjectReference` with its protobuf numbers. */
export const eventReferenceSchema: Schema = Object.freeze({
  ...objectReferenceSchema,
  protobuf: { kind: 1, namespace: 2, name: 3, uid: 4, apiVersion: 5, resourceVersion: 6, fieldPath: 7 },
});

/** A struct-valued reference (Go: not a pointer, so `{}` when absent). */
export const requiredReference = (description: string): Schema => struct(eventReferenceSchema, description);
/** An optional reference (Go: a pointer). */
export const optionalReference = (description: string): Schema => ({ ...eventReferenceSchema, description });

/** `EventSource`, a struct-valued field (Go: not a pointer, so `{}` when absent). */
export const eventSource = (description: string): Schema =>
  struct(
    obj(
      'The component (and host) that reported an event.',
      {
        component: str('The component that generated the event.'),
        host: str('The node name on which the event was generated.'),
      },
      undefined,
      { protobuf: { component: 1, host: 2 } },
    ),
    description,
  );

export const eventSeriesSchema = (description: string): Schema =>
  obj(
    description,
    {
      count: int32('Number of occurrences in this series up to the last heartbeat time.'),
      lastObservedTime: microTime('Time of the last occurrence observed.'),
    },
    undefined,
    { protobuf: { count: 1, lastObservedTime: 2 } },
  );
