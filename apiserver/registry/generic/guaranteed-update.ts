/**
 * The guaranteed-update loop (DESIGN.md invariant 1): read the key, compute the next state from it, write it
 * with a compare on the modRevision that was read. A failed compare returns the fresh state, which feeds
 * the next round with no extra read (compare-and-swap.ts, the loop shared with delete). Preconditions are
 * the caller's business (`next` throws 409 when the client's resourceVersion or uid does not match what it
 * is given), so a client that sent one is never retried past it, and one that did not is retried until it
 * wins.
 *
 * `next` decides what to do with the current state (undefined when the key does not exist): write a new
 * state, create it (create-on-update), delete the key (an update that emptied the finalizers of an object
 * being deleted), or nothing (the result equals the current object: no write, the current object and its
 * resourceVersion are returned, as kube skips unchanged writes). Dry runs stop before the store. An
 * outcome's `finish` (the server's WriteHooks reservations of that attempt) is called once per attempt with
 * whether it was stored; a delete outcome runs `WriteHooks.afterDelete` once the key is gone.
 *
 * The current object is read in the served version and a written one answered as stored and read back
 * (`StoredShape.written`): for a custom resource served in a version other than its storage version, an
 * update converts the current object, the result back to the storage version, and the stored result again.
 */
import { throwIfCancelled } from './cancelled.js';
import type { KubeObject } from '../../api/object.js';
import type { KeyValue } from '../../../storage/interface.js';
import { isStaleValue } from '../../../storage/transforming-store.js';
import { jsonClone, jsonEqual } from '../patch/json-value.js';
import { isPromise, type MaybePromise } from '../versioned-storage.js';
import type { RegistryContext } from './registry-context.js';
import type { FinishWrite } from '../kind-strategy.js';
import { compareAndSwapLoop, type FirstState } from './compare-and-swap.js';
import { encodeObject } from './object-codec.js';
import { storedValue } from '../../../storage/cache/cache-entry.js';

export type UpdateOutcome =
  | {
    readonly type: 'write' | 'create' | 'delete';
    readonly obj: KubeObject;
    readonly warnings: readonly string[];
    /** Ends the server's reservations for this attempt (WriteHooks): called once, with whether it was stored. */
    readonly finish?: FinishWrite;
  }
  | { readonly type: 'unchanged'; readonly warnings: readonly string[] };

export interface LoopResult {
  readonly object: KubeObject;
  readonly outcome: UpdateOutcome['type'];
  readonly warnings: readonly string[];
}

/**
 * The current object for one round: `owned` for `next`, and `kept()` to answer with when nothing changes.
 * A synchronous boundary decodes twice (cheaper than a deep copy); one that converts (a webhook, maybe)
 * converts once and copies.
 */
function current(ctx: RegistryContext, kv: KeyValue | undefined): MaybePromise<{ owned: KubeObject | undefined; kept: () => KubeObject }> {
  if (kv === undefined) return { owned: undefined, kept: () => undefined as never };
  const decoded = ctx.shape.decode(kv);
  if (!isPromise(decoded)) return { owned: decoded, kept: () => ctx.shape.decode(kv) as KubeObject };
  return decoded.then((obj) => ({ owned: jsonClone(obj), kept: () => obj }));
}

/** Equal apart from `metadata.resourceVersion`. */
export function sameObject(a: KubeObject, b: KubeObject): boolean {
  return jsonEqual({ ...a, metadata: { ...a.metadata, resourceVersion: undefined } }, { ...b, metadata: { ...b.metadata, resourceVersion: undefined } });
}

export async function guaranteedUpdate(
  ctx: RegistryContext,
  key: string,
  name: string,
  dryRun: boolean,
  next: (current: KubeObject | undefined) => UpdateOutcome | Promise<UpdateOutcome>,
  signal?: AbortSignal,
): Promise<LoopResult> {
  return compareAndSwapLoop(ctx, key, name, async (kv, attempt) => {
    const read = current(ctx, kv);
    const { owned, kept } = isPromise(read) ? await read : read;
    const out = await next(owned);
    if (out.type === 'unchanged') return { object: kept(), outcome: 'unchanged', warnings: out.warnings };
    let committed = false;
    try {
      // A stale value (read with an older encryption provider or key) is written even when unchanged, so a
      // storage migration re-encrypts it (kube's GuaranteedUpdate; storage/transforming-store.ts).
      if (out.type !== 'create' && kv !== undefined && out.type === 'write' && !isStaleValue(kv)) {
        const before = kept();
        if (sameObject(out.obj, before)) return { object: before, outcome: 'unchanged', warnings: out.warnings };
      }
      if (dryRun && !ctx.shape.converts) return { object: out.obj, outcome: out.type, warnings: out.warnings };
      return await attempt(async () => {
        let object = out.obj;
        if (out.type === 'delete') {
          if (!dryRun) {
            throwIfCancelled(signal);
            const gone = await ctx.store.delete(key, kv!.modRevision);
            ctx.cache?.noteWrite(key, gone.revision);
            await ctx.writeHooks?.afterDelete(out.obj);
          }
        } else {
          const encoded = ctx.shape.encode(out.obj);
          const bytes = isPromise(encoded) ? await encoded : encoded;
          let rv = out.obj.metadata.resourceVersion;
          if (!dryRun) {
            // The request may have been answered 504 while admission or a conversion ran: write nothing then.
            throwIfCancelled(signal);
            const res = out.type === 'create'
              ? await ctx.store.create(key, bytes, ctx.writeOptions)
              : await ctx.store.update(key, bytes, kv!.modRevision, ctx.writeOptions);
            rv = String(res.revision);
            committed = true;
            ctx.cache?.noteWrite(key, res.revision, bytes);
          }
          // A converting kind answers what it stored, read back (StoredShape.written); a dry run converts too.
          const written = ctx.shape.written(out.obj, bytes);
          object = isPromise(written) ? await written : written;
          if (rv === undefined) delete object.metadata.resourceVersion;
          else object.metadata.resourceVersion = rv;
        }
        return { object, outcome: out.type, warnings: out.warnings };
      });
    } finally {
      await out.finish?.(committed);
    }
  }, dryRun ? undefined : cachedFirstState(ctx, key));
}

/** A round from a hint counts only when it wrote (see `cachedFirstState`). */
const vouched = (r: LoopResult): boolean => r.outcome !== 'unchanged';

/**
 * The first round's state without a read of the store (kube's cached existing object): the value this
 * process last wrote to `key` while the watch cache has not reached that write (a hot object:
 * `WatchCache.ownWrite`), else the cache's copy. A write from it carries a compare on its modRevision, so a
 * stale hint costs one failed compare, which returns the store's state. Only a committed write proves the
 * hint was current; an unchanged result or a refusal is decided again from the store. Not for dry runs,
 * which write nothing.
 */
function cachedFirstState(ctx: RegistryContext, key: string): FirstState<LoopResult> | undefined {
  const own = ctx.cache?.ownWrite(key);
  if (own !== undefined) return { kv: { key, value: own.value, createRevision: 0, modRevision: own.revision }, vouched };
  const cached = ctx.cache?.peek(key);
  if (cached === undefined) return undefined;
  // The stored bytes while the copy is undecoded (the round decodes its first state anyway); a decoded copy
  // is encoded back, which gives the same bytes without the resourceVersion decoding added.
  let value = storedValue(cached);
  if (value === undefined) {
    try {
      value = encodeObject(cached.object);
    } catch {
      return undefined; // undecodable in the cache: the store's bytes decide
    }
  }
  return { kv: { key, value, createRevision: 0, modRevision: cached.revision }, vouched };
}
