/**
 * Event (core/v1): a report of something that happened to an object, kept for `--event-ttl` (default 1 h;
 * the store expires them). The stored shape of events: events.k8s.io/v1 Events (kinds/events/event.ts)
 * are the same objects seen through another shape.
 *
 * As Kubernetes v1.32: names are only path segments (event names carry a hex timestamp suffix), a PUT of
 * a missing event creates it (recorders update-or-create), validation is event-validation.ts with the
 * legacy rules this API keeps for old clients, and the table is kubectl's LAST SEEN, TYPE, REASON, OBJECT,
 * MESSAGE (+ SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME with `-o wide`).
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { humanDuration } from '../shared/human-duration.js';
import { int32, requiredStr, str, time } from '../shared/schema-builders.js';
import { column, table } from '../shared/table.js';
import { eventSeriesSchema, eventSource, microTime, optionalReference, requiredReference } from './event-schemas.js';
import { validateEventCreate, validateEventUpdate } from './event-validation.js';

const schema = kindSchema(
  'Event is a report of an event somewhere in the cluster. Events have a limited retention time; treat them as informative, best-effort, supplemental data.',
  {
    action: str('What action was taken or failed regarding the involved object.'),
    count: int32('The number of times this event has occurred.'),
    eventTime: microTime('Time when this event was first observed (set by new-style recorders).'),
    firstTimestamp: time('The time at which the event was first recorded.'),
    involvedObject: requiredReference('The object this event is about.'),
    lastTimestamp: time('The time at which the most recent occurrence of this event was recorded.'),
    message: str('A human-readable description of the status of this operation.'),
    reason: str('A short, machine-understandable string giving the reason for the transition into the object\'s current status.'),
    related: optionalReference('An optional secondary object for more complex actions.'),
    reportingComponent: requiredStr('Name of the controller that emitted this event, e.g. `kubernetes.io/kubelet`.'),
    reportingInstance: requiredStr('ID of the controller instance, e.g. `kubelet-xyzf`.'),
    series: eventSeriesSchema('Data about the event series this event represents, or absent for a singleton event.'),
    source: eventSource('The component reporting this event. Should be a short machine-understandable string.'),
    type: str('Type of this event (Normal, Warning); new types could be added in the future.'),
  },
  ['involvedObject'],
  {
    involvedObject: 2, reason: 3, message: 4, source: 5, firstTimestamp: 6, lastTimestamp: 7, count: 8, type: 9, eventTime: 10,
    series: ptr(11), action: 12, related: ptr(13), reportingComponent: 14, reportingInstance: 15,
  },
);

type Fields = Record<string, unknown>;
const record = (v: unknown): Fields => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** kubectl's elapsed time since a Time or MicroTime; a zero (absent) time prints `<unknown>`. */
function since(ts: unknown, now: Date): string {
  const t = typeof ts === 'string' && ts !== '' ? Date.parse(ts) : Number.NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now.getTime() - t);
}

/** SOURCE: component (else reportingComponent), then `, host` (else reportingInstance) when there is one. */
function sourceCell(ev: KubeObject): string {
  const source = record(ev.source);
  const component = text(source.component) || text(ev.reportingComponent);
  const instance = text(source.host) || text(ev.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
}

/**
 * The row of one event, as kube's printer computes it: FIRST SEEN from firstTimestamp (else eventTime),
 * LAST SEEN from lastTimestamp (else FIRST SEEN) or the series' last observation, COUNT from the series,
 * else `count`, else 1 (singletons of the new API have none); OBJECT is `kind/name` in lower case.
 */
export function eventCells(ev: KubeObject, now: Date): readonly unknown[] {
  const involved = record(ev.involvedObject);
  const first = text(ev.firstTimestamp) !== '' ? since(ev.firstTimestamp, now) : since(ev.eventTime, now);
  let last = text(ev.lastTimestamp) !== '' ? since(ev.lastTimestamp, now) : first;
  let count = int(ev.count);
  if (ev.series !== undefined && ev.series !== null) {
    const series = record(ev.series);
    last = since(series.lastObservedTime, now);
    count = int(series.count);
  } else if (count === 0) {
    count = 1;
  }
  const kind = text(involved.kind).toLowerCase();
  const name = text(involved.name);
  const target = name === '' ? kind : `${kind}/${name}`;
  return [
    last,
    text(ev.type),
    text(ev.reason),
    target,
    text(involved.fieldPath),
    sourceCell(ev),
    text(ev.message).trim(),
    first,
    count,
    ev.metadata.name ?? '',
  ];
}

/** kubectl's columns for events (kube types COUNT `string` although its cells are numbers). */
export const eventTable = table(
  [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning).'),
    column('Reason', 'string', 'A short, machine-understandable reason for the event.'),
    column('Object', 'string', 'The object this event is about.'),
    column('Subobject', 'string', 'The field of the object this event is about, if any.', 1),
    column('Source', 'string', 'The component reporting this event.', 1),
    column('Message', 'string', 'A human-readable description of the event.'),
    column('First Seen', 'string', 'The time at which the event was first recorded.', 1),
    column('Count', 'string', 'The number of times this event has occurred.', 1),
    Object.freeze({ name: 'Name', type: 'string', format: 'name', description: 'Name of the event, unique within its namespace.', priority: 1 }),
  ],
  eventCells,
);

const involved = (field: string) => (ev: KubeObject): string => text(record(ev.involvedObject)[field]);

/** The field labels Kubernetes selects events by (`kubectl describe` uses the involvedObject ones). */
export const eventSelectableFields = Object.freeze({
  'involvedObject.kind': involved('kind'),
  'involvedObject.namespace': involved('namespace'),
  'involvedObject.name': involved('name'),
  'involvedObject.uid': involved('uid'),
  'involvedObject.apiVersion': involved('apiVersion'),
  'involvedObject.resourceVersion': involved('resourceVersion'),
  'involvedObject.fieldPath': involved('fieldPath'),
  reason: (ev: KubeObject) => text(ev.reason),
  reportingComponent: (ev: KubeObject) => text(ev.reportingComponent),
  // The old source component, else the new API's reporting controller.
  source: (ev: KubeObject) => text(record(ev.source).component) || text(ev.reportingComponent),
  type: (ev: KubeObject) => text(ev.type),
});

export const events = Object.freeze({
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
  table: eventTable,
  selectableFields: eventSelectableFields,

  validate(ev: KubeObject, ctx: StrategyContext): FieldError[] {
    // Updates are checked by validateUpdate alone, as Kubernetes' ValidateEventUpdate.
    return ctx.operation === 'update' ? [] : validateEventCreate(ev, { naming: ctx.naming, strict: false });
  },

  validateUpdate(ev: KubeObject, old: KubeObject, ctx: StrategyContext): FieldError[] {
    return validateEventUpdate(ev, old, { naming: ctx.naming, strict: false });
  },
} satisfies KindStrategy);
