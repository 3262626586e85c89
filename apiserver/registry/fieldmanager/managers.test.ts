import { decodeFieldsV1 } from './fieldpath/fields-v1.js';
import { decodeManagedFields, encodeManagedFields, isResetRequest, ManagedFieldsError, managerId } from './managers.js';

const entry = (o: Record<string, unknown>) => ({ apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } }, ...o });

describe('managed fields entries', () => {
  test('identity: appliers without apiVersion, updaters with it, sub-resource when set', () => {
    expect(managerId({ manager: 'm', operation: 'Apply', apiVersion: 'v1', subresource: '' })).toBe('{"manager":"m","operation":"Apply"}');
    expect(managerId({ manager: 'm', operation: 'Update', apiVersion: 'v1', subresource: 'status' })).toBe('{"manager":"m","operation":"Update","apiVersion":"v1","subresource":"status"}');
  });

  test('round trip, sorted Apply first, then by time, manager, apiVersion, sub-resource', () => {
    const input = [
      entry({ manager: 'u2', operation: 'Update', time: '2024-01-02T00:00:00Z' }),
      entry({ manager: 'u1', operation: 'Update', time: '2024-01-02T00:00:00Z' }),
      entry({ manager: 'u0', operation: 'Update', time: '2024-01-01T00:00:00Z' }),
      entry({ manager: 'a', operation: 'Apply', time: '2024-01-03T00:00:00Z', subresource: 'status' }),
    ];
    const out = encodeManagedFields(decodeManagedFields(input))!;
    expect(out.map((e) => e.manager)).toEqual(['a', 'u0', 'u1', 'u2']);
    expect(out[0]).toEqual(input[3]);
  });

  test('entries of one identity are merged; empty sets are not written', () => {
    const m = decodeManagedFields([
      entry({ manager: 'x', operation: 'Update', fieldsV1: { 'f:data': { 'f:a': {} } } }),
      entry({ manager: 'x', operation: 'Update', fieldsV1: { 'f:data': { 'f:b': {} } } }),
      entry({ manager: 'y', operation: 'Update', fieldsV1: {} }),
    ]);
    expect(m.size).toBe(2);
    expect(encodeManagedFields(m)).toEqual([{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } }]);
    expect(encodeManagedFields(new Map())).toBeUndefined();
  });

  test.each([
    [[entry({ operation: 'Bogus' })], 'operation must be `Apply` or `Update`'],
    [[entry({ operation: 'Update', apiVersion: '' })], 'apiVersion must not be empty'],
    [[entry({ operation: 'Update', fieldsType: undefined })], 'missing fieldsType in managed fields entry 0'],
    [[entry({ operation: 'Update', fieldsType: 'FieldsV2' })], 'invalid fieldsType "FieldsV2" in managed fields entry 0'],
    [[entry({ operation: 'Update', fieldsV1: { 'x:y': {} } })], 'error decoding versioned set of entry 0: unknown path element type "x:y"'],
    [['nope'], 'managed fields entry 0 is not an object'],
  ])('invalid %j: %s', (input, message) => {
    expect(() => decodeManagedFields(input)).toThrow(new ManagedFieldsError(message));
  });

  test('the reset request is exactly one empty entry', () => {
    expect(isResetRequest([{}])).toBe(true);
    expect(isResetRequest([])).toBe(false);
    expect(isResetRequest([{}, {}])).toBe(false);
    expect(isResetRequest([{ manager: '' }])).toBe(false);
    expect(isResetRequest(undefined)).toBe(false);
  });

  test('decoded sets keep their paths', () => {
    const m = decodeManagedFields([entry({ manager: 'x', operation: 'Apply' })]);
    expect(m.get('{"manager":"x","operation":"Apply"}')!.set.equals(decodeFieldsV1({ 'f:data': { 'f:a': {} } }))).toBe(true);
  });
});
