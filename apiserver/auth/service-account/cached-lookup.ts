/**
 * Object lookups for token validation through a resource's watch cache (what kube's informer listers
 * give its service account getter), so authenticating a token is no store read. A miss is confirmed
 * against the store, as kube's getter falls back to a live read: the object may have been created an
 * instant ago (a token requested right after its service account), and a wrong "not found" would reject
 * a valid token.
 */
import { isStatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { ObjectLookup } from './token-authenticator.js';

export function cachedLookup(registry: GenericRegistry): ObjectLookup {
  const { cache, keys } = registry.context;
  return async (namespace, name) => {
    if (cache !== undefined) {
      const hit = (await cache.get(keys.objectKey(namespace, name), 0)).object?.object;
      if (hit !== undefined) return hit;
    }
    try {
      return await registry.get(namespace, name);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
  };
}
