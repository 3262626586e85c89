/**
 * Document 2's reduced query parameter sets ("Endpoints", "Query parameter sets"), as published by the
 * kinds it names (KindStrategy.publishedQueryParameters). `pretty` is published on every path and is not
 * repeated here.
 */
import type { KindStrategy } from '../../kind-strategy.js';

type Sets = NonNullable<KindStrategy['publishedQueryParameters']>;

/** HorizontalPodAutoscaler and PodTemplate. */
export const REDUCED_QUERY_PARAMETERS: Sets = Object.freeze({
  list: Object.freeze(['continue', 'limit', 'watch']),
  post: Object.freeze(['dryRun']),
  put: Object.freeze(['dryRun']),
  patch: Object.freeze(['dryRun', 'force']),
  delete: Object.freeze(['dryRun']),
  deletecollection: Object.freeze(['continue', 'dryRun', 'limit']),
});

/** ServiceAccount: the namespaced list adds `sendInitialEvents`, deletecollection too. */
export const SERVICE_ACCOUNT_QUERY_PARAMETERS: Sets = Object.freeze({
  ...REDUCED_QUERY_PARAMETERS,
  namespacedList: Object.freeze(['continue', 'limit', 'sendInitialEvents', 'watch']),
  deletecollection: Object.freeze(['continue', 'dryRun', 'limit', 'sendInitialEvents']),
});
