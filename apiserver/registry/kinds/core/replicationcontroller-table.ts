/**
 * `kubectl get replicationcontrollers` columns as kube-apiserver 1.32 prints them: NAME, DESIRED
 * (spec.replicas), CURRENT (status.replicas), READY (status.readyReplicas) and AGE; with `-o wide` also
 * CONTAINERS, IMAGES and SELECTOR (`k=v,...` with sorted keys, `<none>` when empty).
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { count } from '../apps/workload-table.js';
import { containerCells, wideContainerColumns } from './pod/template-cells.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { formatLabels } from '../../../selectors/label-format.js';
import { isObject } from './pod/json-values.js';

export const replicationControllerTable: TableConvention = table(
  [
    nameColumn,
    column('Desired', 'integer', 'Replicas is the number of desired replicas.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
    ageColumn,
    ...wideContainerColumns,
    column('Selector', 'string', 'Selector is a label query over pods that should match the Replicas count.', 1),
  ],
  (obj: KubeObject, now) => {
    const spec = isObject(obj.spec) ? obj.spec : {};
    return [
      nameCell(obj),
      count(spec, 'replicas'),
      count(obj.status, 'replicas'),
      count(obj.status, 'readyReplicas'),
      ageCell(obj, now),
      ...containerCells(spec.template),
      formatLabels(spec.selector),
    ];
  },
);
