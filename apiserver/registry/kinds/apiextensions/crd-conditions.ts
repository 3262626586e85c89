/**
 * The conditions of a CustomResourceDefinition's status (NamesAccepted, Established, Terminating), set as
 * Kubernetes' apihelpers do: one condition per type, `lastTransitionTime` kept while the status stays the
 * same and set to now when it changes (reason and message follow the new value either way).
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { isObject, type Json } from './json-schema-node.js';

export type CrdConditionType = 'NamesAccepted' | 'Established' | 'Terminating' | 'NonStructuralSchema' | 'KubernetesAPIApprovalPolicyConformant';

export interface CrdCondition {
  readonly type: CrdConditionType;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
}

/** The finalizer that deletes every instance before the definition goes (`customresourcecleanup.apiextensions.k8s.io`). */
export const cleanupFinalizer = (naming: Naming): string => `customresourcecleanup.${naming.group('apiextensions')}`;

/** Conditions in their API form, as stored (an empty list when none). */
export function conditionsOf(crd: KubeObject): readonly CrdCondition[] {
  const status = isObject(crd.status) ? crd.status : {};
  return Array.isArray(status.conditions) ? (status.conditions.filter(isObject) as unknown as CrdCondition[]) : [];
}

export function findCondition(crd: KubeObject, type: CrdConditionType): CrdCondition | undefined {
  return conditionsOf(crd).find((c) => c.type === type);
}

export const isConditionTrue = (crd: KubeObject, type: CrdConditionType): boolean => findCondition(crd, type)?.status === 'True';

/** Sets `cond` on `crd` (which the caller owns), keeping lastTransitionTime while the status is unchanged. */
export function setCondition(crd: KubeObject, cond: CrdCondition, now: Date = new Date()): void {
  const status: Json = isObject(crd.status) ? crd.status : (crd.status = {});
  const list = Array.isArray(status.conditions) ? (status.conditions as Json[]) : [];
  const i = list.findIndex((c) => isObject(c) && c.type === cond.type);
  const old = i < 0 ? undefined : (list[i] as unknown as CrdCondition);
  const lastTransitionTime = old !== undefined && old.status === cond.status && old.lastTransitionTime !== undefined
    ? old.lastTransitionTime
    : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next = { type: cond.type, status: cond.status, lastTransitionTime, reason: cond.reason, message: cond.message } as unknown as Json;
  if (i < 0) list.push(next);
  else list[i] = next;
  status.conditions = list;
}
