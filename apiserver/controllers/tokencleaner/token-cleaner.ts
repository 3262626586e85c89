/**
 * The `tokencleaner` controller (kube-controller-manager's, run in-server): deletes bootstrap token
 * Secrets (`bootstrap-token-*` of the bootstrap token type in the system namespace) once their
 * `expiration` has passed. An expiration that does not parse counts as expired, as kube treats it.
 *
 * Event-driven, like kube's informer plus delayed requeue: it follows the secrets' watch cache for the
 * system namespace (the current state first, then changes) and keeps one timer per token Secret for its
 * expiration. The delete carries the Secret's uid as a precondition, so a Secret recreated under the same
 * name in between is not touched. A watch that ends (a slow consumer, a re-listed cache) starts again
 * from the current state.
 *
 * Runs on the leader replica only (leader-election.ts); `stop()` ends the watch and the timers.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../api/object.js';
import { isTokenExpired, tokenExpiration } from '../../auth/bootstrap-token-secret.js';
import { StatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';

export interface TokenCleanerOptions {
  /** The secrets registry (with its watch cache). */
  readonly secrets: GenericRegistry;
  /** The system namespace (`kube-system` / `platform-system`). */
  readonly namespace: string;
  /** The bootstrap token Secret type of this domain (bootstrapTokenSecretType). */
  readonly secretType: string;
  /** Epoch ms; default Date.now. */
  readonly now?: () => number;
  readonly onDeleted?: (name: string) => void;
  readonly onError?: (err: unknown) => void;
  /** Wait before watching again after the watch failed. Default 1 s. */
  readonly retryMs?: number;
}

export interface TokenCleaner {
  stop(): Promise<void>;
}

/** setTimeout's largest delay; longer waits re-check when it fires. */
const maxTimerMs = 2 ** 31 - 1;

export function startTokenCleaner(o: TokenCleanerOptions): TokenCleaner {
  const cache = o.secrets.context.cache;
  if (cache === undefined) throw new Error('the tokencleaner controller needs the secrets watch cache');
  const keys = o.secrets.context.keys;
  const now = o.now ?? Date.now;
  const abort = new AbortController();
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();

  const clearTimer = (name: string): void => {
    const t = timers.get(name);
    if (t !== undefined) clearTimeout(t);
    timers.delete(name);
  };

  const isToken = (s: KubeObject): boolean => s.type === o.secretType;

  const remove = (secret: KubeObject): void => {
    const name = secret.metadata.name ?? '';
    const uid = secret.metadata.uid;
    const p = o.secrets
      .delete(o.namespace, name, uid === undefined ? {} : { preconditions: { uid } })
      .then(() => o.onDeleted?.(name))
      .catch((err: unknown) => {
        // Already gone, or replaced by another Secret of that name (uid precondition): nothing to do.
        if (err instanceof StatusError && (err.reason === 'NotFound' || err.reason === 'Conflict')) return;
        o.onError?.(err);
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  /** Deletes the Secret when expired, else arms a timer for its expiration (none without one). */
  const evaluate = (secret: KubeObject): void => {
    const name = secret.metadata.name ?? '';
    clearTimer(name);
    if (abort.signal.aborted || !isToken(secret)) return;
    if (isTokenExpired(secret, now())) {
      remove(secret);
      return;
    }
    const exp = tokenExpiration(secret);
    if (exp === undefined) return;
    const t = setTimeout(() => {
      timers.delete(name);
      void recheck(name);
    }, Math.min(maxTimerMs, Math.max(0, exp - now())));
    t.unref();
    timers.set(name, t);
  };

  /** A timer fired: look at the Secret as the cache has it now. */
  const recheck = async (name: string): Promise<void> => {
    try {
      const current = (await cache.get(keys.objectKey(o.namespace, name), 0)).object?.object;
      if (current !== undefined) evaluate(current);
    } catch (err) {
      if (!abort.signal.aborted) o.onError?.(err);
    }
  };

  const follow = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      try {
        const watcher = cache.watch({ keyPrefix: keys.collectionPrefix(o.namespace), start: { kind: 'state', revision: 0 }, signal: abort.signal });
        for await (const ev of watcher) {
          if (ev.type === 'BOOKMARK') continue;
          const secret = ev.object.object;
          if (ev.type === 'DELETED') clearTimer(secret.metadata.name ?? '');
          else evaluate(secret);
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        o.onError?.(err);
      }
      if (abort.signal.aborted) return;
      await sleep(o.retryMs ?? 1000, undefined, { signal: abort.signal, ref: false }).catch(() => undefined);
    }
  };
  const following = follow();

  return {
    async stop() {
      abort.abort();
      for (const name of [...timers.keys()]) clearTimer(name);
      await following;
      await Promise.all([...inFlight]);
    },
  };
}
