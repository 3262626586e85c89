import { cachedObject } from './cache-entry.js';
import type { KeyValue } from '../interface.js';

const kv = (value: Uint8Array, modRevision = 7): KeyValue => ({ key: '/registry/things/a', value, createRevision: 3, modRevision });
const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('cached objects are decoded on first use', () => {
  test('decode runs once, at the first read of `object`, with the key and revision known before', () => {
    const calls: KeyValue[] = [];
    const c = cachedObject(kv(text('{"a":1}')), (k) => {
      calls.push(k);
      return JSON.parse(new TextDecoder().decode(k.value)) as unknown;
    });
    expect([c.key, c.revision, calls.length]).toEqual(['/registry/things/a', 7, 0]);
    expect(c.object).toEqual({ a: 1 });
    expect(c.object).toBe(c.object);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.modRevision).toBe(7);
  });

  test('an undecodable value throws at each read that needs it', () => {
    const c = cachedObject(kv(text('{')), (k) => JSON.parse(new TextDecoder().decode(k.value)) as unknown);
    expect(c.key).toBe('/registry/things/a');
    expect(() => c.object).toThrow(SyntaxError);
    expect(() => c.object).toThrow(SyntaxError);
  });

  test('a small view of a large buffer is copied; a whole buffer or a small slab is kept', () => {
    const big = new Uint8Array(1 << 20);
    big.set(text('{"x":2}'), 1000);
    const seen: Uint8Array[] = [];
    const decode = (k: KeyValue): unknown => {
      seen.push(k.value);
      return JSON.parse(new TextDecoder().decode(k.value)) as unknown;
    };
    const c = cachedObject(kv(big.subarray(1000, 1007)), decode);
    // The cache owns a copy: what happens to the response buffer afterwards does not reach it.
    big.fill(0, 1000, 1007);
    expect(c.object).toEqual({ x: 2 });
    expect(seen[0]!.buffer).not.toBe(big.buffer);
    const whole = text('{"y":3}');
    expect(cachedObject(kv(whole), decode).object).toEqual({ y: 3 });
    expect(seen[1]).toBe(whole);
    const pooled = Buffer.from('{"z":4}');
    expect(cachedObject(kv(pooled), decode).object).toEqual({ z: 4 });
    expect(seen[2]).toBe(pooled);
  });
});
