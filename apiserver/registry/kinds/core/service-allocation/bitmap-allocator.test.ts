/**
 * The bitmap allocation record on the embedded store: two allocators over one key (two replicas) never
 * hand out the same index, batches share one CAS, `full` when nothing is left, releases free, dry-run
 * peeks reserve nothing, a record of another range is refused; and the IP range arithmetic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../../../../storage/interface.js';
import { openMemoryStore } from '../../../../../storage/memory/memory-store.js';
import { BitmapAllocator } from './bitmap-allocator.js';
import { canonicalIP, formatIP, indexOf, ipAt, ipToBig, parseServiceRange, staticBandSize } from './ip-range.js';

let dir: string;
let store: Store & { close(): Promise<void> };
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bitmap-'));
  store = await openMemoryStore({ dataDir: dir });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const make = (size: number, range = `0-${size - 1}`): BitmapAllocator => new BitmapAllocator({ store, key: '/registry/ranges/test', range, size, offset: staticBandSize(size, 32, 128) });

describe('BitmapAllocator', () => {
  it('two allocators on one record hand out every index exactly once, in few writes', async () => {
    const a = make(300);
    const b = make(300);
    const revBefore = (await store.get('/none')).revision;
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a : b).allocateNext()));
    const indexes = results.map((r) => (r.ok ? r.index : -1));
    expect(indexes.every((i) => i >= 0)).toBe(true);
    expect(new Set(indexes).size).toBe(300);
    const writes = (await store.get('/none')).revision - revBefore;
    // Batched: far fewer CAS writes than allocations.
    expect(writes).toBeLessThan(40);
    expect(await a.allocateNext()).toEqual({ ok: false, reason: 'full' });
    expect((await b.allocated()).length).toBe(300);
  });

  it('a given index is taken once; release frees it; peeks reserve nothing', async () => {
    const a = make(64);
    const b = make(64);
    expect(await a.allocate(7)).toEqual({ ok: true, index: 7 });
    expect(await b.allocate(7)).toEqual({ ok: false, reason: 'allocated' });
    expect(await b.peek(7)).toEqual({ ok: false, reason: 'allocated' });
    await b.release(7);
    expect(await a.peek(7)).toEqual({ ok: true, index: 7 });
    const peeked = await a.peekNext();
    expect(peeked.ok).toBe(true);
    expect(await a.allocated()).toEqual([]);
  });

  it('dynamic picks use the upper band first', async () => {
    const a = make(256);
    const offset = staticBandSize(256, 32, 128);
    expect(offset).toBe(16);
    const picks = await Promise.all(Array.from({ length: 200 }, () => a.allocateNext()));
    for (const p of picks) expect(p.ok && p.index >= offset).toBe(true);
  });

  it('a record written for another range is refused', async () => {
    await make(16, '0-15').allocate(1);
    await expect(make(16, '100-115').allocate(2)).rejects.toThrow('is for range 0-15, not 100-115');
  });
});

describe('service IP ranges', () => {
  it('IPv4: network and broadcast excluded, index 0 is the first address', () => {
    const r = parseServiceRange('10.0.0.7/24')!;
    expect([r.cidr, r.size, r.family]).toEqual(['10.0.0.0/24', 254, 'IPv4']);
    expect([ipAt(r, 0), ipAt(r, 253)]).toEqual(['10.0.0.1', '10.0.0.254']);
    expect([indexOf(r, '10.0.0.1'), indexOf(r, '10.0.0.0'), indexOf(r, '10.0.0.255'), indexOf(r, '10.0.1.1'), indexOf(r, 'fd00::1')]).toEqual([0, undefined, undefined, undefined, undefined]);
    expect(parseServiceRange('10.0.0.0/32')).toBeUndefined();
    expect(parseServiceRange('10.0.0.0/33')).toBeUndefined();
  });

  it('IPv6: RFC 5952 text, at most 2^16 addresses', () => {
    const r = parseServiceRange('fd00:10::/64')!;
    expect([r.cidr, r.size]).toEqual(['fd00:10::/64', 65536]);
    expect(ipAt(r, 0)).toBe('fd00:10::1');
    expect(formatIP(ipToBig('2001:db8:0:0:1:0:0:1')!.value, 'IPv6')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIP('2001:DB8::0:1')).toBe('2001:db8::1');
    expect(canonicalIP('::')).toBe('::');
  });
});
