import { conflictError, printManager } from './conflicts.js';
import { FieldSet } from './fieldpath/set.js';
import type { ManagerEntry } from './managers.js';

const mgr = (manager: string, operation: 'Apply' | 'Update', subresource = ''): ManagerEntry => ({ manager, operation, apiVersion: 'v1', subresource, set: new FieldSet() });

describe('apply conflicts', () => {
  test('managers are printed as Kubernetes prints them', () => {
    expect(printManager(mgr('a', 'Apply'))).toBe('"a"');
    expect(printManager(mgr('u', 'Update'))).toBe('"u" using v1');
    expect(printManager(mgr('k', 'Apply', 'status'))).toBe('"k" with subresource "status"');
    expect(printManager(mgr('k', 'Update', 'status'))).toBe('"k" with subresource "status" using v1');
  });

  test('one conflict', () => {
    const err = conflictError([{ manager: mgr('u', 'Update'), path: ['f:data', 'f:k'] }]);
    expect([err.code, err.reason, err.message]).toEqual([409, 'Conflict', 'Apply failed with 1 conflict: conflict with "u" using v1: .data.k']);
    expect(err.details).toEqual({ causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "u" using v1', field: '.data.k' }] });
  });

  test('several: grouped by manager in identity order', () => {
    const err = conflictError([
      { manager: mgr('b', 'Apply'), path: ['f:spec', 'f:x'] },
      { manager: mgr('a', 'Apply'), path: ['f:items', 'k:{"name":"n"}', 'f:v'] },
      { manager: mgr('b', 'Apply'), path: ['f:tags', 'v:"t"'] },
    ]);
    expect(err.message).toBe('Apply failed with 3 conflicts: conflicts with "a":\n- .items[name="n"].v\nconflicts with "b":\n- .spec.x\n- .tags[="t"]');
    expect(err.details?.causes?.map((c) => c.field)).toEqual(['.items[name="n"].v', '.spec.x', '.tags[="t"]']);
  });
});
