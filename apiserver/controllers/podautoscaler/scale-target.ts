/**
 * The HPA's scale target, reached as kube's HPA controller reaches it through its REST mapper and scale
 * client, but in process: `scaleTargetRef.apiVersion`'s group and `kind` name the served resources of that
 * kind (every version: a REST mapper ignores the version), and the first whose `/scale` can be read wins
 * (else the first error). Reads and writes go through the kind's scale sub-resource (registry/
 * scale-subresource.ts) over its generic registry, as the `/scale` endpoint does:
 *
 * - read: the parent object's Scale values (`spec.replicas`, `status.replicas`, `status.selector`); a kind
 *   without a scale sub-resource is kube's 404 `the server could not find the requested resource`; a
 *   parent without spec replicas is the endpoint's 500 message;
 * - write: the new count at `specReplicasPath` of the parent, with the parent's resourceVersion as read as
 *   the precondition (a 409 if it changed since), recorded in managedFields under sub-resource `scale`.
 */
import type { KubeObject } from '../../api/object.js';
import { internalError, notFound } from '../../errors/constructors.js';
import type { ServedResource, ServedResources } from '../../registry/served-resources.js';
import { readScale, setNested } from '../../registry/scale-subresource.js';

export interface ScaleTargetRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
}

export interface TargetScale {
  readonly resource: ServedResource;
  readonly specReplicas: number;
  readonly statusReplicas: number;
  readonly selector: string;
  /** The parent's resourceVersion the Scale was read at. */
  readonly resourceVersion: string;
}

/** An apiVersion that does not parse (Go's schema.ParseGroupVersion). */
export class GroupVersionError extends Error {
  override readonly name = 'GroupVersionError';
}

/** Go's schema.ParseGroupVersion: `v1` (core), `group/version`; more than one `/` is an error. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  throw new GroupVersionError(`unexpected GroupVersion string: ${apiVersion}`);
}

/** The served resources of a group and kind (kube's RESTMappings); throws kube's no-match error. */
export function mappingsFor(resources: ServedResources, group: string, kind: string): ServedResource[] {
  const found = resources.all.filter((r) => r.group === group && r.strategy.kind === kind);
  if (found.length === 0) throw new Error(`no matches for kind ${JSON.stringify(kind)} in group ${JSON.stringify(group)}`);
  return found;
}

async function scaleOf(r: ServedResource, namespace: string, name: string): Promise<TargetScale> {
  const sub = r.strategy.scale;
  if (sub === undefined) throw notFound();
  const parent: KubeObject = await r.registry.get(r.strategy.namespaced ? namespace : '', name);
  const values = readScale(parent, sub);
  if (values.specReplicas === undefined) throw internalError(`the spec replicas field ${JSON.stringify(sub.specReplicasPath)} does not exist`);
  return {
    resource: r,
    specReplicas: values.specReplicas,
    statusReplicas: values.statusReplicas,
    selector: values.selector,
    resourceVersion: parent.metadata.resourceVersion ?? '',
  };
}

/** kube's scaleForResourceMappings: the first mapping whose Scale reads, else the first error. */
export async function readTargetScale(mappings: readonly ServedResource[], namespace: string, name: string): Promise<TargetScale> {
  let first: unknown;
  for (const [i, r] of mappings.entries()) {
    try {
      return await scaleOf(r, namespace, name);
    } catch (err) {
      if (i === 0) first = err;
    }
  }
  throw first ?? new Error('unrecognized resource');
}

/** Writes `replicas` through the target's scale sub-resource, conditional on the Scale's resourceVersion. */
export async function writeTargetScale(scale: TargetScale, namespace: string, name: string, replicas: number, fieldManager: string): Promise<void> {
  const { resource } = scale;
  const sub = resource.strategy.scale!;
  await resource.registry.patch(
    resource.strategy.namespaced ? namespace : '',
    name,
    (current) => {
      setNested(current as Record<string, unknown>, sub.specReplicasPath, replicas);
      current.metadata.resourceVersion = scale.resourceVersion;
      return current;
    },
    { fieldManager, subresource: 'scale' },
  );
}
