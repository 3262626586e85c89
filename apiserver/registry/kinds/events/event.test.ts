import type { KubeObject } from '../../../api/object.js';
import { errorString } from '../../../validation/field-error.js';
import { events } from '../core/event.js';
import { testContext } from '../shared/test-context.js';
import { eventsV1 } from './event.js';
import { eventFromCore, eventToCore } from './event-conversion.js';

const ctx = testContext('k8s.io');

const newStyle = (fields: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name: 'c1.17f0a1b2c3d4e5f6', namespace: 'default' },
  eventTime: '2024-01-01T00:00:00.000001Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Sync',
  reason: 'Synced',
  regarding: { kind: 'ConfigMap', namespace: 'default', name: 'c1' },
  note: 'synced',
  type: 'Normal',
  deprecatedSource: {},
  ...fields,
});

test('a view of the core events: same resource, scope and short names; its own group and schema', () => {
  expect(eventsV1.storedAs.kind).toBe(events);
  expect(eventsV1.groupPrefix).toBe('events');
  expect(eventsV1.resource).toBe('events');
  expect(eventsV1.shortNames).toEqual(['ev']);
  expect(eventsV1.schema.required).toEqual(['eventTime']);
  expect(eventsV1.schema.protobuf).toMatchObject({ eventTime: 2, series: { tag: 3, pointer: true }, regarding: 8, related: { tag: 9, pointer: true }, deprecatedCount: 15 });
});

test('conversion renames the fields both ways and round-trips', () => {
  const v1 = newStyle({
    series: { count: 2, lastObservedTime: '2024-01-01T00:01:00.000000Z' },
    related: { kind: 'Pod', name: 'p' },
    deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
    deprecatedLastTimestamp: '2024-01-01T00:01:00Z',
    deprecatedCount: 4,
    deprecatedSource: { component: 'c', host: 'h' },
  });
  const before = structuredClone(v1);
  const core = eventToCore(v1);
  expect(v1).toEqual(before);
  expect(core).toMatchObject({
    involvedObject: v1.regarding,
    message: 'synced',
    reportingComponent: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    source: { component: 'c', host: 'h' },
    firstTimestamp: '2024-01-01T00:00:00Z',
    lastTimestamp: '2024-01-01T00:01:00Z',
    count: 4,
    series: v1.series,
    related: v1.related,
    eventTime: v1.eventTime,
    action: 'Sync',
    reason: 'Synced',
    type: 'Normal',
  });
  for (const k of ['regarding', 'note', 'reportingController', 'deprecatedSource', 'deprecatedCount']) expect(core).not.toHaveProperty(k);
  expect(eventFromCore(core)).toEqual(v1);
});

test('empty reporting fields: always written in core, omitted in events.k8s.io (as Go)', () => {
  const core = eventToCore(newStyle({ reportingController: undefined, reportingInstance: undefined }));
  expect(core.reportingComponent).toBe('');
  expect(core.reportingInstance).toBe('');
  const back = eventFromCore(core);
  expect(back).not.toHaveProperty('reportingController');
  expect(back).not.toHaveProperty('reportingInstance');
});

test('validation is the strict core one on the converted object, naming the core fields', () => {
  expect(eventsV1.validate(newStyle(), ctx)).toEqual([]);
  const errs = eventsV1.validate(newStyle({ type: 'Odd', deprecatedCount: 2, note: 'n'.repeat(1025) }), ctx).map(errorString);
  expect(errs).toEqual([
    'message: Invalid value: "": can have at most 1024 characters',
    'type: Invalid value: "": has invalid value: Odd',
    'count: Invalid value: "": needs to be unset',
  ]);
  const updateCtx = testContext('k8s.io', 'default', '', 'update');
  expect(eventsV1.validate(newStyle({ type: 'Odd' }), updateCtx)).toEqual([]);
  expect(eventsV1.validateUpdate(newStyle({ note: 'changed' }), newStyle(), updateCtx).map(errorString)).toEqual([
    'message: Invalid value: "changed": field is immutable',
  ]);
});

test('field selectors use the new names and read the stored (core) object', () => {
  const stored = eventToCore(newStyle());
  const f = eventsV1.selectableFields;
  expect(Object.keys(f).sort()).toEqual([
    'reason',
    'regarding.apiVersion',
    'regarding.fieldPath',
    'regarding.kind',
    'regarding.name',
    'regarding.namespace',
    'regarding.resourceVersion',
    'regarding.uid',
    'reportingController',
    'source',
    'type',
  ]);
  expect(f['regarding.name']!(stored)).toBe('c1');
  expect(f.reportingController!(stored)).toBe('example.com/ctl');
  expect(f.source!(stored)).toBe('example.com/ctl');
});

test('the table is the core one, on the converted object', () => {
  const cells = eventsV1.table.cells(newStyle(), new Date('2024-01-01T00:01:00Z'));
  expect(cells.slice(0, 9)).toEqual(['60s', 'Normal', 'Synced', 'configmap/c1', '', 'example.com/ctl, ctl-1', 'synced', '60s', 1]);
});
