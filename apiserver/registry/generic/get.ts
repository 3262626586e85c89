/**
 * get: one object, 404 when missing.
 *
 * resourceVersion (spec "Resource version semantics for get and list"): unset is Most Recent, a
 * linearizable read from the store (as kube-apiserver 1.32 serves it); `0` (Any) and N (Not older than N)
 * are served from the watch cache, which waits up to 3 s to reach N and then answers 504 "Too large
 * resource version". Objects served from the cache are shared: callers never mutate them. A versioned kind
 * (custom resource) converts what it reads to the requested version, waiting only for a webhook.
 */
import type { KubeObject } from '../../api/object.js';
import { notFound } from '../../errors/constructors.js';
import type { GetOptions } from './options.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';
import { parseResourceVersion, requireNotOlderThan } from './resource-version.js';
import { translated } from './storage-errors.js';
import { isPromise } from '../versioned-storage.js';

export async function getObject(ctx: RegistryContext, namespace: string, name: string, opts: GetOptions = {}): Promise<KubeObject> {
  const key = ctx.keys.objectKey(requestNamespace(ctx, namespace), name);
  const rvText = opts.resourceVersion ?? '';
  const rv = parseResourceVersion(rvText);
  const cache = ctx.cache;
  if (cache !== undefined && rvText !== '') {
    const res = await translated(ctx.gr, name, () => cache.get(key, rv));
    if (res.object === undefined) throw notFound(ctx.gr, name);
    // The served form, memoized and marked shared: responses reuse its encodings.
    const served = ctx.shape.cached(res.object);
    return isPromise(served) ? (await served).object : served.object;
  }
  if (rv > 0) await requireNotOlderThan(ctx, rv);
  const res = await translated(ctx.gr, name, () => ctx.store.get(key));
  if (res.kv === undefined) throw notFound(ctx.gr, name);
  return ctx.shape.decode(res.kv);
}
