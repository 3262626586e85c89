/**
 * `kubectl get hpa` columns as kube-apiserver 1.32 prints them: NAME, REFERENCE (`<kind>/<name>` of the
 * scale target), TARGETS, MINPODS (`<unset>` when absent), MAXPODS, REPLICAS (status.currentReplicas), AGE.
 *
 * TARGETS: Kubernetes prints the internal object's metrics; a v1 object's only metric is CPU utilization,
 * `cpu: <current>/<target>`, the current value from `status.currentCPUUtilizationPercentage` or
 * `<unknown>`. Without `targetCPUUtilizationPercentage` Kubernetes reads the object back with its default
 * policy, 80% CPU, so that is the target shown.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { isObject, numberAt, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

/** The CPU utilization target of the default autoscaling policy (Kubernetes' DefaultCPUUtilization). */
export const DEFAULT_CPU_UTILIZATION = 80;

const part = (o: KubeObject, key: 'spec' | 'status'): JsonObject => (isObject(o[key]) ? (o[key] as JsonObject) : {});

export function hpaTargets(obj: KubeObject): string {
  const target = numberAt(part(obj, 'spec'), 'targetCPUUtilizationPercentage') ?? DEFAULT_CPU_UTILIZATION;
  const current = numberAt(part(obj, 'status'), 'currentCPUUtilizationPercentage');
  return `cpu: ${current === undefined ? '<unknown>' : `${current}%`}/${target}%`;
}

export const hpaTable: TableConvention = table(
  [
    nameColumn,
    column('Reference', 'string', 'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.'),
    column('Targets', 'string', 'the target metrics and their current values'),
    column('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
    column('MaxPods', 'integer', 'maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.'),
    column('Replicas', 'integer', 'currentReplicas is the current number of replicas of pods managed by this autoscaler.'),
    ageColumn,
  ],
  (obj: KubeObject, now) => {
    const spec = part(obj, 'spec');
    const ref = isObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
    const min = numberAt(spec, 'minReplicas');
    return [
      nameCell(obj),
      `${stringAt(ref, 'kind')}/${stringAt(ref, 'name')}`,
      hpaTargets(obj),
      min === undefined ? '<unset>' : String(min),
      numberAt(spec, 'maxReplicas') ?? 0,
      numberAt(part(obj, 'status'), 'currentReplicas') ?? 0,
      ageCell(obj, now),
    ];
  },
);
