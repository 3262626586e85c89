/**
 * Frozen cached objects: the freeze itself, and the watch cache handing out frozen objects from lists, gets
 * and watch events when asked (and mutable ones when not), on both backends.
 */
import { deepFreeze, freezeFromEnvironment } from './deep-freeze.js';
import { describeWatchCache, type Obj } from '../testing/cache-fixtures.js';

describe('deepFreeze', () => {
  test('freezes every object and array reachable, in place, and returns the value', () => {
    const v = { a: { b: [1, { c: 'x' }], d: null }, e: [[2]] };
    expect(deepFreeze(v)).toBe(v);
    for (const o of [v, v.a, v.a.b, v.a.b[1], v.e, v.e[0]]) expect(Object.isFrozen(o)).toBe(true);
    expect(() => {
      'use strict';
      (v.a.b[1] as { c: string }).c = 'y';
    }).toThrow(TypeError);
    expect(() => (v.e[0] as number[]).push(3)).toThrow(TypeError);
  });

  test('primitives pass through; typed arrays are left writable instead of throwing', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBeNull();
    const bytes = new Uint8Array([1, 2]);
    const v = deepFreeze({ bytes });
    expect(Object.isFrozen(v)).toBe(true);
    bytes[0] = 9;
    expect(v.bytes[0]).toBe(9);
  });

  test('a deep tree does not overflow the stack', () => {
    let v: unknown = {};
    for (let i = 0; i < 100_000; i++) v = { v };
    deepFreeze(v);
    expect(Object.isFrozen(v)).toBe(true);
  });

  test('the switch reads PLATFORM_FREEZE_CACHE', () => {
    expect(freezeFromEnvironment({ PLATFORM_FREEZE_CACHE: '1' })).toBe(true);
    expect(freezeFromEnvironment({ PLATFORM_FREEZE_CACHE: 'true' })).toBe(true);
    expect(freezeFromEnvironment({ PLATFORM_FREEZE_CACHE: '0' })).toBe(false);
    expect(freezeFromEnvironment({})).toBe(false);
  });

  test('the test suite runs with the switch on (jest global set-up)', () => {
    expect(freezeFromEnvironment()).toBe(true);
  });
});

describeWatchCache('frozen objects', (h) => {
  const { prefix, cache, read, put } = h;
  // What a careless reader would do: Obj is readonly to the type checker, not at run time.
  const mutate = (o: Obj): void => {
    (o as { color: string }).color = 'mutated';
  };

  test('with freeze on, lists, gets and watch events hand out frozen objects; a write into one throws', async () => {
    const p = prefix();
    await put(`${p}a`, 'red');
    const c = await cache(p, { freeze: true });
    const listed = (await c.list({ keyPrefix: p, minRevision: 0 })).items[0]!.object;
    expect(Object.isFrozen(listed)).toBe(true);
    expect(() => mutate(listed)).toThrow(TypeError);
    const got = (await c.get(`${p}a`, 0)).object!.object;
    expect(got).toBe(listed);
    const watcher = c.watch({ keyPrefix: p, start: { kind: 'from', revision: await h.store.currentRevision() } });
    await watcher.started;
    const w = read(watcher);
    const r = await put(`${p}a`, 'blue');
    await w.untilRevision(r);
    const ev = w.all.find((e) => e.type === 'MODIFIED')!;
    expect(ev.type === 'MODIFIED' && ev.revision).toBe(r);
    const watched = (ev as { object: { object: Obj } }).object.object;
    expect(Object.isFrozen(watched)).toBe(true);
    expect(() => mutate(watched)).toThrow(TypeError);
    expect(watched.color).toBe('blue');
  });

  test('with freeze off, objects stay mutable (production default)', async () => {
    const p = prefix();
    await put(`${p}a`, 'red');
    const c = await cache(p, { freeze: false });
    const listed = (await c.list({ keyPrefix: p, minRevision: 0 })).items[0]!.object;
    expect(Object.isFrozen(listed)).toBe(false);
  });
});
