import { errorString, type FieldError } from '../../../validation/field-error.js';
import { validateResourceList } from './quantity-checks.js';

const check = (list: unknown): string[] => {
  const errs: FieldError[] = [];
  validateResourceList(list, 'status.capacity', errs);
  return errs.map(errorString);
};

test('well-formed quantities pass', () => {
  expect(check({ cpu: '3500m', memory: '16Gi', pods: '110', 'ephemeral-storage': 1e9, 'example.com/gpu': '2', 'hugepages-2Mi': '0', x: '1.5Ki' })).toEqual([]);
  expect(check(undefined)).toEqual([]);
});

test('malformed, negative and fractional integer resources fail with Kubernetes messages', () => {
  expect(check({ cpu: 'lots' })).toEqual([
    `status.capacity.cpu: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  ]);
  expect(check({ memory: '-1Gi' })).toEqual(['status.capacity.memory: Invalid value: "-1Gi": must be greater than or equal to 0']);
  expect(check({ pods: '1500m', 'example.com/gpu': 0.5, 'kubernetes.io/x': '0.5', cpu: '0.5' })).toEqual([
    'status.capacity.pods: Invalid value: "1500m": must be an integer',
    'status.capacity.example.com/gpu: Invalid value: "0.5": must be an integer',
  ]);
  expect(check({ pods: '2k', secrets: '1.0', services: '1e2' })).toEqual([]);
});
