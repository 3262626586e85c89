/**
 * Event (`events.<domain>/v1`: events.k8s.io/v1 under `--group-domain=k8s.io`): the core Events seen
 * through the new API's shape, as Kubernetes v1.32 serves them: the same stored objects (keys under
 * `/registry/events/`, one watch cache), converted by event-conversion.ts at the storage boundary
 * (KindStrategy.storedAs).
 *
 * Validation is the core kind's on the converted object, with the new API's strict rules (eventTime,
 * Normal/Warning, no deprecated fields on create; everything but the series frozen on update), so messages
 * name the core fields as upstream's do. Field selectors use the new names (`regarding.name`,
 * `reportingController`), read from the stored object as Kubernetes maps them to the core labels. The
 * table is the core one.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { int32, str, time } from '../shared/schema-builders.js';
import { table } from '../shared/table.js';
import { eventCells, eventSelectableFields, eventTable, events as coreEvents } from '../core/event.js';
import { eventSeriesSchema, eventSource, microTime, optionalReference, requiredReference } from '../core/event-schemas.js';
import { validateEventCreate, validateEventUpdate } from '../core/event-validation.js';
import { eventFromCore, eventToCore } from './event-conversion.js';

const schema = kindSchema(
  'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time; treat them as informative, best-effort, supplemental data.',
  {
    action: str('What action was taken or failed regarding the regarding object. Machine-readable; at most 128 characters.'),
    deprecatedCount: int32('Deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedFirstTimestamp: time('Deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedLastTimestamp: time('Deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedSource: eventSource('Deprecated field assuring backward compatibility with core.v1 Event type.'),
    eventTime: microTime('The time when this Event was first observed. Required.'),
    note: str('A human-readable description of the status of this operation. At most 1 kB.'),
    reason: str('Why the action was taken. Human-readable; at most 128 characters.'),
    regarding: requiredReference('The object this Event is about.'),
    related: optionalReference('An optional secondary object for more complex actions.'),
    reportingController: str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. Required for new Events.'),
    reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`. Required for new Events; at most 128 characters.'),
    series: eventSeriesSchema('Data about the Event series this event represents, or absent for a singleton Event.'),
    type: str('Type of this event (Normal, Warning); new types could be added in the future. Required for new Events.'),
  },
  ['eventTime'],
  {
    eventTime: 2, series: ptr(3), reportingController: 4, reportingInstance: 5, action: 6, reason: 7, regarding: 8, related: ptr(9),
    note: 10, type: 11, deprecatedSource: 12, deprecatedFirstTimestamp: 13, deprecatedLastTimestamp: 14, deprecatedCount: 15,
  },
);

/** The new API's field labels -> the core kind's (what Kubernetes' field label conversion maps them to). */
const LABELS: Readonly<Record<string, keyof typeof eventSelectableFields>> = {
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reason: 'reason',
  reportingController: 'reportingComponent',
  source: 'source',
  type: 'type',
};

const strict = (ctx: StrategyContext) => ({ naming: ctx.naming, strict: true });

export const eventsV1 = Object.freeze({
  groupPrefix: 'events',
  group: '',
  version: 'v1',
  kind: 'Event',
  resource: 'events',
  singular: 'event',
  namespaced: true,
  shortNames: Object.freeze(['ev']),
  schema,
  nameRule: 'path-segment',
  allowCreateOnUpdate: true,
  storedAs: Object.freeze({ kind: coreEvents, toStorage: eventToCore, fromStorage: eventFromCore }),
  table: table(eventTable.columns, (ev, now) => eventCells(eventToCore(ev), now)),
  // Read from the stored (core) object: see KindStrategy.storedAs.
  selectableFields: Object.freeze(Object.fromEntries(Object.entries(LABELS).map(([label, core]) => [label, eventSelectableFields[core]]))),

  validate(ev: KubeObject, ctx: StrategyContext): FieldError[] {
    return ctx.operation === 'update' ? [] : validateEventCreate(eventToCore(ev), strict(ctx));
  },

  validateUpdate(ev: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[] {
    return validateEventUpdate(eventToCore(ev), eventToCore(old), strict(ctx));
  },
} satisfies KindStrategy);
