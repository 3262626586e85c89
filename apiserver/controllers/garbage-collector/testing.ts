/**
 * For the collector's tests: objects of a few kinds (namespaced and cluster-scoped built-ins, a custom
 * resource served from a CustomResourceDefinition as the CRD controller serves it), owner references
 * between them, live reads and bounded polls.
 */
import type { KubeObject, OwnerReference } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import { customResourceKinds } from '../../registry/kinds/apiextensions/custom-resource-kinds.js';
import type { ServedResources } from '../../registry/served-resources.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { until as poll } from '../../../test/harness/until.js';

export interface KindInfo {
  readonly apiVersion: string;
  readonly kind: string;
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly body: Record<string, unknown>;
}

export const KINDS = {
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', group: '', resource: 'configmaps', namespaced: true, body: { data: { a: 'b' } } },
  Secret: { apiVersion: 'v1', kind: 'Secret', group: '', resource: 'secrets', namespaced: true, body: { type: 'Opaque' } },
  ClusterRole: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespaced: false, body: { rules: [] } },
  CronTab: { apiVersion: 'stable.example.com/v1', kind: 'CronTab', group: 'stable.example.com', resource: 'crontabs', namespaced: true, body: { spec: { cronSpec: '* * * * *' } } },
} satisfies Record<string, KindInfo>;

export type KindName = keyof typeof KINDS;

/** A CustomResourceDefinition of `group`, namespaced or cluster-scoped, one served version v1. */
export function crdOf(group: string, kind: string, plural: string, scope: 'Namespaced' | 'Cluster' = 'Namespaced'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope,
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
      }],
    },
  };
}

/** Serves `crd`'s kinds as the CRD controller does (the set named after it). */
export function serveCrd(served: ServedResources, crd: KubeObject, names: Naming): void {
  const spec = crd.spec as { group: string; names: { plural: string } };
  served.serveSet(crd.metadata.name!, customResourceKinds(crd, names), { resourcePrefix: `${spec.group}/${spec.names.plural}`, validationStyle: 'crd' });
}

export function registryOf(served: ServedResources, k: KindInfo): GenericRegistry {
  const r = served.lookup(k.group, 'v1', k.resource);
  if (r === undefined) throw new Error(`${k.resource}.${k.group} is not served`);
  return r.registry;
}

/** An owner reference to `owner` (blocking unless told otherwise). */
export function refTo(owner: KubeObject, k: KindInfo, block = true): OwnerReference {
  return { apiVersion: k.apiVersion, kind: k.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, blockOwnerDeletion: block };
}

export async function createObject(
  served: ServedResources,
  k: KindInfo,
  namespace: string,
  name: string,
  ownerReferences: readonly OwnerReference[] = [],
  finalizers: readonly string[] = [],
): Promise<KubeObject> {
  const ns = k.namespaced ? namespace : '';
  const obj: KubeObject = {
    apiVersion: k.apiVersion,
    kind: k.kind,
    metadata: {
      name,
      ...(ns === '' ? {} : { namespace: ns }),
      ...(ownerReferences.length > 0 ? { ownerReferences: [...ownerReferences] } : {}),
      ...(finalizers.length > 0 ? { finalizers: [...finalizers] } : {}),
    },
    ...structuredClone(k.body),
  };
  return (await registryOf(served, k).create(ns, obj)).object;
}

/** The stored object (a store read), or undefined. */
export async function live(served: ServedResources, k: KindInfo, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await registryOf(served, k).get(k.namespaced ? namespace : '', name);
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/** Removes `finalizer` from the stored object. */
export async function dropFinalizer(served: ServedResources, k: KindInfo, namespace: string, name: string, finalizer: string): Promise<void> {
  await registryOf(served, k).patch(k.namespaced ? namespace : '', name, (cur) => {
    const kept = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (kept.length > 0) cur.metadata.finalizers = kept;
    else delete cur.metadata.finalizers;
    return cur;
  });
}

/** The collector tests' bounded poll (15 s). */
export const until = (what: string, cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<true> => poll(what, cond, ms, 10);
