import type { Store } from './interface.js';

/**
 * Periodic compaction: every interval, compact the store to the revision seen one interval earlier, so the
 * history window (watch resumption, Exact lists, continue tokens) is between one and two intervals long.
 *
 * Several replicas on one store compact once per interval between them without a leader: each round is a
 * compare-and-swap on a compaction key. A replica that wins the swap compacts; one that loses learns the
 * winner's write and the current revision, and competes again next round. A replica only wins when nobody
 * wrote the key since its own last look, i.e. when it is the first to tick in this interval.
 */

/** The key the replicas race on. It lies outside the registry prefix, so no resource watch sees it. */
export const COMPACTION_KEY = 'compact_rev_key';

/** What one replica remembers between rounds. */
export interface CompactorState {
  /** modRevision of the compaction key as this replica last saw it (0: absent). */
  readonly keyRevision: number;
  /** The store's revision at this replica's last round: what the next won round compacts to (0: nothing). */
  readonly revision: number;
}

export interface RoundResult {
  readonly state: CompactorState;
  /** The revision compacted to in this round, when this replica won and had something to compact. */
  readonly compacted?: number;
}

/**
 * One round. Pure in everything but the store: callers keep the returned state for the next round.
 * Errors (store unavailable) propagate; the caller keeps its old state and tries again next interval.
 */
export async function compactionRound(store: Store, state: CompactorState, key = COMPACTION_KEY): Promise<RoundResult> {
  const res = await store.txn(
    [{ key, modRevision: state.keyRevision }],
    [{ type: 'put', key, value: Buffer.from(String(state.revision)) }],
  );
  if (!res.succeeded) {
    return { state: { keyRevision: res.current[0]?.modRevision ?? 0, revision: res.revision } };
  }
  const next: CompactorState = { keyRevision: res.revision, revision: res.revision };
  if (state.revision === 0) return { state: next };
  await store.compact(state.revision);
  return { state: next, compacted: state.revision };
}

export interface CompactorOptions {
  /** Milliseconds between rounds; 0 disables (startCompactor must not be called then). */
  readonly intervalMs: number;
  readonly key?: string;
  readonly onCompacted?: (revision: number) => void;
  readonly onError?: (err: unknown) => void;
}

export interface Compactor {
  /** Stops the timer and waits for a round in flight. Idempotent. */
  stop(): Promise<void>;
}

/** Starts rounds every `intervalMs`, the first one interval after the start. */
export function startCompactor(store: Store, options: CompactorOptions): Compactor {
  if (!(options.intervalMs > 0)) throw new Error(`compaction interval must be positive, got ${options.intervalMs}`);
  let state: CompactorState = { keyRevision: 0, revision: 0 };
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const schedule = (): void => {
    timer = setTimeout(() => {
      inFlight = (async () => {
        try {
          const result = await compactionRound(store, state, options.key);
          state = result.state;
          if (result.compacted !== undefined) options.onCompacted?.(result.compacted);
        } catch (err) {
          options.onError?.(err);
        }
        if (!stopped) schedule();
      })();
    }, options.intervalMs);
    // A pending compaction never keeps the process alive.
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await inFlight;
    },
  };
}
