/**
 * `kubectl get statefulsets` columns as kube-apiserver 1.32 prints them: NAME, READY (`ready/desired`:
 * status.readyReplicas over spec.replicas) and AGE; with `-o wide` also CONTAINERS and IMAGES of the
 * template.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { containerCells, wideContainerColumns } from '../core/pod/template-cells.js';
import { count } from './workload-table.js';

export const statefulSetTable: TableConvention = table(
  [
    nameColumn,
    column('Ready', 'string', 'Number of the pod with ready state'),
    ageColumn,
    ...wideContainerColumns,
  ],
  (obj: KubeObject, now) => {
    const spec = obj.spec as Record<string, unknown> | undefined;
    return [nameCell(obj), `${count(obj.status, 'readyReplicas')}/${count(spec, 'replicas')}`, ageCell(obj, now), ...containerCells(spec?.template)];
  },
);
