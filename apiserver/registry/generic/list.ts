/**
 * list: one snapshot per page, selectors applied while reading, pages filled up to `limit`.
 *
 * With a watch cache, lists that are not pages, continuations or `Exact` are served from it (see
 * `servedFromCache`); the rest read the store as follows.
 *
 * Revision semantics (spec "Resource version semantics for get and list"): without a continue token the
 * listing is read at the current revision (Most Recent, Any, Not older than), or at exactly
 * `resourceVersion` for `resourceVersionMatch=Exact` and for a first page of a limited list with a
 * non-zero resourceVersion. Continuations read at the token's revision (or the latest, for rv=-1 tokens).
 * When selectors drop items, the registry keeps reading from `lastKey\0` at the same revision, doubling the
 * page size up to 10,000, until the page is full or the prefix is exhausted. `remainingItemCount` is only
 * given without selectors. A compacted snapshot is 410 Expired; for a continuation the error carries a
 * fresh rv=-1 token (`ExpiredListError.continueToken`) that continues at the latest revision.
 */
import type { KubeList, KubeObject } from '../../api/object.js';
import { expired, expiredMessage } from '../../errors/constructors.js';
import { StatusError } from '../../errors/status-error.js';
import { isStorageError } from '../../../storage/errors.js';
import type { KeyValue } from '../../../storage/interface.js';
import { CONTINUE_AT_LATEST, decodeContinue, encodeContinue } from './continue-token.js';
import { validateListOptions } from './list-options.js';
import { decodeObject } from './object-codec.js';
import type { ListOptions } from './options.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';
import { parseResourceVersion, requireNotOlderThan } from './resource-version.js';
import { objectFilter, objectPredicate } from './object-filter.js';
import { storageToStatus, translated } from './storage-errors.js';
import { isPromise } from '../versioned-storage.js';
import { lazyItemsList } from '../../codec/lazy-list.js';
import { servesProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import { itemJson, type ItemJson } from '../../codec/shared-json.js';
import type { CachedObject } from '../../../storage/cache/types.js';
import type { StoredShape } from './stored-shape.js';
import { servedBytes } from './served-bytes.js';
import { servedProtobuf } from './served-protobuf.js';

const MAX_PAGE = 10_000;

export const inconsistentContinueMessage =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * 410 Expired for a continuation whose snapshot was compacted. The handler must render `continueToken` as
 * the Status body's `metadata.continue` (errors/status-body.ts has no list metadata).
 */
export class ExpiredListError extends StatusError {
  constructor(readonly continueToken: string) {
    super('Expired', inconsistentContinueMessage, undefined, undefined, { continue: continueToken });
  }
}

export async function listObjects(ctx: RegistryContext, namespace: string, opts: ListOptions = {}): Promise<KubeList> {
  validateListOptions(ctx, opts);
  const limit = opts.limit !== undefined && opts.limit > 0 ? Math.floor(opts.limit) : 0;
  if (ctx.cache !== undefined && servedFromCache(opts, limit)) return listFromCache(ctx, namespace, opts);
  const prefix = ctx.keys.collectionPrefix(requestNamespace(ctx, namespace));
  const matches = objectPredicate(ctx, opts);
  const filtered = matches !== undefined;

  let revision = 0;
  let startKey: string | undefined;
  let tokenStart: string | undefined;
  const cont = opts.continue ?? '';
  if (cont !== '') {
    const pos = decodeContinue(cont, prefix);
    startKey = pos.startKey;
    tokenStart = pos.startKey;
    revision = pos.revision === CONTINUE_AT_LATEST ? 0 : pos.revision;
  } else {
    const rv = parseResourceVersion(opts.resourceVersion);
    const exact = rv > 0 && (opts.resourceVersionMatch === 'Exact' || (limit > 0 && opts.resourceVersionMatch === undefined));
    if (exact) revision = rv;
    else if (rv > 0) await requireNotOlderThan(ctx, rv);
  }

  const items: KubeObject[] = [];
  let pageSize = limit;
  let more = false;
  let lastKey: string | undefined;
  let remaining: number | undefined;
  try {
    for (;;) {
      const res = await ctx.store.list(prefix, { revision, ...(startKey === undefined ? {} : { startKey }), limit: pageSize });
      revision = res.revision;
      let consumedAll = true;
      for (let i = 0; i < res.items.length; i++) {
        const kv = res.items[i] as KeyValue;
        // Selectors see the stored object (see StoredShape.selectable); the page converts at the end.
        const stored = decodeObject(kv);
        if (matches !== undefined && !matches(stored)) continue;
        items.push(stored);
        if (limit > 0 && items.length === limit) {
          lastKey = kv.key;
          consumedAll = i === res.items.length - 1;
          break;
        }
      }
      if (limit > 0 && items.length === limit) {
        more = !consumedAll || res.more;
        if (more && !filtered) remaining = res.count - res.items.length;
        break;
      }
      if (!res.more || res.items.length === 0) break;
      startKey = `${res.items[res.items.length - 1]!.key}\x00`;
      pageSize = Math.min(pageSize * 2, MAX_PAGE);
    }
  } catch (err) {
    if (isStorageError(err, 'Compacted')) {
      if (tokenStart !== undefined) throw new ExpiredListError(encodeContinue(tokenStart, prefix, CONTINUE_AT_LATEST));
      throw expired(expiredMessage);
    }
    throw storageToStatus(err, ctx.gr);
  }

  // One conversion for the page (one ConversionReview when a webhook converts).
  const converted = ctx.shape.fromStored(items);
  const served = isPromise(converted) ? await converted : converted;
  const metadata: KubeList['metadata'] = { resourceVersion: String(revision) };
  if (more && lastKey !== undefined) {
    metadata.continue = encodeContinue(`${lastKey}\x00`, prefix, revision);
    if (remaining !== undefined && remaining > 0) metadata.remainingItemCount = remaining;
  }
  return { apiVersion: ctx.apiVersion, kind: `${ctx.strategy.kind}List`, metadata, items: served };
}

/**
 * Whether the watch cache serves a list, as kube-apiserver 1.32 decides (consistent lists from cache on):
 * not continuations, not `Exact`, and not pages (`limit`) unless at resourceVersion `0`, which the cache
 * answers whole. Everything else — Most Recent, Any, Not older than — comes from the cache.
 */
function servedFromCache(opts: ListOptions, limit: number): boolean {
  if ((opts.continue ?? '') !== '') return false;
  if (opts.resourceVersionMatch === 'Exact') return false;
  const rv = opts.resourceVersion ?? '';
  return limit === 0 || rv === '0';
}

/**
 * A list from the watch cache. Most Recent (`resourceVersion` unset) is a consistent read: the store's
 * current revision is read first and the cache waits until it has caught up with it (invariant 5).
 * Items are the cache's shared objects, in key order.
 */
async function listFromCache(ctx: RegistryContext, namespace: string, opts: ListOptions): Promise<KubeList> {
  const cache = ctx.cache!;
  const rvText = opts.resourceVersion ?? '';
  const minRevision = rvText === '' ? await translated(ctx.gr, '', () => ctx.store.currentRevision()) : parseResourceVersion(rvText);
  const res = await translated(ctx.gr, '', () => cache.list({ ...objectFilter(ctx, namespace, opts), minRevision }));
  const head = { apiVersion: ctx.apiVersion, kind: `${ctx.strategy.kind}List`, metadata: { resourceVersion: String(res.revision) } };
  const shape = ctx.shape;
  if (!shape.converts) {
    // Served as stored: objects nobody has decoded are sent as JSON straight from their stored bytes, or as
    // protobuf from a decoding kept by nobody, and decoded into the cache only if something reads the list's
    // items (a Table, an audit of the response).
    const cs = res.items;
    const schema = ctx.strategy.schema;
    return lazyItemsList<KubeList>(head, {
      count: cs.length,
      json: (i) => cachedItemJson(shape, cs[i]!),
      ...(servesProtobuf(schema) ? { protobuf: (i: number) => servedProtobuf(schema, cs[i]!).raw } : {}),
    }, () => shape.cachedList(cs) as KubeObject[]);
  }
  // The served forms, memoized and marked shared: responses reuse their encodings (codec/shared-json.ts).
  const served = shape.cachedList(res.items);
  const items = isPromise(served) ? await served : served;
  return { ...head, items };
}

/** A cached object's JSON for a list of a kind served as stored: its served bytes, else its memoized JSON. */
function cachedItemJson(shape: StoredShape, c: CachedObject<KubeObject>): ItemJson {
  return servedBytes(c) ?? itemJson((shape.cached(c) as CachedObject<KubeObject>).object);
}
