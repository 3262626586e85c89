/**
 * `kubectl get apiservices` columns, as kube-aggregator prints them: NAME, SERVICE (`<namespace>/<name>`,
 * or `Local`), AVAILABLE (`True`; `False (<reason>)` or `Unknown (<reason>)` when a reason is set; plain
 * `Unknown` without the condition) and AGE.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { availableCondition, serviceOf } from './apiservice-conditions.js';

function serviceCell(obj: KubeObject): string {
  const service = serviceOf(obj);
  return service === undefined ? 'Local' : `${service.namespace}/${service.name}`;
}

function availableCell(obj: KubeObject): string {
  const condition = availableCondition(obj);
  if (condition === undefined) return 'Unknown';
  if (condition.status === 'True' || condition.reason === undefined || condition.reason === '') return String(condition.status);
  return `${condition.status} (${condition.reason})`;
}

export const apiServiceTable: TableConvention = table(
  [
    nameColumn,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    ageColumn,
  ],
  (obj, now) => [nameCell(obj), serviceCell(obj), availableCell(obj), ageCell(obj, now)],
);
