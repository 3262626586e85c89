/**
 * watch: a stream of changes from the resource's watch cache (DESIGN.md invariants 3, 4, 10).
 *
 * Where the stream starts (spec "Watch", KEP-3157 for `sendInitialEvents`):
 *
 *   sendInitialEvents | resourceVersion unset              | `0`                   | N
 *   ----------------- | ---------------------------------- | --------------------- | -----------------------
 *   absent            | Get State at Most Recent           | Get State at Any      | Start at Exact N
 *   true              | Get State at Most Recent           | Get State at Any      | Get State not older than N
 *   false             | Start at Most Recent               | Start at Any          | Start at Exact N
 *
 * "Get State" sends one synthetic ADDED per matching object first; with `sendInitialEvents=true` and
 * bookmarks allowed, a BOOKMARK annotated `k8s.io/initial-events-end` ends them. "Most Recent" is the
 * store's current revision, read first, so a watch on any replica sees every write acknowledged before it.
 *
 * Errors answered before the stream starts (the watcher's `started`): a start at a compacted revision is
 * 410 Expired (`too old resource version: N (C)`); a revision the cache has not reached within 3 s is 504
 * "Too large resource version". Compaction that overtakes a running catch-up fails inside the stream.
 */
import type { KubeObject } from '../../api/object.js';
import { expired, internalError } from '../../errors/constructors.js';
import type { CacheWatcher, CacheWatchOptions } from '../../../storage/cache/types.js';
import type { Selectors } from './object-filter.js';
import { objectFilter } from './object-filter.js';
import type { RegistryContext } from './registry-context.js';
import { parseResourceVersion } from './resource-version.js';
import { storageToStatus, translated } from './storage-errors.js';
import { isStorageError } from '../../../storage/errors.js';

export interface WatchRequest extends Selectors {
  /** '' when absent. */
  readonly resourceVersion: string;
  readonly sendInitialEvents?: boolean | undefined;
  readonly allowWatchBookmarks: boolean;
  /** Epoch ms when the caller ends the watch (bookmarks are timed against it). */
  readonly deadline: number;
  readonly signal?: AbortSignal;
}

export async function watchObjects(ctx: RegistryContext, namespace: string, req: WatchRequest): Promise<CacheWatcher<KubeObject>> {
  const cache = ctx.cache;
  if (cache === undefined) throw internalError(`watch is not available for ${ctx.gr.resource}`);
  const rvText = req.resourceVersion;
  const rv = parseResourceVersion(rvText);
  const getState = req.sendInitialEvents ?? (rvText === '' || rvText === '0');

  let start: CacheWatchOptions<KubeObject>['start'];
  if (rvText === '' || (rv === 0 && !getState)) {
    // Most Recent; and "Start at Any" without state starts there too: the cache's own revision may be
    // older than a compaction it has not heard of yet on a quiet resource.
    const current = await translated(ctx.gr, '', () => ctx.store.currentRevision());
    start = { kind: getState ? 'state' : 'from', revision: current };
  } else if (rv === 0) {
    start = { kind: 'state', revision: 0 };
  } else {
    start = { kind: getState ? 'state' : 'from', revision: rv };
  }

  const watcher = cache.watch({
    ...objectFilter(ctx, namespace, req),
    start,
    bookmarks: req.allowWatchBookmarks,
    initialEventsEndBookmark: req.sendInitialEvents === true && req.allowWatchBookmarks,
    deadline: req.deadline,
    ...(req.signal === undefined ? {} : { signal: req.signal }),
  });
  // Decided before the response starts, so a compacted start is a 410 and an unreachable one a 504, not a
  // stream that ends at once.
  try {
    await watcher.started;
  } catch (err) {
    watcher.close();
    throw watchError(ctx, err);
  }
  // A view's watchers get each object converted once for all of them (stored-shape.ts).
  return ctx.shape.watcher(watcher);
}

/** A watch failure as a Status: kube's watch cache wording for a compacted start, `too old resource version: 5 (9)`. */
export function watchError(ctx: RegistryContext, err: unknown): unknown {
  if (isStorageError(err, 'Compacted')) return expired(`too old resource version: ${err.requestedRevision ?? 0} (${err.compactedRevision ?? 0})`);
  return storageToStatus(err, ctx.gr);
}
