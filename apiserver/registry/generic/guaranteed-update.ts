/**
 * The guaranteed-update loop (DESIGN.md invariant 1): read the key, compute the next state from it, write it
 * with a compare on the modRevision that was read. A failed compare returns the fresh state, which feeds
 * the next round with no extra read. Preconditions are the caller's business (`next` throws 409 when the
 * client's resourceVersion or uid does not match what it is given), so a client that sent one is never
 * retried past it, and one that did not is retried until it wins.
 *
 * `next` decides what to do with the current state (undefined when the key does not exist): write a new
 * state, create it (create-on-update), delete the key (an update that emptied the finalizers of an object
 * being deleted), or nothing (the result equals the current object: no write, the current object and its
 * resourceVersion are returned, as kube skips unchanged writes). Dry runs stop before the store.
 */
import type { KubeObject } from '../../api/object.js';
import { isStorageError } from '../../../storage/errors.js';
import type { KeyValue } from '../../../storage/interface.js';
import { jsonEqual } from '../patch/json-value.js';
import type { RegistryContext } from './registry-context.js';
import { storageToStatus } from './storage-errors.js';

export type UpdateOutcome =
  | { readonly type: 'write' | 'create' | 'delete'; readonly obj: KubeObject; readonly warnings: readonly string[] }
  | { readonly type: 'unchanged'; readonly warnings: readonly string[] };

export interface LoopResult {
  readonly object: KubeObject;
  readonly outcome: UpdateOutcome['type'];
  readonly warnings: readonly string[];
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
): Promise<LoopResult> {
  let kv: KeyValue | undefined;
  try {
    kv = (await ctx.store.get(key)).kv;
  } catch (err) {
    throw storageToStatus(err, ctx.gr, name);
  }
  for (;;) {
    // Two decodes: `next` owns its copy, the loop keeps one to answer with when nothing changes.
    const decode = ctx.shape.decode;
    const out = await next(kv === undefined ? undefined : decode(kv));
    if (out.type === 'unchanged') return { object: decode(kv!), outcome: 'unchanged', warnings: out.warnings };
    if (out.type !== 'create' && kv !== undefined && out.type === 'write' && sameObject(out.obj, decode(kv))) {
      return { object: decode(kv), outcome: 'unchanged', warnings: out.warnings };
    }
    if (dryRun) return { object: out.obj, outcome: out.type, warnings: out.warnings };
    try {
      if (out.type === 'create') {
        const res = await ctx.store.create(key, ctx.shape.encode(out.obj), ctx.writeOptions);
        out.obj.metadata.resourceVersion = String(res.revision);
      } else if (out.type === 'write') {
        const res = await ctx.store.update(key, ctx.shape.encode(out.obj), kv!.modRevision, ctx.writeOptions);
        out.obj.metadata.resourceVersion = String(res.revision);
      } else {
        await ctx.store.delete(key, kv!.modRevision);
      }
      return { object: out.obj, outcome: out.type, warnings: out.warnings };
    } catch (err) {
      if (isStorageError(err, 'Conflict') || isStorageError(err, 'AlreadyExists')) {
        kv = err.current;
        continue;
      }
      if (isStorageError(err, 'NotFound')) {
        kv = undefined;
        continue;
      }
      throw storageToStatus(err, ctx.gr, name);
    }
  }
}
