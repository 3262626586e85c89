/**
 * The authorization attributes of an HTTP request: the user (after impersonation) and the request info,
 * as Kubernetes' WithAuthorization builds them. Beyond the request info:
 *
 * - a list or watch whose field selector pins `metadata.name` (`fieldSelector=metadata.name=x`, as
 *   `kubectl get pod x -w` sends) carries that name, so `resourceNames` rules can allow watching one
 *   object (Kubernetes' RequestInfoFactory does the same; a selector that does not parse, or a name that is
 *   not a valid path segment, leaves the name empty);
 * - non-resource requests carry the path and the lower-cased method (`get` for HEAD too).
 */
import type { UserInfo } from '../auth/user-info.js';
import type { RequestInfo } from '../request/request-info.js';
import { exactMatch, parseFieldSelector } from '../selectors/field-selector.js';
import { isPathSegmentName } from '../validation/names.js';
import type { AuthorizationAttributes } from './authorizer.js';

function selectedName(query: URLSearchParams): string {
  const text = query.get('fieldSelector');
  if (text === null || text === '') return '';
  try {
    const name = exactMatch(parseFieldSelector(text), 'metadata.name');
    return name !== undefined && isPathSegmentName(name).length === 0 ? name : '';
  } catch {
    return '';
  }
}

/** The decoded path, as Go's URL.Path (the raw one when it does not decode). */
function decodedPath(path: string): string {
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export function requestAttributes(user: UserInfo, info: RequestInfo, method: string, query: URLSearchParams): AuthorizationAttributes {
  if (!info.isResourceRequest) {
    return {
      user,
      verb: method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase(),
      isResourceRequest: false,
      path: decodedPath(info.path),
      namespace: '',
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      name: '',
    };
  }
  let name = info.name;
  if (name === '' && (info.verb === 'list' || info.verb === 'watch')) name = selectedName(query);
  return {
    user,
    verb: info.verb,
    isResourceRequest: true,
    path: decodedPath(info.path),
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name,
  };
}
