/**
 * The garbage collector's REST mapper: an ownerReference's (or node's) apiVersion and kind to the served
 * resource that holds such objects, over what the server serves now (custom resources come and go). As
 * kube's mapper, an apiVersion must be served as given: a kind known only in other versions does not map.
 * A failure is a `RestMappingError`, which the collector logs and retries with back-off (the kind may be a
 * custom resource whose definition is not served yet) and never treats as an absent owner.
 */
import type { ServedResource, ServedResources } from '../../registry/served-resources.js';

export class RestMappingError extends Error {
  constructor(apiVersion: string, kind: string) {
    super(`unable to get REST mapping for kind: ${kind}, version: ${apiVersion}`);
    this.name = 'RestMappingError';
  }
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function apiVersionOf(r: ServedResource): string {
  return r.group === '' ? r.strategy.version : `${r.group}/${r.strategy.version}`;
}

export interface OwnerResolver {
  /** The served resource of `apiVersion` + `kind`; throws RestMappingError when none. */
  resolve(apiVersion: string, kind: string): ServedResource;
}

export function ownerResolver(resources: ServedResources): OwnerResolver {
  let seen: readonly ServedResource[] | undefined;
  let byKind = new Map<string, ServedResource>();
  return {
    resolve(apiVersion, kind) {
      if (seen !== resources.all) {
        seen = resources.all;
        byKind = new Map();
        for (const r of seen) {
          // Stored kinds only (the reviews are never stored); the first of a kind wins, as discovery lists it.
          if (r.strategy.virtual !== undefined) continue;
          const key = `${apiVersionOf(r)}\u0000${r.strategy.kind}`;
          if (!byKind.has(key)) byKind.set(key, r);
        }
      }
      const r = byKind.get(`${apiVersion}\u0000${kind}`);
      if (r === undefined) throw new RestMappingError(apiVersion, kind);
      return r;
    },
  };
}
