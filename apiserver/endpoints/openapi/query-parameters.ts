/**
 * The query parameters Kubernetes publishes per operation (spec 1 "Query parameters used across resource
 * types"), with their types and short descriptions. Operation kinds list them by name, in Kubernetes'
 * (alphabetical) order; the renderers turn them into v2 or v3 parameter objects.
 */
export type ParamType = 'string' | 'boolean' | 'integer';

export interface ParamSpec {
  readonly name: string;
  readonly type: ParamType;
  readonly description: string;
}

const p = (name: string, type: ParamType, description: string): ParamSpec => ({ name, type, description });

export const queryParams = {
  allowWatchBookmarks: p('allowWatchBookmarks', 'boolean', 'Requests watch events of type "BOOKMARK". Servers may send them at their discretion; clients must not assume any interval.'),
  continue: p('continue', 'string', 'Token from a previous chunked list call to fetch the next chunk. Expires with compaction (410 Gone).'),
  dryRun: p('dryRun', 'string', 'When present, modifications are not persisted. Valid values: "All" (run every stage without persisting).'),
  fieldManager: p('fieldManager', 'string', 'Name of the actor making the change; at most 128 printable characters. Required for apply patches.'),
  fieldSelector: p('fieldSelector', 'string', 'Restricts the returned objects by their fields. Defaults to everything.'),
  fieldValidation: p('fieldValidation', 'string', 'How to handle unknown or duplicate fields in the body: Ignore, Warn (default, as Warning headers) or Strict (400 Bad Request).'),
  force: p('force', 'boolean', 'Apply patches only: take ownership of conflicting fields. Must be unset for other patch types.'),
  gracePeriodSeconds: p('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; zero deletes immediately. Defaults to the kind\'s value.'),
  ignoreStoreReadErrorWithClusterBreakingPotential: p(
    'ignoreStoreReadErrorWithClusterBreakingPotential', 'boolean',
    'Deletes an object that cannot be read from storage (corrupt), skipping finalizers and preconditions. Unsafe; defaults to false.',
  ),
  labelSelector: p('labelSelector', 'string', 'Restricts the returned objects by their labels. Defaults to everything.'),
  limit: p('limit', 'integer', 'Maximum number of items of a list call; a continue token is returned when more remain.'),
  orphanDependents: p('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy. Whether dependents are orphaned.'),
  pretty: p('pretty', 'string', 'If "true", the output is pretty printed. Defaults to false unless the client is a browser.'),
  propagationPolicy: p('propagationPolicy', 'string', 'Whether and how garbage collection is performed: Orphan, Background or Foreground.'),
  resourceVersion: p('resourceVersion', 'string', 'Constrains which resource versions a request may be served from. Defaults to unset.'),
  resourceVersionMatch: p('resourceVersionMatch', 'string', 'How resourceVersion applies to list calls: Exact or NotOlderThan. Requires resourceVersion.'),
  sendInitialEvents: p('sendInitialEvents', 'boolean', 'With watch=true, starts the stream with synthetic events for the current state, then a bookmark marking its end.'),
  timeoutSeconds: p('timeoutSeconds', 'integer', 'Timeout of the list/watch call, regardless of activity.'),
  watch: p('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update and remove notifications.'),
} as const satisfies Record<string, ParamSpec>;

export type QueryParamName = keyof typeof queryParams;

const listParams: readonly QueryParamName[] = [
  'allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch',
  'sendInitialEvents', 'timeoutSeconds', 'watch',
];
const writeParams: readonly QueryParamName[] = ['dryRun', 'fieldManager', 'fieldValidation'];

/** The query parameters of each Kubernetes action (`x-kubernetes-action`), besides `pretty`. */
export const actionParams = {
  get: [],
  list: listParams,
  watch: listParams,
  watchlist: listParams,
  post: writeParams,
  put: writeParams,
  patch: [...writeParams, 'force'],
  delete: ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy'],
  deletecollection: [
    'continue', 'dryRun', 'fieldSelector', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'labelSelector',
    'limit', 'orphanDependents', 'propagationPolicy', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds',
  ],
} as const satisfies Record<string, readonly QueryParamName[]>;

export type Action = keyof typeof actionParams;
