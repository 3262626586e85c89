import { FieldPath, duplicate, errorString, forbidden, invalidValue, notSupported, required, toCauses, tooLong, tooMany } from './field-error.js';

const path = FieldPath.root('spec').child('containers').index(0).child('name');

test('paths in Kubernetes notation', () => {
  expect(path.toString()).toBe('spec.containers[0].name');
  expect(FieldPath.root('data').key('a b').toString()).toBe('data[a b]');
});

test('messages print values where Kubernetes does', () => {
  expect(errorString(required(path))).toBe('spec.containers[0].name: Required value');
  expect(errorString(required(path, 'name or generateName is required'))).toBe('spec.containers[0].name: Required value: name or generateName is required');
  expect(errorString(invalidValue('metadata.name', 'A', 'bad'))).toBe('metadata.name: Invalid value: "A": bad');
  expect(errorString(invalidValue('spec.replicas', -1, 'must be greater than or equal to 0'))).toBe('spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  expect(errorString(notSupported('spec.restartPolicy', 'Sometimes', ['Always', 'Never']))).toBe('spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never"');
  expect(errorString(duplicate('spec.containers[1].name', 'a'))).toBe('spec.containers[1].name: Duplicate value: "a"');
  expect(errorString(forbidden('spec.x', 'may not be set'))).toBe('spec.x: Forbidden: may not be set');
  expect(errorString(tooLong('data', 1048576))).toBe('data: Too long: may not be more than 1048576 bytes');
  expect(errorString(tooMany('spec.podCIDRs', 3, 2))).toBe('spec.podCIDRs: Too many: 3: must have at most 2 items');
});

test('causes carry the reason, the message without the field, and the field', () => {
  expect(toCauses([invalidValue('metadata.name', 'A', 'bad')])).toEqual([
    { reason: 'FieldValueInvalid', message: 'Invalid value: "A": bad', field: 'metadata.name' },
  ]);
});
