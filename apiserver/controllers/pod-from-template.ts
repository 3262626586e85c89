/**
 * A pod for a controller from its pod template, as kube's controllers make them (GetPodFromTemplate): the
 * template's labels, annotations, finalizers and spec copied (never shared with the owner, which may be a
 * cached, frozen object), the owner's namespace, the controller reference, and `generateName`
 * `<owner name>-` unless a name or another prefix is given.
 */
import type { KubeObject, OwnerReference } from '../api/object.js';

export interface PodTemplateLike {
  readonly metadata?: { readonly labels?: Record<string, string>; readonly annotations?: Record<string, string>; readonly finalizers?: readonly string[] };
  readonly spec?: unknown;
}

export function podFromTemplate(
  template: PodTemplateLike,
  owner: KubeObject,
  ownerRef: OwnerReference,
  o: { readonly name?: string; readonly generateName?: string } = {},
): KubeObject {
  const t = template.metadata ?? {};
  const metadata: KubeObject['metadata'] = { namespace: owner.metadata.namespace ?? '' };
  if (o.name !== undefined) metadata.name = o.name;
  else metadata.generateName = o.generateName ?? `${owner.metadata.name ?? ''}-`;
  if (t.labels !== undefined) metadata.labels = { ...t.labels };
  if (t.annotations !== undefined) metadata.annotations = { ...t.annotations };
  if (t.finalizers !== undefined && t.finalizers.length > 0) metadata.finalizers = [...t.finalizers];
  metadata.ownerReferences = [{ ...ownerRef }];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(template.spec ?? {}) };
}
