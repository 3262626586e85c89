/**
 * The seats and fair queues of one priority level (API Priority and Fairness' queueset).
 *
 * - `concurrencyLimit` seats; every request takes one seat (kube estimates a width per request, e.g. more
 *   seats for large lists; here the width is always 1).
 * - While seats are free and nobody waits, a request takes a seat at once (`tryAcquire`: no allocation,
 *   no hashing: the hot path).
 * - Otherwise it waits (`wait`): a level whose limit response is `Reject` refuses at once
 *   (`concurrency-limit`); a queuing level deals the flow a hand of queues (shuffle-shard.ts) and the
 *   request joins the shortest of them, or is refused when that one already holds `queueLengthLimit`
 *   (`queue-full`). A waiting request leaves with `time-out` after `waitLimitMs` (kube: a quarter of
 *   `--request-timeout`) and with `cancelled` when its signal aborts (client gone, deadline).
 * - A freed seat goes to the waiting request with the smallest virtual start time (start-time fair
 *   queuing: a request starts at max(virtual clock, its queue's last finish) and finishes one unit later,
 *   the clock being the start of the last dispatched request). A queue with many waiting requests thus
 *   gets one seat per round like any other queue: one noisy flow cannot take the seats of the others, and
 *   a newly arriving quiet flow is served next.
 *
 * Single-threaded (Node): no locks; every method runs to completion.
 */
import type { LimitResponse } from './priority-levels.js';
import { dealHand, flowHash } from './shuffle-shard.js';

/** kube's `reason` label of apiserver_flowcontrol_rejected_requests_total. */
export type Rejection = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export interface QueueSetOptions {
  /** Seats (> 0). */
  readonly concurrencyLimit: number;
  readonly limitResponse: LimitResponse;
  /** How long a request may wait in a queue. */
  readonly waitLimitMs: number;
}

interface Waiter {
  readonly queue: Queue;
  readonly start: number;
  readonly settle: (outcome: Rejection | undefined) => void;
}

interface Queue {
  readonly index: number;
  readonly waiting: Waiter[];
  /** Virtual finish time of the last request that joined. */
  lastFinish: number;
}

export class QueueSet {
  readonly concurrencyLimit: number;
  readonly #limitResponse: LimitResponse;
  readonly #waitLimitMs: number;
  readonly #queues: Queue[] = [];
  /** Queues with waiting requests. */
  readonly #active = new Set<Queue>();
  #executing = 0;
  #waitingTotal = 0;
  #virtualClock = 0;

  constructor(o: QueueSetOptions) {
    this.concurrencyLimit = o.concurrencyLimit;
    this.#limitResponse = o.limitResponse;
    this.#waitLimitMs = o.waitLimitMs;
    if (o.limitResponse.type === 'Queue') {
      for (let i = 0; i < o.limitResponse.queues; i++) this.#queues.push({ index: i, waiting: [], lastFinish: 0 });
    }
  }

  /** Requests holding a seat. */
  get executing(): number {
    return this.#executing;
  }

  /** Requests waiting in queues. */
  get waiting(): number {
    return this.#waitingTotal;
  }

  /** Takes a seat when one is free and nobody waits for it; else false (then `wait`). */
  tryAcquire(): boolean {
    if (this.#executing >= this.concurrencyLimit || this.#waitingTotal > 0) return false;
    this.#executing++;
    return true;
  }

  /**
   * Waits for a seat as flow `flowKey`: resolves undefined once the request holds a seat (call `release`
   * when it is done), or the reason it was refused (it holds nothing then). A synchronous answer is a
   * refusal made at once.
   */
  wait(flowKey: string, signal: AbortSignal): Promise<Rejection | undefined> | Rejection {
    if (this.tryAcquire()) return Promise.resolve(undefined);
    const lr = this.#limitResponse;
    if (lr.type === 'Reject') return 'concurrency-limit';
    if (signal.aborted) return 'cancelled';
    const queue = this.#shortestInHand(flowKey, lr.queues, lr.handSize);
    if (queue.waiting.length >= lr.queueLengthLimit) return 'queue-full';
    const start = Math.max(this.#virtualClock, queue.lastFinish);
    queue.lastFinish = start + 1;
    return new Promise<Rejection | undefined>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => leave('cancelled');
      const waiter: Waiter = {
        queue,
        start,
        settle: (outcome) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      };
      const leave = (reason: Rejection): void => {
        const at = queue.waiting.indexOf(waiter);
        if (at < 0) return; // already dispatched
        queue.waiting.splice(at, 1);
        this.#waitingTotal--;
        if (queue.waiting.length === 0) this.#active.delete(queue);
        waiter.settle(reason);
      };
      timer = setTimeout(() => leave('time-out'), this.#waitLimitMs).unref();
      signal.addEventListener('abort', onAbort, { once: true });
      queue.waiting.push(waiter);
      this.#waitingTotal++;
      this.#active.add(queue);
      // A seat may be free while others wait (they are being dispatched in this same turn): hand it out.
      this.#dispatch();
    });
  }

  /** Gives back a seat taken by `tryAcquire` or a successful `wait`; the next waiting request takes it. */
  release(): void {
    this.#executing--;
    this.#dispatch();
  }

  #shortestInHand(flowKey: string, deckSize: number, handSize: number): Queue {
    const hand = dealHand(flowHash(flowKey), deckSize, handSize);
    let best = this.#queues[hand[0]!]!;
    for (let i = 1; i < hand.length; i++) {
      const q = this.#queues[hand[i]!]!;
      if (q.waiting.length < best.waiting.length) best = q;
    }
    return best;
  }

  #dispatch(): void {
    while (this.#executing < this.concurrencyLimit && this.#waitingTotal > 0) {
      // The smallest start time; on a tie the shorter queue (a quiet flow's) goes first, so a newcomer does
      // not wait behind every queue of a noisy flow's hand that starts at the same virtual time.
      let next: Queue | undefined;
      for (const q of this.#active) {
        if (next === undefined) {
          next = q;
          continue;
        }
        const a = q.waiting[0]!.start;
        const b = next.waiting[0]!.start;
        if (a < b || (a === b && q.waiting.length < next.waiting.length)) next = q;
      }
      const waiter = next!.waiting.shift()!;
      this.#waitingTotal--;
      if (next!.waiting.length === 0) this.#active.delete(next!);
      this.#virtualClock = waiter.start;
      this.#executing++;
      waiter.settle(undefined);
    }
  }
}
