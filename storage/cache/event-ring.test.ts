import type { CacheEntry } from './cache-entry.js';
import { EventRing } from './event-ring.js';

/** An entry at `revision` applied at time `at` (only the fields the ring reads matter). */
function entry(revision: number, at = 0, key = `k${revision}`): CacheEntry<string> {
  const object = { key, object: key, revision, memo: new Map<string, unknown>() };
  return { type: 'ADDED', key, revision, object, prev: undefined, event: { type: 'ADDED', revision, object }, at };
}

const revisions = (entries: readonly CacheEntry<string>[]): number[] => entries.map((e) => e.revision);

describe('event ring', () => {
  test('serves every event after a revision it reaches back to, across growth and wrap-around', () => {
    const ring = new EventRing<string>({ minEvents: 1, maxEvents: 100, windowMs: 1e9 }, 10);
    for (let r = 11; r <= 210; r++) ring.push([entry(r)], 0);
    expect(ring.size).toBe(100);
    expect(ring.startRevision).toBe(110);
    expect(revisions(ring.since(110))).toEqual(Array.from({ length: 100 }, (_, i) => 111 + i));
    expect(revisions(ring.since(205))).toEqual([206, 207, 208, 209, 210]);
    expect(ring.since(210)).toEqual([]);
  });

  test('events of one transaction share a revision: a resume never splits one; partial eviction moves the start', () => {
    const ring = new EventRing<string>({ minEvents: 1, maxEvents: 4, windowMs: 1e9 }, 0);
    ring.push([entry(1, 0, 'a'), entry(1, 0, 'b')], 0);
    ring.push([entry(2, 0, 'a'), entry(2, 0, 'b'), entry(2, 0, 'c')], 0);
    expect(ring.startRevision).toBe(1); // one event of revision 1 was dropped: a start at 0 is no longer served
    expect(revisions(ring.since(1))).toEqual([2, 2, 2]);
    ring.push([entry(3)], 0);
    expect(ring.startRevision).toBe(1);
    expect(revisions(ring.since(1))).toEqual([2, 2, 2, 3]);
    ring.push([entry(4)], 0);
    expect(ring.startRevision).toBe(2); // part of revision 2 is gone: resumes at 2 or later only
    expect(revisions(ring.since(2))).toEqual([3, 4]);
  });

  test('drops events older than the window but keeps the newest minEvents', () => {
    const ring = new EventRing<string>({ minEvents: 2, maxEvents: 100, windowMs: 1000 }, 0);
    ring.push([entry(1, 0), entry(2, 100), entry(3, 200), entry(4, 300)], 300);
    expect(ring.size).toBe(4);
    ring.evictOld(1150);
    expect(revisions(ring.since(ring.startRevision))).toEqual([3, 4]);
    expect(ring.startRevision).toBe(2);
    ring.evictOld(10_000);
    expect(ring.size).toBe(2); // never below minEvents by time
  });

  test('reset empties it and moves the start', () => {
    const ring = new EventRing<string>({ minEvents: 1, maxEvents: 10, windowMs: 1e9 }, 0);
    ring.push([entry(1), entry(2)], 0);
    ring.reset(50);
    expect(ring.size).toBe(0);
    expect(ring.startRevision).toBe(50);
    ring.push([entry(51)], 0);
    expect(revisions(ring.since(50))).toEqual([51]);
  });
});
