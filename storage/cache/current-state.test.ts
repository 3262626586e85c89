import { CurrentState } from './current-state.js';
import type { CachedObject } from './types.js';

const obj = (key: string, revision = 1): CachedObject<string> => ({ key, object: key, revision, memo: new Map() });
const keys = (items: readonly CachedObject<string>[]): string[] => items.map((o) => o.key);

describe('current state', () => {
  test('stays in key order through random creates, updates and deletes', () => {
    const state = new CurrentState<string>();
    const reference = new Map<string, number>();
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 3000; i++) {
      const key = `/r/ns${random(5)}/n${random(200)}`;
      if (random(4) === 0) {
        state.delete(key);
        reference.delete(key);
      } else {
        state.set(obj(key, i));
        reference.set(key, i);
      }
    }
    const expected = [...reference.keys()].sort();
    const all = state.select({ keyPrefix: '/r/' });
    expect(keys(all)).toEqual(expected);
    expect(all.map((o) => o.revision)).toEqual(expected.map((k) => reference.get(k)));
    expect(state.size).toBe(expected.length);
    expect(keys(state.select({ keyPrefix: '/r/ns3/' }))).toEqual(expected.filter((k) => k.startsWith('/r/ns3/')));
    expect(keys(state.select({ keyPrefix: '' }))).toEqual(expected);
  });

  test('many keys in random order: order, ranges and sizes hold as blocks split and empty', () => {
    const state = new CurrentState<string>();
    const reference = new Set<string>();
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const check = (): void => {
      const expected = [...reference].sort();
      expect(keys(state.select({ keyPrefix: '' }))).toEqual(expected);
      expect(state.size).toBe(expected.length);
      for (const ns of ['/r/ns0/', '/r/ns1/', '/r/ns2/', '/r/ns3/', '/r/ns9/']) {
        expect(keys(state.select({ keyPrefix: ns }))).toEqual(expected.filter((k) => k.startsWith(ns)));
      }
    };
    // Creates out of key order (unpadded counters, random suffixes): every block splits several times.
    for (let i = 0; i < 12_000; i++) {
      const key = `/r/ns${random(4)}/n${random(1_000_000)}`;
      state.set(obj(key, i));
      reference.add(key);
    }
    check();
    // Every key of one namespace deleted (its blocks empty and go), then some of the others.
    for (const key of [...reference]) {
      if (key.startsWith('/r/ns1/') || random(3) === 0) {
        state.delete(key);
        reference.delete(key);
      }
    }
    check();
    expect(state.select({ keyPrefix: '/r/ns1/' })).toEqual([]);
    for (const key of [...reference]) {
      state.delete(key);
      reference.delete(key);
    }
    check();
    state.set(obj('/r/ns2/again'));
    reference.add('/r/ns2/again');
    check();
  });

  test('a prefix selects exactly its keys (not a sibling that shares the text), with key and selector', () => {
    const state = CurrentState.fromSorted(['/r/a/x', '/r/a/y', '/r/a0/z', '/r/a\uffff', '/r/b/w'].sort().map((k) => obj(k)));
    expect(keys(state.select({ keyPrefix: '/r/a/' }))).toEqual(['/r/a/x', '/r/a/y']);
    expect(keys(state.select({ keyPrefix: '/r/a' }))).toEqual(['/r/a/x', '/r/a/y', '/r/a0/z', '/r/a\uffff']);
    expect(keys(state.select({ keyPrefix: '/r/a/', key: '/r/a/y' }))).toEqual(['/r/a/y']);
    expect(keys(state.select({ keyPrefix: '/r/a/', key: '/r/b/w' }))).toEqual([]);
    expect(keys(state.select({ keyPrefix: '/r/', matches: (o) => o.endsWith('w') || o.endsWith('x') }))).toEqual(['/r/a/x', '/r/b/w']);
  });

  test('hands out the stored instances and a fresh array each time', () => {
    const a = obj('/r/a');
    const state = CurrentState.fromSorted([a]);
    const first = state.select({ keyPrefix: '/r/' });
    expect(first[0]).toBe(a);
    expect(state.get('/r/a')).toBe(a);
    state.set(obj('/r/b'));
    expect(keys(first)).toEqual(['/r/a']);
  });
});
