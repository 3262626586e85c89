import { FieldSet } from './fieldpath/set.js';
import { ANCIENT_CHANGES_MANAGER, capUpdateManagers } from './cap-managers.js';
import { managerId, type ManagerEntry, type Managers } from './managers.js';

function managers(n: number, apiVersion = 'v1', operation: 'Apply' | 'Update' = 'Update'): Managers {
  const m: Managers = new Map();
  for (let i = 0; i < n; i++) {
    const e: ManagerEntry = {
      manager: `m${String(i).padStart(2, '0')}`,
      operation,
      apiVersion,
      subresource: '',
      time: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`,
      set: FieldSet.of(['f:data', `f:k${i}`]),
    };
    m.set(managerId(e), e);
  }
  return m;
}

describe('capUpdateManagers', () => {
  test('at most ten: nothing changes', () => {
    const m = managers(10);
    capUpdateManagers(m);
    expect(m.size).toBe(10);
  });

  test('twelve: the three oldest fold into ancient-changes with their union and the newest time', () => {
    const m = managers(12);
    capUpdateManagers(m);
    const updates = [...m.values()];
    expect(updates.length).toBe(10);
    const bucket = updates.find((e) => e.manager === ANCIENT_CHANGES_MANAGER)!;
    expect(bucket.set.equals(FieldSet.of(['f:data', 'f:k0'], ['f:data', 'f:k1'], ['f:data', 'f:k2']))).toBe(true);
    expect(bucket.time).toBe('2024-01-01T00:00:02Z');
    expect(updates.map((e) => e.manager)).not.toContain('m00');
    expect(updates.map((e) => e.manager)).toContain('m03');
  });

  test('an existing bucket takes the next oldest entries', () => {
    const m = managers(12);
    capUpdateManagers(m);
    const e: ManagerEntry = { manager: 'late', operation: 'Update', apiVersion: 'v1', subresource: '', time: '2024-01-01T00:01:00Z', set: FieldSet.of(['f:x']) };
    m.set(managerId(e), e);
    capUpdateManagers(m);
    expect([...m.values()].filter((x) => x.operation === 'Update').length).toBe(10);
    expect([...m.values()].filter((x) => x.manager === ANCIENT_CHANGES_MANAGER).length).toBe(1);
  });

  test('Apply entries are never folded nor counted', () => {
    const m = managers(12, 'v1', 'Apply');
    capUpdateManagers(m);
    expect(m.size).toBe(12);
  });

  test('one bucket per apiVersion', () => {
    const m = managers(8, 'v1');
    for (const [id, e] of managers(8, 'v2')) m.set(id.replace('"m', '"n'), { ...e, manager: e.manager.replace('m', 'n') });
    capUpdateManagers(m);
    const buckets = [...m.values()].filter((e) => e.manager === ANCIENT_CHANGES_MANAGER).map((e) => e.apiVersion).sort();
    expect([...m.values()].length).toBe(10);
    expect(buckets).toEqual(['v1', 'v2']);
  });
});
