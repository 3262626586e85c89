/**
 * HorizontalPodAutoscaler (autoscaling/v1) through the registry's create, update and status paths (no
 * store): v1's defaults, Kubernetes v1.32's validation with its field paths and messages (the CPU target
 * reported at the internal metric's path, as Kubernetes does), the status reset on create and kept by the
 * main endpoint, the status counts, identity (hpa, all) and kubectl's table.
 */
import type { KubeObject } from '../../../api/object.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { createAs, updateAs, updateStatusAs, type Cause } from '../storage/testing.js';
import { horizontalPodAutoscalers as hpas } from './horizontalpodautoscaler.js';

const hpa = (spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'autoscaling/v1',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, maxReplicas: 5, ...spec },
  ...extra,
});

const invalid = (field: string, value: unknown, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const required = (field: string): Cause => ({ reason: 'FieldValueRequired', field, message: 'Required value' });
const CPU_TARGET = 'spec.metrics[0].resource.target.averageUtilization';
const SCALE_TO_ZERO: Cause = { reason: 'FieldValueForbidden', field: 'spec.metrics', message: 'Forbidden: must specify at least one Object or External metric to support scaling to zero replicas' };

const cases: [string, KubeObject, Cause[]][] = [
  ['a StatefulSet target with a CPU target', hpa({ targetCPUUtilizationPercentage: 50 }), []],
  ['no CPU target (the default policy)', hpa(), []],
  ['minReplicas equal to maxReplicas', hpa({ minReplicas: 5 }), []],
  ['a target without apiVersion', hpa({ scaleTargetRef: { kind: 'ReplicationController', name: 'rc' } }), []],
  ['a CPU target over 100%', hpa({ targetCPUUtilizationPercentage: 150 }), []],
  ['no maxReplicas', hpa({ maxReplicas: undefined }), [invalid('spec.maxReplicas', 0, 'must be greater than 0'), invalid('spec.maxReplicas', 0, 'must be greater than or equal to `minReplicas`')]],
  ['maxReplicas 0 with minReplicas 0', hpa({ maxReplicas: 0, minReplicas: 0 }), [
    invalid('spec.minReplicas', 0, 'must be greater than or equal to 1'),
    invalid('spec.maxReplicas', 0, 'must be greater than 0'),
    SCALE_TO_ZERO,
  ]],
  ['negative maxReplicas', hpa({ maxReplicas: -1, minReplicas: 1 }), [
    invalid('spec.maxReplicas', -1, 'must be greater than 0'),
    invalid('spec.maxReplicas', -1, 'must be greater than or equal to `minReplicas`'),
  ]],
  ['maxReplicas below minReplicas', hpa({ minReplicas: 6 }), [invalid('spec.maxReplicas', 5, 'must be greater than or equal to `minReplicas`')]],
  ['minReplicas 0 without the HPAScaleToZero gate', hpa({ minReplicas: 0 }), [invalid('spec.minReplicas', 0, 'must be greater than or equal to 1'), SCALE_TO_ZERO]],
  ['negative minReplicas', hpa({ minReplicas: -2 }), [invalid('spec.minReplicas', -2, 'must be greater than or equal to 1')]],
  ['a CPU target of 0', hpa({ targetCPUUtilizationPercentage: 0 }), [invalid(CPU_TARGET, 0, 'must be greater than 0')]],
  ['a negative CPU target', hpa({ targetCPUUtilizationPercentage: -10 }), [invalid(CPU_TARGET, -10, 'must be greater than 0')]],
  ['no scale target', hpa({ scaleTargetRef: undefined }), [required('spec.scaleTargetRef.kind'), required('spec.scaleTargetRef.name')]],
  ['a scale target without kind', hpa({ scaleTargetRef: { name: 'web' } }), [required('spec.scaleTargetRef.kind')]],
  ['a scale target without name', hpa({ scaleTargetRef: { kind: 'StatefulSet', name: '' } }), [required('spec.scaleTargetRef.name')]],
  ['a kind with a slash', hpa({ scaleTargetRef: { kind: 'apps/StatefulSet', name: 'web' } }), [invalid('spec.scaleTargetRef.kind', 'apps/StatefulSet', "may not contain '/'")]],
  ['a name of ..', hpa({ scaleTargetRef: { kind: 'StatefulSet', name: '..' } }), [invalid('spec.scaleTargetRef.name', '..', "may not be '..'")]],
  ['a name with a percent sign', hpa({ scaleTargetRef: { kind: 'StatefulSet', name: 'a%b' } }), [invalid('spec.scaleTargetRef.name', 'a%b', "may not contain '%'")]],
  // The schema reports the type; the kind's checks then read Go's zero value.
  ['maxReplicas as a string', hpa({ maxReplicas: '5' }), [
    { reason: 'FieldValueTypeInvalid', field: 'spec.maxReplicas', message: 'Invalid value: "string": must be of type integer: "string"' },
    invalid('spec.maxReplicas', 0, 'must be greater than 0'),
    invalid('spec.maxReplicas', 0, 'must be greater than or equal to `minReplicas`'),
  ]],
  ['everything wrong at once', hpa({ scaleTargetRef: {}, maxReplicas: 0, minReplicas: 2, targetCPUUtilizationPercentage: 0 }), [
    invalid('spec.maxReplicas', 0, 'must be greater than 0'),
    invalid('spec.maxReplicas', 0, 'must be greater than or equal to `minReplicas`'),
    required('spec.scaleTargetRef.kind'),
    required('spec.scaleTargetRef.name'),
    invalid(CPU_TARGET, 0, 'must be greater than 0'),
  ]],
];

describe('HorizontalPodAutoscaler validation on create', () => {
  test.each(cases)('%s', (_name, obj, expected) => {
    expect(createAs(hpas, obj).causes).toEqual(expected);
  });

  test('minReplicas defaults to 1; the status starts empty whatever is sent', () => {
    const { obj, causes } = createAs(hpas, hpa({}, { status: { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 90 } }));
    expect(causes).toEqual([]);
    expect(obj.spec).toEqual({ scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web' }, maxReplicas: 5, minReplicas: 1 });
    expect(obj.status).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
  });
});

describe('HorizontalPodAutoscaler updates', () => {
  const stored: KubeObject = { ...createAs(hpas, hpa()).obj, status: { currentReplicas: 2, desiredReplicas: 3 } };

  test('the spec may change (no immutable fields); the status sent is replaced by the stored one', () => {
    const { obj, causes } = updateAs(hpas, { ...stored, spec: { ...stored.spec as object, maxReplicas: 10, targetCPUUtilizationPercentage: 70 }, status: { currentReplicas: 9, desiredReplicas: 9 } }, stored);
    expect(causes).toEqual([]);
    expect((obj.spec as { maxReplicas: number }).maxReplicas).toBe(10);
    expect(obj.status).toEqual({ currentReplicas: 2, desiredReplicas: 3 });
  });

  test('the spec rules apply on update', () => {
    expect(updateAs(hpas, { ...stored, spec: { ...stored.spec as object, minReplicas: 7 } }, stored).causes).toEqual([
      invalid('spec.maxReplicas', 5, 'must be greater than or equal to `minReplicas`'),
    ]);
  });

  test('an object stored with minReplicas 0 may keep it (still without an Object or External metric)', () => {
    const zero: KubeObject = { ...stored, spec: { ...stored.spec as object, minReplicas: 0 } };
    expect(updateAs(hpas, zero, stored).causes).toEqual([invalid('spec.minReplicas', 0, 'must be greater than or equal to 1'), SCALE_TO_ZERO]);
    expect(updateAs(hpas, zero, zero).causes).toEqual([SCALE_TO_ZERO]);
  });
});

describe('HorizontalPodAutoscaler status writes', () => {
  const stored = createAs(hpas, hpa({ targetCPUUtilizationPercentage: 60 })).obj;
  const write = (status: Record<string, unknown>): { causes: Cause[]; obj: KubeObject } => updateStatusAs(hpas, { ...stored, status }, stored);

  const statusCases: [string, Record<string, unknown>, Cause[]][] = [
    ['counts and a current utilization', { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 75, lastScaleTime: '2026-01-01T00:00:00Z', observedGeneration: 1 }, []],
    ['zero counts', { currentReplicas: 0, desiredReplicas: 0 }, []],
    ['no counts (Go zero values)', {}, []],
    ['a negative currentReplicas', { currentReplicas: -1, desiredReplicas: 1 }, [invalid('status.currentReplicas', -1, 'must be greater than or equal to 0')]],
    ['a negative desiredReplicas', { currentReplicas: 1, desiredReplicas: -3 }, [invalid('status.desiredReplicas', -3, 'must be greater than or equal to 0')]],
    ['both negative', { currentReplicas: -1, desiredReplicas: -1 }, [
      invalid('status.currentReplicas', -1, 'must be greater than or equal to 0'),
      invalid('status.desiredReplicas', -1, 'must be greater than or equal to 0'),
    ]],
  ];

  test.each(statusCases)('%s', (_name, status, expected) => {
    expect(write(status).causes).toEqual(expected);
  });

  test('a status write keeps the stored spec and defaults the counts', () => {
    const { obj } = updateStatusAs(hpas, { ...stored, spec: { maxReplicas: 1 }, status: { currentCPUUtilizationPercentage: 10 } }, stored);
    expect(obj.spec).toEqual(stored.spec);
    expect(obj.status).toEqual({ currentCPUUtilizationPercentage: 10, currentReplicas: 0, desiredReplicas: 0 });
  });
});

describe('HorizontalPodAutoscaler identity and table', () => {
  test('autoscaling/v1 in every domain mode, namespaced, hpa, all, status', () => {
    expect(hpas).toEqual(expect.objectContaining({ group: 'autoscaling', version: 'v1', namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: ['status'] }));
    expect((hpas as KindStrategy).groupPrefix).toBeUndefined();
    expect((hpas as KindStrategy).deleteReturnsObject).toBeUndefined();
  });

  test('NAME, REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS, AGE', () => {
    const t = hpas.table;
    expect(t.columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'], ['Reference', 'string'], ['Targets', 'string'], ['MinPods', 'string'], ['MaxPods', 'integer'], ['Replicas', 'integer'], ['Age', 'string'],
    ]);
    const now = new Date('2026-01-01T01:00:00Z');
    const at = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, creationTimestamp: '2026-01-01T00:00:00Z' } });
    const created = createAs(hpas, hpa({ targetCPUUtilizationPercentage: 50 })).obj;
    expect(t.cells(at(created), now)).toEqual(['web', 'StatefulSet/web', 'cpu: <unknown>/50%', '1', 5, 0, '60m']);
    const measured = { ...created, status: { currentReplicas: 3, desiredReplicas: 3, currentCPUUtilizationPercentage: 42 } };
    expect(t.cells(at(measured), now)).toEqual(['web', 'StatefulSet/web', 'cpu: 42%/50%', '1', 5, 3, '60m']);
    // Without a CPU target the default policy's 80% is shown; without minReplicas, <unset>.
    expect(t.cells(at(hpa()), now).slice(2, 4)).toEqual(['cpu: <unknown>/80%', '<unset>']);
  });
});
