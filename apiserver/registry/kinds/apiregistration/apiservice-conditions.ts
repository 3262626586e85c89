/**
 * Reading and writing an APIService's fields and its `Available` condition, shared by the kind (create of
 * a local APIService, the table) and the aggregator (proxy, discovery, availability controller).
 * Objects are plain JSON as stored; every reader tolerates missing or mistyped members.
 */
import type { KubeObject } from '../../../api/object.js';
import { isObject } from '../../../api/json.js';

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

export interface APIServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The one condition type APIServices have. */
export const AVAILABLE = 'Available';

type Json = Record<string, unknown>;
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown, dflt: number): number => (typeof v === 'number' ? v : dflt);

export const specOf = (obj: KubeObject): Json => (isObject(obj.spec) ? obj.spec : {});

/** `spec.group` and `spec.version`. */
export function groupVersionOf(obj: KubeObject): { readonly group: string; readonly version: string } {
  const spec = specOf(obj);
  return { group: text(spec.group), version: text(spec.version) };
}

/** `spec.service` with the default port; undefined for a local APIService. */
export function serviceOf(obj: KubeObject): ServiceReference | undefined {
  const s = specOf(obj).service;
  if (!isObject(s)) return undefined;
  return { namespace: text(s.namespace), name: text(s.name), port: num(s.port, 443) };
}

export function conditionsOf(obj: KubeObject): APIServiceCondition[] {
  const status = isObject(obj.status) ? obj.status : {};
  return Array.isArray(status.conditions) ? (status.conditions.filter(isObject) as unknown as APIServiceCondition[]) : [];
}

export function availableCondition(obj: KubeObject): APIServiceCondition | undefined {
  return conditionsOf(obj).find((c) => c.type === AVAILABLE);
}

/** Whether the Available condition is present and exactly `True` (kube's IsAPIServiceConditionTrue). */
export const isAvailable = (obj: KubeObject): boolean => availableCondition(obj)?.status === 'True';

/** RFC 3339 with second precision, as metav1.Time serializes. */
export const conditionTime = (now: Date): string => `${now.toISOString().slice(0, 19)}Z`;

/** The condition of a local APIService: always available. */
export function localAvailableCondition(now: Date): APIServiceCondition {
  return { type: AVAILABLE, status: 'True', lastTransitionTime: conditionTime(now), reason: 'Local', message: 'Local APIServices are always available' };
}

/**
 * Sets `condition` in `obj.status.conditions` (changing `obj`), as kube's SetAPIServiceCondition: a new
 * type is appended; an existing one takes the new reason and message, and the new status and
 * lastTransitionTime only when the status changed.
 */
export function setCondition(obj: KubeObject, condition: APIServiceCondition): void {
  const status: Json = isObject(obj.status) ? obj.status : (obj.status = {});
  const list: Json[] = Array.isArray(status.conditions) ? (status.conditions as Json[]) : (status.conditions = []);
  const existing = list.find((c) => isObject(c) && c.type === condition.type);
  if (existing === undefined) {
    list.push({ ...condition });
    return;
  }
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = condition.lastTransitionTime;
  }
  existing.reason = condition.reason;
  existing.message = condition.message;
}
