import { ExpiryQueue, type Expiry } from './expiry-queue.js';
import { ExpiryTimer } from './expiry-timer.js';

const entry = (at: number, key = `k${at}`): Expiry => ({ at, key, modRevision: 1 });

describe('ExpiryQueue', () => {
  it('pops due entries soonest first, at most max, and leaves the rest', () => {
    const q = new ExpiryQueue();
    // A fixed shuffle with duplicates, so both heap directions are exercised.
    const ats = [50, 10, 90, 30, 30, 70, 20, 80, 60, 40, 100, 0, 55];
    for (const at of ats) q.push(entry(at, `k${q.size}`));
    expect(q.size).toBe(ats.length);
    expect(q.peek()?.at).toBe(0);
    expect(q.popDue(45, 100).map((e) => e.at)).toEqual([0, 10, 20, 30, 30, 40]);
    expect(q.popDue(100, 3).map((e) => e.at)).toEqual([50, 55, 60]);
    expect(q.popDue(69, 100)).toEqual([]);
    expect(q.popDue(1_000, 100).map((e) => e.at)).toEqual([70, 80, 90, 100]);
    expect(q.size).toBe(0);
    expect(q.peek()).toBeUndefined();
  });
});

describe('ExpiryTimer', () => {
  it('hands due entries over in time order, in batches, and re-arms for earlier entries', async () => {
    const calls: string[][] = [];
    let wake: () => void = () => undefined;
    const timer = new ExpiryTimer((due) => {
      calls.push(due.map((e) => e.key));
      wake();
    }, 2);
    const done = new Promise<void>((resolve) => {
      wake = () => {
        if (calls.flat().length === 4) resolve();
      };
    });
    const now = Date.now();
    timer.track(entry(now + 200, 'late'));
    // Earlier than the armed time: the timer must move, or these would wait for 'late'.
    timer.track(entry(now + 20, 'b'));
    timer.track(entry(now + 10, 'a'));
    timer.track(entry(now + 20, 'c'));
    await done;
    timer.stop();
    // Time order (b and c share their time), never more than the batch size at once, late on its own.
    expect(calls.flat()[0]).toBe('a');
    expect(calls.flat().slice(1, 3).sort()).toEqual(['b', 'c']);
    expect(calls[calls.length - 1]).toEqual(['late']);
    expect(calls.every((c) => c.length <= 2)).toBe(true);
  });

  it('an overdue entry fires at once', async () => {
    const fired = await new Promise<string[]>((resolve) => {
      const timer = new ExpiryTimer((due) => {
        timer.stop();
        resolve(due.map((e) => e.key));
      });
      timer.track(entry(Date.now() - 60_000, 'overdue'));
    });
    expect(fired).toEqual(['overdue']);
  });
});
