/**
 * Query options of list and deletecollection, parsed by request/query.ts, with the field labels checked
 * against the kind's (400 `field label not supported: x`).
 */
import type { ListOptions } from '../../registry/generic/options.js';
import { parseListOptions } from '../../request/query.js';
import { COMMON_FIELD_LABELS, checkFieldLabels } from '../../selectors/field-selector.js';
import type { RequestScope } from './request-scope.js';

export function listOptions(scope: RequestScope): ListOptions {
  const o = parseListOptions(scope.query, { watchListEnabled: scope.features.enabled('WatchList') });
  checkFieldLabels(o.fieldSelector, [...COMMON_FIELD_LABELS, ...Object.keys(scope.served.strategy.selectableFields ?? {})]);
  return {
    ...(o.labelSelector.empty ? {} : { labelSelector: o.labelSelector }),
    ...(o.fieldSelector.empty ? {} : { fieldSelector: o.fieldSelector }),
    ...(o.limit > 0 ? { limit: o.limit } : {}),
    ...(o.continue === '' ? {} : { continue: o.continue }),
    ...(scope.query.has('resourceVersion') ? { resourceVersion: o.resourceVersion } : {}),
    ...(o.resourceVersionMatch === '' ? {} : { resourceVersionMatch: o.resourceVersionMatch }),
  };
}
