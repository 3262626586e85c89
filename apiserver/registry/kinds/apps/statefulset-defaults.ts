/**
 * The StatefulSet defaults a schema cannot state, as Kubernetes v1.32 applies them when it decodes every
 * write (apps/v1 SetDefaults_StatefulSet, the pod template's and the claim templates' defaults), run by
 * the kind's prepare hooks after the schema defaults:
 *
 * - `podManagementPolicy` OrderedReady when absent or empty;
 * - `updateStrategy.type` RollingUpdate when absent or empty, and then an empty `rollingUpdate`; a
 *   RollingUpdate strategy WITH `rollingUpdate` gets `partition: 0` (a RollingUpdate strategy sent
 *   without `rollingUpdate` stays without one, as upstream);
 * - `persistentVolumeClaimRetentionPolicy` Retain/Retain (gate StatefulSetAutoDeletePVC, on in v1.32);
 * - `replicas` 1 and `revisionHistoryLimit` 10 when absent;
 * - `rollingUpdate.maxUnavailable` is dropped unless the stored object already uses it: its gate,
 *   MaxUnavailableStatefulSet, is alpha and off (Kubernetes' dropStatefulSetDisabledFields);
 * - the pod template's defaults (pod/pod-defaults.ts);
 * - each claim template gets `apiVersion: v1` and `kind: PersistentVolumeClaim`, as apps/v1's conversion
 *   writes them (kubernetes#87583), and its quantities in canonical form.
 */
import type { KubeObject } from '../../../api/object.js';
import { formatQuantity, parseQuantity } from '../shared/quantity.js';
import { isObject, objectAt, objectItems, arrayAt, type JsonObject } from '../core/pod/json-values.js';
import { defaultPodSpec } from '../core/pod/pod-defaults.js';

/** Go's `len(x) == 0` of a string field: absent or empty (a value of another type is the schema's to report). */
const unset = (o: JsonObject, key: string): boolean => o[key] === undefined || o[key] === '';

/** Quantities of a claim's resources, canonical as Kubernetes stores them (`1024Mi` -> `1Gi`). */
function canonicalQuantities(map: JsonObject | undefined): void {
  if (map === undefined) return;
  for (const [k, v] of Object.entries(map)) {
    const q = parseQuantity(v);
    if (q !== undefined) map[k] = formatQuantity(q);
  }
}

function defaultClaimTemplates(spec: JsonObject): void {
  for (const [, claim] of objectItems(arrayAt(spec, 'volumeClaimTemplates'))) {
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    const resources = objectAt(objectAt(claim, 'spec') ?? {}, 'resources');
    if (resources !== undefined) {
      canonicalQuantities(objectAt(resources, 'limits'));
      canonicalQuantities(objectAt(resources, 'requests'));
    }
  }
}

/** Whether `old` (the stored object, if any) sets `rollingUpdate.maxUnavailable`. */
const maxUnavailableInUse = (old: KubeObject | undefined): boolean => {
  const spec = isObject(old?.spec) ? old.spec : {};
  const ru = objectAt(objectAt(spec, 'updateStrategy') ?? {}, 'rollingUpdate');
  return ru !== undefined && ru.maxUnavailable !== undefined && ru.maxUnavailable !== null;
};

function defaultStrategy(strategy: JsonObject, old: KubeObject | undefined): void {
  if (unset(strategy, 'type')) {
    strategy.type = 'RollingUpdate';
    if (strategy.rollingUpdate === undefined) strategy.rollingUpdate = {};
  }
  const rollingUpdate = objectAt(strategy, 'rollingUpdate');
  if (rollingUpdate === undefined) return;
  if (strategy.type === 'RollingUpdate' && rollingUpdate.partition === undefined) rollingUpdate.partition = 0;
  if (!maxUnavailableInUse(old)) delete rollingUpdate.maxUnavailable;
}

/** Applies the defaults to `sts` (owned) in place; `old` is the stored object on updates. */
export function defaultStatefulSet(sts: KubeObject, old?: KubeObject): void {
  if (!isObject(sts.spec)) return;
  const spec = sts.spec;
  if (unset(spec, 'podManagementPolicy')) spec.podManagementPolicy = 'OrderedReady';

  // Values of the wrong type are left for the schema to report.
  if (spec.updateStrategy === undefined) spec.updateStrategy = {};
  const strategy = objectAt(spec, 'updateStrategy');
  if (strategy !== undefined) defaultStrategy(strategy, old);

  if (spec.persistentVolumeClaimRetentionPolicy === undefined) spec.persistentVolumeClaimRetentionPolicy = {};
  const retention = objectAt(spec, 'persistentVolumeClaimRetentionPolicy');
  if (retention !== undefined) {
    if (unset(retention, 'whenDeleted')) retention.whenDeleted = 'Retain';
    if (unset(retention, 'whenScaled')) retention.whenScaled = 'Retain';
  }

  if (spec.replicas === undefined) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = 10;

  const template = objectAt(spec, 'template');
  if (template !== undefined) defaultPodSpec(template.spec);
  defaultClaimTemplates(spec);
}
