/**
 * The recorded history of a chaos run: what the writers were told, what each watching client saw, which
 * faults were injected when, and which commands were retried. Plain data, so a test of any topology (the
 * cluster suite of issue 17, the reliability suite of issue 18) can fill it and hand it to `checkHistory`.
 *
 * Times are milliseconds since the epoch (`Date.now()` of the recording process). Resource versions are the
 * decimal strings the server returned; the checker compares them as numbers (etcd revisions).
 */

/** One object's content as the checker compares it: its resourceVersion and its `data`. */
export interface ObjectState {
  readonly rv: string;
  readonly data: Readonly<Record<string, string>>;
}

export type WriteOp = 'create' | 'update' | 'delete';

/**
 * A write the workload issued to the watched collection.
 * - `outcome: 'ok'`: acknowledged (2xx). `rv` is the resourceVersion of the returned object; a delete
 *   answered with a Status has none (the checker learns its revision from the clients' DELETED events).
 * - `outcome: 'indeterminate'`: the request failed without an answer saying it was not applied (a reset
 *   connection, a timeout, a 5xx): it may or may not have happened. A workload must issue no further write
 *   on that name after an indeterminate one, so the checker knows it is the last candidate for the name.
 *
 * Contract on the workload: one writer per name, writes on a name issued one after the other, every
 * create/update writes `data` unique to that name (so an indeterminate write that happened is recognised
 * by its content), and a name is deleted at most once (never created again after its delete).
 */
export interface Write {
  readonly op: WriteOp;
  readonly name: string;
  readonly rv?: string;
  readonly data?: Readonly<Record<string, string>>;
  /** When the answer (or the failure) arrived. */
  readonly time: number;
  /** When the request was sent (a failure is blamed on any fault its request overlapped). */
  readonly sent?: number;
  readonly outcome: 'ok' | 'indeterminate';
  /** For an indeterminate write: what failed. */
  readonly error?: string;
}

/**
 * One line a watching client printed (the protocol of test/clients/client-harness.ts), stamped with the time
 * the recorder read it:
 * - `list` (`rv`): the client listed (its first list, or a re-list after 410); its cache is replaced by the
 *   list's items, and the changes this makes to its cache follow as change lines ("list-derived": marked
 *   `via: 'list'`, or, for clients that do not mark them, any change with `rv` <= the list's rv before the
 *   first newer one);
 * - `watch` (`rv`): the client starts a watch from `rv`;
 * - `ADDED` / `MODIFIED` / `DELETED` (`name`, `rv`, `data`): a change the client applied;
 * - `error` (`code`, `msg`): an error the client saw (it recovers by itself).
 */
export interface ClientLine {
  readonly time: number;
  readonly t: string;
  readonly name?: string;
  readonly rv?: string;
  readonly data?: Readonly<Record<string, string>>;
  readonly via?: string;
  readonly code?: number | string | null;
  readonly msg?: string;
}

export interface ClientHistory {
  readonly id: string;
  readonly lines: readonly ClientLine[];
  /** The client's cache at the end (name -> state), once the test stopped writing. */
  readonly final: ReadonlyMap<string, ObjectState>;
}

/**
 * A fault injected between `start` and `end` (`end`: when the test saw the system whole again, e.g. every
 * replica ready behind the load balancer). Planned faults (a graceful restart) must cause no client-visible
 * error at all; unplanned ones (SIGKILL, an etcd member killed, a partition) may cause errors that clients
 * recover from.
 */
export interface Fault {
  readonly name: string;
  readonly planned: boolean;
  readonly start: number;
  readonly end: number;
}

/** One try of a command (e.g. a kubectl invocation). */
export interface CommandAttempt {
  /** When it ended. */
  readonly time: number;
  /** When it started (a failure is blamed on any fault it overlapped). */
  readonly start?: number;
  readonly ok: boolean;
  readonly error?: string;
}

/** A command run until it succeeded (or its attempts ran out), each try recorded. */
export interface Command {
  readonly id: string;
  readonly attempts: readonly CommandAttempt[];
}

/** A failure a workload writer saw that is not a write (e.g. a read), for the error accounting. */
export interface OtherError {
  readonly source: string;
  readonly time: number;
  readonly error: string;
}

export interface History {
  readonly writes: readonly Write[];
  readonly clients: readonly ClientHistory[];
  readonly faults: readonly Fault[];
  readonly commands: readonly Command[];
  /** The server's list of the collection at the end (name -> state). */
  readonly final: ReadonlyMap<string, ObjectState>;
  readonly otherErrors?: readonly OtherError[];
  /**
   * How long after an unplanned fault's `end` its effects may still surface (a client's retry back-off,
   * a load balancer's next health check). Default 3000 ms. Planned faults get no slack: their window is
   * `[start, end]`, and an error outside every window is unexplained.
   */
  readonly unplannedSlackMs?: number;
}
