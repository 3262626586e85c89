import type { KubeObject } from '../../../api/object.js';
import { errorString } from '../../../validation/field-error.js';
import { testContext } from '../shared/test-context.js';
import { eventCells, events } from './event.js';
import { validateEventCreate, validateEventUpdate } from './event-validation.js';

const ctx = testContext();
const updateCtx = testContext('platform.io', 'default', '', 'update');

const ev = (fields: Record<string, unknown> = {}, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'c1.17f0a1b2c3d4e5f6', namespace },
  involvedObject: { kind: 'ConfigMap', namespace, name: 'c1', uid: 'u-1', apiVersion: 'v1' },
  reason: 'Synced',
  message: 'synced  ',
  source: { component: 'demo-controller' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:05:00Z',
  count: 3,
  type: 'Normal',
  reportingComponent: '',
  reportingInstance: '',
  ...fields,
});

const create = (obj: KubeObject): string[] => events.validate(obj, ctx).map(errorString);
const strictCreate = (obj: KubeObject): string[] => validateEventCreate(obj, { naming: ctx.naming, strict: true }).map(errorString);
const update = (obj: KubeObject, old: KubeObject, strict = false): string[] =>
  (strict ? validateEventUpdate(obj, old, { naming: ctx.naming, strict: true }) : [...events.validate(obj, updateCtx), ...events.validateUpdate(obj, old, updateCtx)]).map(
    errorString,
  );

test('discovery data: namespaced, short name ev, path-segment names, PUT creates', () => {
  expect(events.resource).toBe('events');
  expect(events.shortNames).toEqual(['ev']);
  expect(events.nameRule).toBe('path-segment');
  expect(events.allowCreateOnUpdate).toBe(true);
  expect(events.schema.protobuf).toMatchObject({ metadata: 1, involvedObject: 2, eventTime: 10, series: { tag: 11, pointer: true }, reportingInstance: 15 });
  expect(events.schema.properties!.eventTime!.protobufType).toBe('microtime');
  expect(events.schema.properties!.source!.protobuf).toEqual({ component: 1, host: 2 });
});

describe('legacy validation (core v1 writes)', () => {
  test('an old-style event is valid', () => {
    expect(create(ev())).toEqual([]);
  });

  test('involvedObject.namespace must match the event namespace', () => {
    expect(create(ev({ involvedObject: { kind: 'ConfigMap', namespace: 'other', name: 'c1' } }))).toEqual([
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ]);
  });

  test('events about cluster-scoped objects live in default', () => {
    const about = { involvedObject: { kind: 'Namespace', name: 'demo' } };
    expect(create(ev(about, 'default'))).toEqual([]);
    expect(create(ev(about, 'demo'))).toEqual(['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
  });

  test('with eventTime: reporting controller, instance, action and reason are required; lengths are bounded', () => {
    const base = { eventTime: '2024-01-01T00:00:00.000001Z', reason: '' };
    // An empty controller also fails the qualified-name checks, as upstream reports it.
    expect(create(ev(base))).toEqual([
      'reportingController: Required value',
      'reportingController: Invalid value: "": name part must be non-empty',
      expect.stringMatching(/^reportingController: Invalid value: "": name part must consist of/),
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
    ]);
    expect(
      create(
        ev({
          eventTime: '2024-01-01T00:00:00.000001Z',
          reportingComponent: 'not a name!',
          reportingInstance: 'i'.repeat(129),
          action: 'a'.repeat(129),
          reason: 'r'.repeat(129),
          message: 'm'.repeat(1025),
        }),
      ),
    ).toEqual([
      'reportingController: Invalid value: "not a name!": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'action: Invalid value: "": can have at most 128 characters',
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
  });

  test('with eventTime, events about cluster-scoped objects may also live in the system namespace', () => {
    const newStyle = { eventTime: '2024-01-01T00:00:00.000001Z', reportingComponent: 'ctl', reportingInstance: 'ctl-1', action: 'Sync', involvedObject: { kind: 'Node', name: 'n1' } };
    expect(create(ev(newStyle, 'platform-system'))).toEqual([]);
    expect(create(ev(newStyle, 'demo'))).toEqual(['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
  });

  test('updates through core v1 may change anything (legacy), once validated', () => {
    const old = ev();
    expect(update(ev({ count: 4, message: 'other', reason: 'Changed' }), old)).toEqual([]);
    expect(update(ev({ involvedObject: { kind: 'ConfigMap', namespace: 'x', name: 'c1' } }), old)).toEqual([
      'involvedObject.namespace: Invalid value: "x": does not match event.namespace',
    ]);
  });
});

describe('strict validation (events.k8s.io writes, on the core shape)', () => {
  const fresh = (fields: Record<string, unknown> = {}): KubeObject =>
    ev({
      firstTimestamp: undefined,
      lastTimestamp: undefined,
      count: undefined,
      source: {},
      eventTime: '2024-01-01T00:00:00.000001Z',
      reportingComponent: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Sync',
      ...fields,
    });

  test('a new-style event is valid', () => {
    expect(strictCreate(fresh())).toEqual([]);
  });

  test('type Normal or Warning, deprecated fields unset, series well formed, DNS name', () => {
    const bad = fresh({
      type: 'Odd',
      firstTimestamp: '2024-01-01T00:00:00Z',
      lastTimestamp: '2024-01-01T00:00:00Z',
      count: 2,
      source: { host: 'n1' },
      series: { count: 1 },
      metadata: { name: 'Upper_Case', namespace: 'default' },
    });
    expect(strictCreate(bad)).toEqual([
      'metadata.name: Invalid value: "Upper_Case": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
      'type: Invalid value: "": has invalid value: Odd',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'lastTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
  });

  test('updates may change the series only', () => {
    const old = fresh();
    expect(update(fresh({ series: { count: 2, lastObservedTime: '2024-01-01T00:01:00.000000Z' } }), old, true)).toEqual([]);
    expect(update(fresh({ series: { count: 1, lastObservedTime: '2024-01-01T00:01:00.000000Z' } }), old, true)).toEqual([
      'series.count: Invalid value: "": should be at least 2',
    ]);
    expect(update(fresh({ message: 'changed', reportingComponent: 'example.com/other' }), old, true)).toEqual([
      'message: Invalid value: "changed": field is immutable',
      'reportingController: Invalid value: "example.com/other": field is immutable',
    ]);
  });
});

describe('table', () => {
  const now = new Date('2024-01-01T00:10:00Z');

  test('columns as kubectl shows them; wide ones have priority 1', () => {
    const cols = events.table.columns;
    expect(cols.map((c) => c.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    expect(cols.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
  });

  test('an old-style event: last and first seen from the timestamps, count, source, kind/name', () => {
    expect(eventCells(ev({ involvedObject: { kind: 'ConfigMap', name: 'c1', fieldPath: 'data' } }), now)).toEqual([
      '5m',
      'Normal',
      'Synced',
      'configmap/c1',
      'data',
      'demo-controller',
      'synced',
      '10m',
      3,
      'c1.17f0a1b2c3d4e5f6',
    ]);
  });

  test('a new-style event: eventTime, a singleton counts 1, the series wins, reporting controller as source', () => {
    const fresh = ev({
      firstTimestamp: undefined,
      lastTimestamp: undefined,
      count: undefined,
      source: {},
      eventTime: '2024-01-01T00:08:00.123456Z',
      reportingComponent: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      involvedObject: { kind: 'Node' },
    });
    expect(eventCells(fresh, now).slice(0, 9)).toEqual(['119s', 'Normal', 'Synced', 'node', '', 'example.com/ctl, ctl-1', 'synced', '119s', 1]);
    const series = { ...fresh, series: { count: 7, lastObservedTime: '2024-01-01T00:09:30.000000Z' } };
    expect(eventCells(series, now)[0]).toBe('30s');
    expect(eventCells(series, now)[8]).toBe(7);
    expect(eventCells(ev({ firstTimestamp: undefined, lastTimestamp: undefined }), now)[0]).toBe('<unknown>');
  });
});

test('selectable fields: involvedObject.*, reason, reportingComponent, source (else the reporting controller), type', () => {
  const f = events.selectableFields;
  const obj = ev();
  expect(f['involvedObject.name'](obj)).toBe('c1');
  expect(f['involvedObject.uid'](obj)).toBe('u-1');
  expect(f['involvedObject.kind'](obj)).toBe('ConfigMap');
  expect(f.source(obj)).toBe('demo-controller');
  expect(f.source(ev({ source: {}, reportingComponent: 'example.com/ctl' }))).toBe('example.com/ctl');
  expect(f.type(obj)).toBe('Normal');
  expect(f.reason(obj)).toBe('Synced');
});
