/**
 * The Lease kind: Kubernetes v1.32's spec validation (a table of accepted and refused specs with exact
 * field paths and messages), the canonical MicroTime written, kubectl's table, and the schema's protobuf
 * numbers from coordination/v1 generated.proto.
 */
import type { KubeObject } from '../../../api/object.js';
import { errorString, toCauses } from '../../../validation/field-error.js';
import { leases } from './lease.js';
import { canonicalMicroTime, microTimeOf } from './micro-time.js';

const lease = (spec?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'l', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' },
  ...(spec === undefined ? {} : { spec }),
});
const validate = (spec?: Record<string, unknown>): string[] => leases.validate(lease(spec)).map(errorString);

const STRATEGY_NOT_SUPPORTED = (v: string) => `spec.strategy.strategy: Unsupported value: "${v}": supported values: "OldestEmulationVersion"`;
const QUALIFIED = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('validation', () => {
  const cases: [string, Record<string, unknown> | undefined, string[]][] = [
    ['no spec', undefined, []],
    ['an empty spec', {}, []],
    ['a held lease', { holderIdentity: 'node-1', leaseDurationSeconds: 40, acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:10.123456Z', leaseTransitions: 2 }, []],
    ['an empty holder (a released lease)', { holderIdentity: '', leaseDurationSeconds: 1 }, []],
    ['leaseDurationSeconds 1', { leaseDurationSeconds: 1 }, []],
    ['leaseDurationSeconds 0', { leaseDurationSeconds: 0 }, ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']],
    ['leaseDurationSeconds -5', { leaseDurationSeconds: -5 }, ['spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0']],
    ['leaseTransitions 0', { leaseTransitions: 0 }, []],
    ['leaseTransitions -1', { leaseTransitions: -1 }, ['spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0']],
    ['both counts wrong', { leaseDurationSeconds: 0, leaseTransitions: -2 }, [
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -2: must be greater than or equal to 0',
    ]],
    ['strategy OldestEmulationVersion', { strategy: 'OldestEmulationVersion' }, []],
    ['a qualified custom strategy', { strategy: 'example.com/mine' }, []],
    ['an unknown Kubernetes strategy name', { strategy: 'Newest' }, [STRATEGY_NOT_SUPPORTED('Newest')]],
    ['an empty strategy', { strategy: '' }, [STRATEGY_NOT_SUPPORTED('')]],
    ['a strategy name in the wrong case', { strategy: 'oldestemulationversion' }, [STRATEGY_NOT_SUPPORTED('oldestemulationversion')]],
    ['a custom strategy with an invalid name part', { strategy: 'example.com/-bad' }, [`spec.strategy.strategy: Invalid value: "example.com/-bad": ${QUALIFIED}`]],
    ['a custom strategy with two slashes', { strategy: 'a/b/c' }, [
      "spec.strategy.strategy: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]],
    ['a custom strategy with an empty prefix', { strategy: '/mine' }, ['spec.strategy.strategy: Invalid value: "/mine": prefix part must be non-empty']],
    ['preferredHolder with a strategy', { strategy: 'OldestEmulationVersion', preferredHolder: 'node-2' }, []],
    ['preferredHolder without a strategy', { preferredHolder: 'node-2' }, ['spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined']],
    ['preferredHolder with an empty strategy', { strategy: '', preferredHolder: 'node-2' }, [
      STRATEGY_NOT_SUPPORTED(''),
      'spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
    ]],
    ['an empty preferredHolder without a strategy', { preferredHolder: '' }, []],
    ['every rule at once', { leaseDurationSeconds: -1, leaseTransitions: -1, strategy: 'X', preferredHolder: 'p' }, [
      'spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      STRATEGY_NOT_SUPPORTED('X'),
    ]],
  ];
  test.each(cases)('%s', (_name, spec, expected) => {
    expect(validate(spec)).toEqual(expected);
  });

  test('the causes name the field and reason as a Status carries them', () => {
    expect(toCauses(leases.validate(lease({ leaseDurationSeconds: 0, preferredHolder: 'p' })))).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be greater than 0', field: 'spec.leaseDurationSeconds' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: may only be specified if `strategy` is defined', field: 'spec.preferredHolder' },
    ]);
  });
});

describe('MicroTime', () => {
  test.each([
    ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.000000Z'],
    ['2024-01-01T00:00:00.5Z', '2024-01-01T00:00:00.500000Z'],
    ['2024-01-01T00:00:00.123456789Z', '2024-01-01T00:00:00.123456Z'],
    ['2024-01-01T02:30:00.000001+02:30', '2024-01-01T00:00:00.000001Z'],
    ['2023-12-31T23:00:00.25-01:00', '2024-01-01T00:00:00.250000Z'],
    ['2024-01-01t00:00:00z', '2024-01-01T00:00:00.000000Z'],
    ['not a time', 'not a time'],
  ])('%s is written as %s', (input, out) => {
    expect(canonicalMicroTime(input)).toBe(out);
  });

  test('microTimeOf pads milliseconds to microseconds', () => {
    expect(microTimeOf(Date.UTC(2024, 0, 2, 3, 4, 5, 67))).toBe('2024-01-02T03:04:05.067000Z');
  });

  test('canonicalize rewrites acquireTime and renewTime only', () => {
    const l = lease({ holderIdentity: '2024-01-01T00:00:00Z', acquireTime: '2024-01-01T00:00:00Z', renewTime: '2024-01-01T01:00:00.1+01:00' });
    leases.canonicalize(l);
    expect(l.spec).toEqual({ holderIdentity: '2024-01-01T00:00:00Z', acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:00.100000Z' });
  });
});

describe('table', () => {
  const now = new Date('2024-01-01T00:05:00Z');
  test('NAME, HOLDER, AGE as kubectl shows them', () => {
    expect(leases.table.columns.map((c) => c.name)).toEqual(['Name', 'Holder', 'Age']);
    expect(leases.table.cells(lease({ holderIdentity: 'node-1' }), now)).toEqual(['l', 'node-1', '5m']);
    expect(leases.table.cells(lease(), now)).toEqual(['l', '', '5m']);
    expect(leases.table.cells(lease({ holderIdentity: '' }), now)).toEqual(['l', '', '5m']);
  });
});

describe('schema', () => {
  test('coordination/v1 generated.proto numbers; every spec field optional', () => {
    expect(leases.schema.protobuf).toEqual({ metadata: 1, spec: 2 });
    const spec = leases.schema.properties!.spec!;
    expect(spec.protobuf).toEqual({
      holderIdentity: { tag: 1, pointer: true }, leaseDurationSeconds: { tag: 2, pointer: true }, acquireTime: { tag: 3, pointer: true }, renewTime: { tag: 4, pointer: true },
      leaseTransitions: { tag: 5, pointer: true }, strategy: { tag: 6, pointer: true }, preferredHolder: { tag: 7, pointer: true },
    });
    expect(spec.properties!.renewTime!.protobufType).toBe('microtime');
    expect(spec.properties!.leaseDurationSeconds!.format).toBe('int32');
  });

  test('identity: namespaced, no short names, PUT creates', () => {
    expect([leases.groupPrefix, leases.version, leases.kind, leases.resource, leases.namespaced, leases.allowCreateOnUpdate]).toEqual(['coordination', 'v1', 'Lease', 'leases', true, true]);
    expect('shortNames' in leases).toBe(false);
  });
});
