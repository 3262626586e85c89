/**
 * The compare-and-swap retry loop shared by every read-modify-write of one key (guaranteed-update.ts, and
 * delete.ts): read the key once, then run rounds. A round decides from the state it is given and writes
 * with a compare on that state's modRevision, inside `attempt`. When the compare fails (`Conflict`, or
 * `AlreadyExists` for a create) the store's error carries the fresh state, which feeds the next round with
 * no extra read; a key deleted meanwhile (`NotFound`) starts the next round from "absent". Any other
 * StorageError from the attempt becomes its Status (storage-errors.ts).
 *
 * Only what runs inside `attempt` is retried: errors a round throws outside it (a failed precondition, an
 * admission refusal, a StorageError of another read) end the loop as they are.
 */
import { isStorageError } from '../../../storage/errors.js';
import type { KeyValue } from '../../../storage/interface.js';
import type { RegistryContext } from './registry-context.js';
import { storageToStatus } from './storage-errors.js';

/** Thrown by `attempt` out of a round whose compare failed: the state the next round starts from. */
class StaleRound {
  constructor(readonly kv: KeyValue | undefined) {}
}

/** Runs the store writes of one round; a failed compare ends the round and starts the next. */
export type Attempt = <T>(write: () => Promise<T>) => Promise<T>;

/**
 * A first state to start from instead of reading the store (the watch cache's copy, possibly stale), and
 * which results prove it was current: a round whose write's compare succeeded did. Any other result or
 * error of a round run from it is discarded and the round runs again from a fresh read.
 */
export interface FirstState<R> {
  readonly kv: KeyValue;
  readonly vouched: (result: R) => boolean;
}

/**
 * Reads `key` (or takes `first`), then runs `round` with its current state (undefined: absent) until a
 * round returns. A round may clean up in `finally` (a failed compare passes through it like any error).
 */
export async function compareAndSwapLoop<R>(
  ctx: Pick<RegistryContext, 'store' | 'gr'>,
  key: string,
  name: string,
  round: (kv: KeyValue | undefined, attempt: Attempt) => Promise<R>,
  first?: FirstState<R>,
): Promise<R> {
  const attempt: Attempt = async (write) => {
    try {
      return await write();
    } catch (err) {
      if (isStorageError(err, 'Conflict') || isStorageError(err, 'AlreadyExists')) throw new StaleRound(err.current);
      if (isStorageError(err, 'NotFound')) throw new StaleRound(undefined);
      throw storageToStatus(err, ctx.gr, name);
    }
  };
  const read = async (): Promise<KeyValue | undefined> => {
    try {
      return (await ctx.store.get(key)).kv;
    } catch (err) {
      throw storageToStatus(err, ctx.gr, name);
    }
  };
  let kv = first === undefined ? await read() : first.kv;
  let unproven = first !== undefined;
  for (;;) {
    let result: R;
    try {
      result = await round(kv, attempt);
    } catch (err) {
      if (err instanceof StaleRound) {
        kv = err.kv;
        unproven = false;
        continue;
      }
      if (!unproven) throw err;
      // A refusal (a precondition, admission) judged against a copy that may be stale: judge the store's state.
      kv = await read();
      unproven = false;
      continue;
    }
    if (!unproven || first!.vouched(result)) return result;
    kv = await read();
    unproven = false;
  }
}
