import type { KubeObject } from '../../api/object.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { StatusError } from '../../errors/status-error.js';
import { parseIncludeObject, toPartialObjectMetadataList, toTable } from './to-table.js';

const base: KindStrategy = {
  group: '',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  namespaced: true,
  schema: { type: 'object' },
};

const withColumns: KindStrategy = {
  ...base,
  table: {
    columns: [
      { name: 'Name', type: 'string', format: 'name', description: 'name', priority: 0 },
      { name: 'Size', type: 'integer', format: '', description: 'size', priority: 0 },
      { name: 'Owner', type: 'string', format: '', description: 'owner', priority: 1 },
    ],
    cells: (o) => [o.metadata.name, (o.spec as { size: number }).size, 'x'],
  },
};

const obj = (name: string, size: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z', resourceVersion: '7' },
  spec: { size },
});

test('the kind columns and one row per object, with PartialObjectMetadata by default', () => {
  const t = toTable(withColumns, [obj('a', 1), obj('b', 2)], { resourceVersion: '9' }, { apiVersion: 'meta.k8s.io/v1' });
  expect(t.kind).toBe('Table');
  expect(t.apiVersion).toBe('meta.k8s.io/v1');
  expect(t.metadata).toEqual({ resourceVersion: '9' });
  expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Size', 'Owner']);
  expect(t.rows.map((r) => r.cells)).toEqual([['a', 1, 'x'], ['b', 2, 'x']]);
  expect(t.rows[0]!.object).toEqual({
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: obj('a', 1).metadata,
  });
});

test('includeObject None and Object; the requested apiVersion (domain or v1beta1) is echoed', () => {
  const none = toTable(withColumns, [obj('a', 1)], {}, { apiVersion: 'meta.platform.io/v1', includeObject: 'None' });
  expect(none.rows[0]).toEqual({ cells: ['a', 1, 'x'] });
  expect(none.apiVersion).toBe('meta.platform.io/v1');
  const full = toTable(withColumns, [obj('a', 1)], {}, { apiVersion: 'meta.k8s.io/v1beta1', includeObject: 'Object' });
  expect(full.rows[0]!.object).toEqual(obj('a', 1));
});

test('kinds without columns get NAME and CREATED AT', () => {
  const t = toTable(base, [obj('a', 1)], {}, { apiVersion: 'meta.k8s.io/v1', includeObject: 'None' });
  expect(t.columnDefinitions.map((c) => [c.name, c.type, c.format])).toEqual([['Name', 'string', 'name'], ['Created At', 'date', '']]);
  expect(t.rows[0]!.cells).toEqual(['a', '2026-01-01T00:00:00Z']);
});

test('noHeaders drops the column definitions', () => {
  expect(toTable(withColumns, [obj('a', 1)], {}, { apiVersion: 'meta.k8s.io/v1', noHeaders: true }).columnDefinitions).toEqual([]);
});

test('includeObject parsing', () => {
  expect(parseIncludeObject(null)).toBe('Metadata');
  expect(parseIncludeObject('Object')).toBe('Object');
  expect(() => parseIncludeObject('all')).toThrow(StatusError);
});

test('PartialObjectMetadataList', () => {
  const l = toPartialObjectMetadataList([obj('a', 1)], { resourceVersion: '3' }, 'meta.k8s.io/v1');
  expect(l.kind).toBe('PartialObjectMetadataList');
  expect(l.items[0]!.kind).toBe('PartialObjectMetadata');
  expect(l.metadata.resourceVersion).toBe('3');
});
