/**
 * Store keys, laid out as Kubernetes lays them out in etcd:
 *
 *   <prefix>/<resourcePrefix>/<namespace>/<name>     namespaced kinds
 *   <prefix>/<resourcePrefix>/<name>                 cluster-scoped kinds
 *
 * `prefix` is `--etcd-prefix` (default `/registry`). `resourcePrefix` is the resource name for built-in
 * kinds whatever their group (`/registry/secrets/ns/x`, `/registry/deployments/ns/x`), so keys do not
 * depend on `--group-domain`; custom resources pass `<group>/<resource>` (as kube does for CRDs), and a
 * kind may pass kube's historical exceptions (`minions` for nodes). Collection prefixes end in `/` so that
 * `/registry/secrets/a/` never matches `/registry/secrets/ab/...`.
 *
 * Names and namespaces must be one path segment (`.`, `..`, `/` and `%` are refused with 400) so a
 * client can never address a key outside the resource's prefix.
 */
import { badRequest } from '../../errors/constructors.js';
import { isPathSegmentName } from '../../validation/names.js';

export const DEFAULT_ETCD_PREFIX = '/registry';

export interface KeyLayout {
  /** `<prefix>/<resourcePrefix>`, without a trailing slash. */
  readonly base: string;
  /** The key of one object; 400 for a missing or unsafe name or namespace. */
  objectKey(namespace: string, name: string): string;
  /** The prefix to list: one namespace, or every object of the resource when `namespace` is ''. Ends in `/`. */
  collectionPrefix(namespace: string): string;
}

function trimSlashes(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === '/') a++;
  while (b > a && s[b - 1] === '/') b--;
  return s.slice(a, b);
}

export function keyLayout(prefix: string, resourcePrefix: string, namespaced: boolean): KeyLayout {
  const p = trimSlashes(prefix);
  const base = `${p === '' ? '' : `/${p}`}/${trimSlashes(resourcePrefix)}`;
  const checkNamespace = (namespace: string): void => {
    if (!namespaced) return;
    if (namespace === '') throw badRequest('Namespace parameter required.');
    const msgs = isPathSegmentName(namespace);
    if (msgs.length > 0) throw badRequest(`Namespace parameter invalid: ${JSON.stringify(namespace)}: ${msgs.join(';')}`);
  };
  return {
    base,
    objectKey(namespace, name) {
      checkNamespace(namespace);
      if (name === '') throw badRequest('Name parameter required.');
      const msgs = isPathSegmentName(name);
      if (msgs.length > 0) throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${msgs.join(';')}`);
      return namespaced ? `${base}/${namespace}/${name}` : `${base}/${name}`;
    },
    collectionPrefix(namespace) {
      if (!namespaced || namespace === '') return `${base}/`;
      checkNamespace(namespace);
      return `${base}/${namespace}/`;
    },
  };
}
