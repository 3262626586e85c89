import { builtinKinds } from '../../kinds/index.js';
import type { Schema } from '../../../schema/schema.js';
import { lookupPatchMeta } from './patch-meta.js';

/** The schema at a dotted path (`[]` steps into list elements). */
function at(kind: string, path: string): { parent: Schema; key: string } {
  const strategy = builtinKinds().find((k) => k.kind === kind);
  if (strategy === undefined) throw new Error(`no kind ${kind}`);
  let s: Schema = strategy.schema;
  const steps = path.split('.');
  const key = steps.pop()!;
  for (const step of steps) {
    const name = step.endsWith('[]') ? step.slice(0, -2) : step;
    s = s.properties?.[name] ?? (s.additionalProperties as Schema);
    if (step.endsWith('[]')) s = s.items!;
  }
  return { parent: s, key };
}

// Kubernetes v1.32 struct tags (patchStrategy/patchMergeKey) and +listType/+listMapKey/+mapType markers.
test.each([
  ['PodTemplate', 'metadata.ownerReferences', 'merge', 'uid', 'map', ['uid']],
  ['PodTemplate', 'metadata.finalizers', 'merge', '', 'set', undefined],
  ['PodTemplate', 'metadata.managedFields', '', '', 'atomic', undefined],
  ['PodTemplate', 'template.spec.containers', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.initContainers', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.ephemeralContainers', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.volumes', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.imagePullSecrets', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.hostAliases', 'merge', 'ip', 'map', ['ip']],
  ['PodTemplate', 'template.spec.tolerations', '', '', 'atomic', undefined],
  ['PodTemplate', 'template.spec.readinessGates', '', '', 'atomic', undefined],
  ['PodTemplate', 'template.spec.topologySpreadConstraints', 'merge', 'topologyKey', 'map', ['topologyKey', 'whenUnsatisfiable']],
  ['PodTemplate', 'template.spec.schedulingGates', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.resourceClaims', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.containers[].env', 'merge', 'name', 'map', ['name']],
  ['PodTemplate', 'template.spec.containers[].envFrom', '', '', 'atomic', undefined],
  ['PodTemplate', 'template.spec.containers[].ports', 'merge', 'containerPort', 'map', ['containerPort', 'protocol']],
  ['PodTemplate', 'template.spec.containers[].volumeMounts', 'merge', 'mountPath', 'map', ['mountPath']],
  ['PodTemplate', 'template.spec.containers[].volumeDevices', 'merge', 'devicePath', 'map', ['devicePath']],
  ['PodTemplate', 'template.spec.containers[].args', '', '', 'atomic', undefined],
  ['PodTemplate', 'template.spec.containers[].resources.claims', '', '', 'map', ['name']],
  ['ServiceAccount', 'secrets', 'merge', 'name', 'map', ['name']],
  ['ServiceAccount', 'imagePullSecrets', '', '', 'atomic', undefined],
  ['Namespace', 'spec.finalizers', '', '', 'atomic', undefined],
  ['Namespace', 'status.conditions', 'merge', 'type', 'map', ['type']],
  ['Node', 'spec.podCIDRs', 'merge', '', 'set', undefined],
  ['Node', 'spec.taints', '', '', 'atomic', undefined],
  ['Node', 'status.addresses', 'merge', 'type', 'map', ['type']],
  ['Node', 'status.conditions', 'merge', 'type', 'map', ['type']],
  ['Node', 'status.images', '', '', 'atomic', undefined],
])('%s %s: strategy %j, merge key %j, list type %j', (kind, path, strategy, mergeKey, listType, mapKeys) => {
  const { parent, key } = at(kind, path);
  const meta = lookupPatchMeta(parent, key);
  expect(meta.strategy).toBe(strategy);
  expect(meta.mergeKey).toBe(mergeKey);
  expect(meta.schema?.['x-kubernetes-list-type']).toBe(listType);
  expect(meta.schema?.['x-kubernetes-list-map-keys']).toEqual(mapKeys);
});

test('volumes and resourceClaims also retain keys; nodeSelector and LocalObjectReference are atomic maps', () => {
  expect(lookupPatchMeta(at('PodTemplate', 'template.spec.volumes').parent, 'volumes').retainKeys).toBe(true);
  expect(lookupPatchMeta(at('PodTemplate', 'template.spec.resourceClaims').parent, 'resourceClaims').retainKeys).toBe(true);
  expect(lookupPatchMeta(at('PodTemplate', 'template.spec.nodeSelector').parent, 'nodeSelector').schema?.['x-kubernetes-map-type']).toBe('atomic');
  expect(lookupPatchMeta(at('PodTemplate', 'template.spec.imagePullSecrets').parent, 'imagePullSecrets').schema?.items?.['x-kubernetes-map-type']).toBe('atomic');
});

test('unknown fields and map values carry no strategy', () => {
  const { parent } = at('ConfigMap', 'data');
  expect(lookupPatchMeta(parent, 'nope')).toEqual({ schema: undefined, strategy: '', retainKeys: false, mergeKey: '' });
  expect(lookupPatchMeta(parent.properties!.data, 'anykey').strategy).toBe('');
});
