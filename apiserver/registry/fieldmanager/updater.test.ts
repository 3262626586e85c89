import { encodeFieldsV1 } from './fieldpath/fields-v1.js';
import type { Managers } from './managers.js';
import { keepInScope, stripServerFields } from './scope.js';
import { testSchema } from './testing/test-schema.js';
import { ApplyConflicts, trackApply, trackUpdate, type Writer } from './updater.js';

const t = { schema: testSchema, keep: keepInScope('no-status'), strip: stripServerFields };
const w = (manager: string, time = '2024-01-01T00:00:00Z'): Writer => ({ manager, apiVersion: 'v1', subresource: '', time });
const owned = (m: Managers) => Object.fromEntries([...m.values()].map((e) => [`${e.manager}/${e.operation}`, encodeFieldsV1(e.set)]));
const obj = (data: Record<string, string>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x' }, data, ...extra });

describe('trackUpdate', () => {
  test('a create owns everything but the server fields and status', () => {
    const m: Managers = new Map();
    trackUpdate(m, undefined, obj({ a: '1' }, { status: { phase: 'P' } }), w('c'), t);
    expect(owned(m)).toEqual({ 'c/Update': { 'f:data': { '.': {}, 'f:a': {} } } });
  });

  test('an update takes changed fields from others and drops removed ones everywhere', () => {
    const m: Managers = new Map();
    trackUpdate(m, undefined, obj({ a: '1', b: '2' }), w('c'), t);
    trackUpdate(m, obj({ a: '1', b: '2' }), obj({ a: '9' }), w('e', '2024-01-02T00:00:00Z'), t);
    expect(owned(m)).toEqual({ 'c/Update': { 'f:data': {} }, 'e/Update': { 'f:data': { 'f:a': {} } } });
  });

  test('an update that changes nothing leaves the managers alone', () => {
    const m: Managers = new Map();
    trackUpdate(m, undefined, obj({ a: '1' }), w('c'), t);
    const before = owned(m);
    trackUpdate(m, obj({ a: '1' }), obj({ a: '1' }), w('other'), t);
    expect(owned(m)).toEqual(before);
  });
});

describe('trackApply', () => {
  test('conflict unless forced; the managers are unchanged by a refused apply', () => {
    const m: Managers = new Map();
    trackApply(m, {}, obj({ k: 'a' }), w('alice'), false, t);
    const before = owned(m);
    expect(() => trackApply(m, obj({ k: 'a' }), obj({ k: 'b' }), w('bob'), false, t)).toThrow(ApplyConflicts);
    expect(owned(m)).toEqual(before);
    const r = trackApply(m, obj({ k: 'a' }), obj({ k: 'b' }), w('bob'), true, t);
    expect((r.object as { data: unknown }).data).toEqual({ k: 'b' });
    expect(owned(m)).toEqual({ 'alice/Apply': { 'f:data': {} }, 'bob/Apply': { 'f:data': { '.': {}, 'f:k': {} } } });
  });

  test('the applier set is exactly its configuration; a no-op apply keeps the previous time', () => {
    const m: Managers = new Map();
    const first = trackApply(m, {}, obj({ k: 'a' }), w('alice', '2024-01-01T00:00:00Z'), false, t);
    expect(first.changed).toBe(true);
    const again = trackApply(m, first.object, obj({ k: 'a' }), w('alice', '2024-02-02T00:00:00Z'), false, t);
    expect(again.changed).toBe(false);
    expect([...m.values()][0]!.time).toBe('2024-01-01T00:00:00Z');
  });

  test('a field no longer applied is removed; status in a main-resource configuration is neither owned nor a conflict', () => {
    const m: Managers = new Map();
    const a = trackApply(m, {}, obj({ k: 'a', j: 'b' }), w('alice'), false, t);
    const live = { ...(a.object as object), status: { phase: 'Owned-by-nobody' } };
    const b = trackApply(m, live, obj({ k: 'a' }, { status: { phase: 'X' } }), w('alice'), false, t);
    expect((b.object as { data: unknown }).data).toEqual({ k: 'a' });
    expect(owned(m)).toEqual({ 'alice/Apply': { 'f:data': { '.': {}, 'f:k': {} } } });
  });
});
