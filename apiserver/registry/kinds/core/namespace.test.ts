import type { KubeObject } from '../../../api/object.js';
import { errorString } from '../../../validation/field-error.js';
import { testContext } from '../shared/test-context.js';
import { namespaces } from './namespace.js';

const ctx = testContext('platform.io', '');
const ns = (fields: Record<string, unknown> = {}, meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', creationTimestamp: '2024-01-01T00:00:00Z', ...meta },
  ...fields,
});

test('discovery data: cluster-scoped, ns, no deletecollection, status sub-resource, DNS labels', () => {
  expect(namespaces.namespaced).toBe(false);
  expect(namespaces.shortNames).toEqual(['ns']);
  expect(namespaces.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
  expect(namespaces.subresources).toEqual(['status']);
  expect(namespaces.nameRule).toBe('dns-label');
  expect(namespaces.deleteReturnsObject).toBe(false);
});

test('schema: spec.finalizers atomic strings, status.phase enum, conditions keyed by type', () => {
  const p = namespaces.schema.properties!;
  expect(p.spec!.properties!.finalizers).toMatchObject({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' });
  expect(p.status!.properties!.phase!.enum).toEqual(['Active', 'Terminating']);
  expect(p.status!.properties!.conditions).toMatchObject({ 'x-kubernetes-list-map-keys': ['type'], 'x-kubernetes-patch-merge-key': 'type' });
});

describe('create', () => {
  test('phase Active, the kubernetes finalizer and the name label are set; a client status is dropped', () => {
    const obj = ns({ status: { phase: 'Terminating' } });
    namespaces.prepareForCreate(obj, ctx);
    expect(obj).toEqual(
      ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }, { labels: { 'platform.io/metadata.name': 'team-a' } }),
    );
    expect(namespaces.validate(obj)).toEqual([]);
  });

  test('existing finalizers are kept, kubernetes appended once; labels kept; k8s.io label name', () => {
    const obj = ns({ spec: { finalizers: ['example.com/cleanup'] } }, { labels: { team: 'a' } });
    namespaces.prepareForCreate(obj, testContext('k8s.io', ''));
    expect(obj.spec).toEqual({ finalizers: ['example.com/cleanup', 'kubernetes'] });
    expect(obj.metadata.labels).toEqual({ team: 'a', 'kubernetes.io/metadata.name': 'team-a' });
    const again = ns({ spec: { finalizers: ['kubernetes'] } });
    namespaces.prepareForCreate(again, ctx);
    expect(again.spec).toEqual({ finalizers: ['kubernetes'] });
  });

  test('a name still to be generated gets no label', () => {
    const obj = ns({}, { name: undefined, generateName: 'tmp-' });
    namespaces.prepareForCreate(obj, ctx);
    expect(obj.metadata.labels).toBeUndefined();
  });
});

test('finalizer names: qualified, and standard or with a domain', () => {
  const errs = (finalizers: string[]): string[] => namespaces.validate(ns({ spec: { finalizers } })).map(errorString);
  expect(errs(['kubernetes', 'orphan', 'foregroundDeletion', 'example.com/x'])).toEqual([]);
  expect(errs(['custom'])).toEqual(['spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']);
  expect(errs(['bad name/x'])).toEqual([
    `spec.finalizers: Invalid value: "bad name/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
});

test('update keeps spec.finalizers and status, refreshes the label', () => {
  const old = ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }, { labels: { 'platform.io/metadata.name': 'team-a' } });
  const obj = ns({ spec: { finalizers: [] }, status: { phase: 'Terminating' } }, { labels: { x: 'y' } });
  namespaces.prepareForUpdate(obj, old, ctx);
  expect(obj).toEqual(ns({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }, { labels: { x: 'y', 'platform.io/metadata.name': 'team-a' } }));
  expect(obj.status).not.toBe(old.status);
  const bare = ns({ spec: { finalizers: ['kubernetes'] } });
  namespaces.prepareForUpdate(bare, ns(), ctx);
  expect(bare).not.toHaveProperty('status');
  expect(bare.spec).toEqual({});
});

test('status updates: Active without deletionTimestamp, Terminating with it', () => {
  const check = (phase: string, deletionTimestamp?: string): string[] =>
    namespaces.validateStatusUpdate(ns({ status: { phase } }, deletionTimestamp ? { deletionTimestamp } : {})).map(errorString);
  expect(check('Active')).toEqual([]);
  expect(check('Terminating')).toEqual(['status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty']);
  expect(check('Terminating', '2024-01-02T00:00:00Z')).toEqual([]);
  expect(check('Active', '2024-01-02T00:00:00Z')).toEqual([
    'status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty',
  ]);
});

test('NAME STATUS AGE and selectable fields', () => {
  expect(namespaces.table.columns.map((c) => c.name)).toEqual(['Name', 'Status', 'Age']);
  const obj = ns({ status: { phase: 'Terminating' } });
  expect(namespaces.table.cells(obj, new Date('2024-01-01T00:03:07Z'))).toEqual(['team-a', 'Terminating', '3m7s']);
  expect(namespaces.selectableFields['status.phase']!(obj)).toBe('Terminating');
  expect(namespaces.selectableFields.name!(obj)).toBe('team-a');
  expect(namespaces.selectableFields['status.phase']!(ns())).toBe('');
});
