import type { KubeObject } from '../../api/object.js';
import { applyToObject, trackUpdateOnObject, type WriteContext } from './field-manager.js';
import { testSchema } from './testing/test-schema.js';

const w = (manager: string, time = '2024-01-01T00:00:00Z'): WriteContext => ({ manager, apiVersion: 'v1', subresource: '', time, scope: 'all', schema: testSchema });
const obj = (data: Record<string, string>, managedFields?: unknown): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x', ...(managedFields === undefined ? {} : { managedFields }) }, data }) as KubeObject;

describe('managedFields on objects', () => {
  test('update: absent, empty or malformed client managedFields keep the live ones; one empty entry resets', () => {
    const live = obj({ a: '1' });
    trackUpdateOnObject(undefined, live, w('c'));
    const liveEntries = live.metadata.managedFields;
    for (const incoming of [undefined, [], [{ operation: 'Bogus' }]]) {
      const next = obj({ a: '1' }, incoming);
      trackUpdateOnObject(live, next, w('u'));
      expect(next.metadata.managedFields).toEqual(liveEntries);
    }
    const reset = obj({ a: '1', b: '2' }, [{}]);
    trackUpdateOnObject(live, reset, w('r'));
    expect(reset.metadata.managedFields).toEqual([{ manager: 'r', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:b': {} } } }]);
  });

  test('update: an object the algebra cannot walk is written without managedFields', () => {
    const live = obj({ a: '1' });
    trackUpdateOnObject(undefined, live, w('c'));
    const next = { ...obj({ a: '1' }), items: [{ value: 'no key' }], metadata: { name: 'x', managedFields: live.metadata.managedFields } } as KubeObject;
    trackUpdateOnObject(live, next, w('u'));
    expect(next.metadata.managedFields).toBeUndefined();
  });

  test('apply: result owns the configuration, the live object is not changed', () => {
    const live = obj({ a: '1' });
    trackUpdateOnObject(undefined, live, w('creator'));
    const snapshot = structuredClone(live);
    const { object, changed } = applyToObject(live, obj({ b: '2' }), w('applier', '2024-03-03T00:00:00Z'), false);
    expect(changed).toBe(true);
    expect(live).toEqual(snapshot);
    expect(object.data).toEqual({ a: '1', b: '2' });
    expect(object.metadata.managedFields?.map((e) => [e.manager, e.operation, e.time])).toEqual([
      ['applier', 'Apply', '2024-03-03T00:00:00Z'],
      ['creator', 'Update', '2024-01-01T00:00:00Z'],
    ]);
  });
});
