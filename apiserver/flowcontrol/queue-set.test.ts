import { QueueSet, type Rejection } from './queue-set.js';

const queued = (queues: number, handSize: number, queueLengthLimit: number) =>
  ({ type: 'Queue' as const, queues, handSize, queueLengthLimit });

/** A queue set of `limit` seats whose seats are all taken. */
function fullSet(limit: number, queues = 16, handSize = 4, queueLengthLimit = 50, waitLimitMs = 60_000): QueueSet {
  const set = new QueueSet({ concurrencyLimit: limit, limitResponse: queued(queues, handSize, queueLengthLimit), waitLimitMs });
  for (let i = 0; i < limit; i++) expect(set.tryAcquire()).toBe(true);
  return set;
}

const never = (): AbortSignal => new AbortController().signal;

describe('QueueSet seats', () => {
  it('hands out exactly concurrencyLimit seats at once and takes them back', () => {
    const set = fullSet(3);
    expect(set.tryAcquire()).toBe(false);
    expect(set.executing).toBe(3);
    set.release();
    expect(set.tryAcquire()).toBe(true);
  });

  it('a level that rejects instead of queuing refuses at once with concurrency-limit', () => {
    const set = new QueueSet({ concurrencyLimit: 1, limitResponse: { type: 'Reject' }, waitLimitMs: 1000 });
    expect(set.tryAcquire()).toBe(true);
    expect(set.wait('u', never())).toBe('concurrency-limit');
  });

  it('a waiting request takes the seat freed by release, and nobody jumps the queue with tryAcquire', async () => {
    const set = fullSet(1);
    const waiting = set.wait('a', never());
    expect(typeof waiting).not.toBe('string');
    expect(set.waiting).toBe(1);
    set.release();
    await expect(waiting).resolves.toBeUndefined();
    expect(set.executing).toBe(1);
    expect(set.waiting).toBe(0);
    expect(set.tryAcquire()).toBe(false);
  });

  it('refuses with queue-full once the shortest queue of the hand holds queueLengthLimit', () => {
    const set = fullSet(1, 1, 1, 2);
    set.wait('noisy', never());
    set.wait('noisy', never());
    expect(set.wait('noisy', never())).toBe('queue-full');
    // One queue in the deck: every flow shares it.
    expect(set.wait('other', never())).toBe('queue-full');
    expect(set.waiting).toBe(2);
  });

  it('a request waiting longer than the wait limit leaves with time-out and its place is freed', async () => {
    const set = fullSet(1, 4, 2, 50, 20);
    const outcome = await set.wait('a', never());
    expect(outcome).toBe<Rejection>('time-out');
    expect(set.waiting).toBe(0);
    set.release();
    expect(set.executing).toBe(0);
  });

  it('a request whose signal aborts while waiting leaves with cancelled; an aborted one is refused at once', async () => {
    const set = fullSet(1);
    const abort = new AbortController();
    const waiting = set.wait('a', abort.signal);
    abort.abort();
    await expect(waiting).resolves.toBe('cancelled');
    expect(set.waiting).toBe(0);
    expect(set.wait('a', abort.signal)).toBe('cancelled');
    // The seat was not given to the cancelled request.
    set.release();
    expect(set.executing).toBe(0);
  });
});

describe('QueueSet fairness', () => {
  /** Releases one seat at a time and returns the flows in the order they got a seat. */
  async function dispatchOrder(set: QueueSet, waits: { flow: string; p: Promise<Rejection | undefined> | Rejection }[]): Promise<string[]> {
    const order: string[] = [];
    for (const w of waits) {
      if (typeof w.p === 'string') throw new Error(`refused: ${w.p}`);
      void w.p.then((r) => r === undefined && order.push(w.flow));
    }
    for (let i = 0; i < waits.length; i++) {
      set.release();
      await new Promise((r) => setImmediate(r));
    }
    return order;
  }

  it('a quiet flow arriving behind 40 requests of a noisy flow gets the next seat', async () => {
    const set = fullSet(2);
    const waits = [];
    for (let i = 0; i < 40; i++) waits.push({ flow: 'noisy', p: set.wait('global-default\u0000noisy', never()) });
    waits.push({ flow: 'quiet', p: set.wait('global-default\u0000quiet', never()) });
    const order = await dispatchOrder(set, waits);
    expect(order).toHaveLength(41);
    // Start-time fair queuing: the quiet request starts at the virtual clock, the noisy backlog later (the
    // noisy heads that start at the same time hold longer queues, and lose the tie).
    expect(order.indexOf('quiet')).toBe(0);
  });

  it('three backlogged flows share the seats evenly', async () => {
    const set = fullSet(1, 64, 6);
    const waits = [];
    for (let i = 0; i < 10; i++) {
      for (const f of ['a', 'b', 'c']) waits.push({ flow: f, p: set.wait(`fs\u0000${f}`, never()) });
    }
    const order = await dispatchOrder(set, waits);
    // After every 3k dispatches each flow has had k seats, give or take one (each flow spreads over the
    // queues of its hand, so the order within a round varies).
    for (let k = 1; 3 * k <= order.length; k++) {
      const prefix = order.slice(0, 3 * k);
      for (const f of ['a', 'b', 'c']) {
        const n = prefix.filter((x) => x === f).length;
        expect(Math.abs(n - k)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('a noisy flow fills only its own queue: another flow is still admitted to wait', () => {
    const set = fullSet(1, 128, 6, 5);
    let refusedNoisy = 0;
    for (let i = 0; i < 100; i++) if (set.wait('fs\u0000noisy', never()) === 'queue-full') refusedNoisy++;
    // The noisy flow spreads over its hand of 6 queues of 5, then is refused.
    expect(refusedNoisy).toBe(100 - 6 * 5);
    expect(typeof set.wait('fs\u0000quiet', never())).not.toBe('string');
  });
});
