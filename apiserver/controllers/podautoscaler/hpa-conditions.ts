/**
 * The HPA's conditions (AbleToScale, ScalingActive, ScalingLimited) and current metrics as an
 * autoscaling/v1 client sees them. Kubernetes keeps them in the autoscaling/v2 status and converts them to
 * v1 annotations on read: `autoscaling.alpha.kubernetes.io/conditions` (a JSON list of conditions:
 * type, status, lastTransitionTime, reason, message) and `autoscaling.alpha.kubernetes.io/current-metrics`
 * (the v2beta1-shaped metric statuses). Only v1 is stored here, so the controller reads its conditions back
 * from the annotation and writes the annotations itself (the domain is the naming's legacy domain:
 * `autoscaling.alpha.platform.io/...` in platform mode).
 *
 * setCondition is kube's setConditionInList: the condition is added when absent; its lastTransitionTime
 * moves only when its status changes; reason and message are always replaced.
 */
import type { Naming } from '../../naming/naming.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { formatQuantity } from '../../registry/kinds/shared/quantity.js';

export type ConditionType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';

export interface ConditionUpdate {
  readonly type: ConditionType;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

export interface HpaCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export const conditionsAnnotation = (names: Naming): string => `autoscaling.alpha.${names.legacyDomain}/conditions`;
export const currentMetricsAnnotation = (names: Naming): string => `autoscaling.alpha.${names.legacyDomain}/current-metrics`;

/** The conditions in the annotation; none when absent or unreadable (as a fresh v2 status). */
export function readConditions(annotations: Readonly<Record<string, string>> | undefined, names: Naming): HpaCondition[] {
  const text = annotations?.[conditionsAnnotation(names)];
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && typeof (c as { type?: unknown }).type === 'string')
      .map((c) => ({
        type: c.type as string,
        status: typeof c.status === 'string' ? c.status : '',
        ...(typeof c.lastTransitionTime === 'string' ? { lastTransitionTime: c.lastTransitionTime } : {}),
        ...(typeof c.reason === 'string' ? { reason: c.reason } : {}),
        ...(typeof c.message === 'string' ? { message: c.message } : {}),
      }));
  } catch {
    return [];
  }
}

/** kube's setConditionInList (in place). */
export function setCondition(conditions: HpaCondition[], u: ConditionUpdate, now: Date): void {
  let c = conditions.find((x) => x.type === u.type);
  if (c === undefined) {
    c = { type: u.type, status: '' };
    conditions.push(c);
  }
  if (c.status !== u.status) c.lastTransitionTime = rfc3339(now);
  c.status = u.status;
  c.reason = u.reason;
  c.message = u.message;
}

/** The annotation text of the conditions, members in Go's field order. */
export function conditionsText(conditions: readonly HpaCondition[]): string {
  return JSON.stringify(
    conditions.map((c) => ({
      type: c.type,
      status: c.status,
      lastTransitionTime: c.lastTransitionTime ?? null,
      ...(c.reason === undefined || c.reason === '' ? {} : { reason: c.reason }),
      ...(c.message === undefined || c.message === '' ? {} : { message: c.message }),
    })),
  );
}

/** The v1 (v2beta1-shaped) current metric of CPU utilization, as kube's conversion writes it. */
export function cpuMetricText(utilization: number, rawMilli: number): string {
  return JSON.stringify([{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: utilization, currentAverageValue: formatQuantity({ mantissa: BigInt(rawMilli), scale: -3, format: 'DecimalSI' }) } }]);
}
