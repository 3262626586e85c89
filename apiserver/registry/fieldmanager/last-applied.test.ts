import type { KubeObject } from '../../api/object.js';
import type { Conflict } from './conflicts.js';
import { FieldSet } from './fieldpath/set.js';
import { conflictsAllowedByLastApplied, LAST_APPLIED_ANNOTATION, syncLastApplied } from './last-applied.js';
import { testSchema } from './testing/test-schema.js';

const config = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x' }, data: { k: 'a' } };
const live = (data: Record<string, string>, annotation: string | null = JSON.stringify(config)): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Thing',
  metadata: { name: 'x', ...(annotation === null ? {} : { annotations: { [LAST_APPLIED_ANNOTATION]: annotation } }) },
  data,
});
const conflictOn = (...path: string[]): Conflict[] => [{ manager: { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', subresource: '', set: new FieldSet() }, path }];

describe('last-applied-configuration bridge', () => {
  test('conflicts on fields the last client-side apply still holds are allowed, for kubectl only', () => {
    expect(conflictsAllowedByLastApplied('kubectl', live({ k: 'a' }), conflictOn('f:data', 'f:k'), testSchema)).toBe(true);
    expect(conflictsAllowedByLastApplied('other', live({ k: 'a' }), conflictOn('f:data', 'f:k'), testSchema)).toBe(false);
    expect(conflictsAllowedByLastApplied('kubectl', live({ k: 'changed' }), conflictOn('f:data', 'f:k'), testSchema)).toBe(false);
    expect(conflictsAllowedByLastApplied('kubectl', live({ k: 'a', z: '1' }), conflictOn('f:data', 'f:z'), testSchema)).toBe(false);
    expect(conflictsAllowedByLastApplied('kubectl', live({ k: 'a' }, null), conflictOn('f:data', 'f:k'), testSchema)).toBe(false);
    expect(conflictsAllowedByLastApplied('kubectl', live({ k: 'a' }, '{not json'), conflictOn('f:data', 'f:k'), testSchema)).toBe(false);
  });

  test('the annotation is rewritten to the applied configuration when it was there', () => {
    const result = live({ k: 'b' });
    syncLastApplied('kubectl', live({ k: 'a' }), { ...config, data: { k: 'b' } }, result);
    expect(result.metadata.annotations![LAST_APPLIED_ANNOTATION]).toBe('{"apiVersion":"v1","data":{"k":"b"},"kind":"Thing","metadata":{"name":"x"}}\n');
    const without = live({ k: 'b' }, null);
    syncLastApplied('kubectl', live({ k: 'a' }, null), config, without);
    expect(without.metadata.annotations).toBeUndefined();
  });
});
