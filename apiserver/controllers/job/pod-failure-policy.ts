/**
 * podFailurePolicy matching, as kube 1.32's matchPodFailurePolicy: rules in order, the first that matches
 * a failed pod decides.
 * - onExitCodes: a container (init containers first, then the others; only `containerName` when set) that
 *   terminated with a non-zero exit code the operator (`In` / `NotIn`) accepts; an unknown operator never
 *   matches;
 * - onPodConditions: a pod condition with the pattern's type and status;
 * - actions: `FailJob` (job failure message, counted), `FailIndex` (counted, fails the index), `Ignore`
 *   (not counted), `Count` (counted); an unknown action skips the rule. No rule matched: counted.
 */
import type { KubeObject } from '../../api/object.js';
import type { ContainerStatus, PodFailurePolicyRule, JobSpec } from './job-types.js';
import { podStatus } from './job-types.js';

export interface PolicyMatch {
  /** The Job's failure message when a FailJob rule matched. */
  readonly failJobMessage?: string;
  /** Whether the failure counts against backoffLimit (and the index's backoffLimitPerIndex). */
  readonly countFailed: boolean;
  /** The matching rule's action, if a rule matched. */
  readonly action?: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
}

function exitCodeMatches(code: number, req: NonNullable<PodFailurePolicyRule['onExitCodes']>): boolean {
  const values = req.values ?? [];
  if (req.operator === 'In') return values.includes(code);
  if (req.operator === 'NotIn') return !values.includes(code);
  return false;
}

function matchingContainer(pod: KubeObject, req: NonNullable<PodFailurePolicyRule['onExitCodes']>): ContainerStatus | undefined {
  const s = podStatus(pod);
  for (const list of [s.initContainerStatuses ?? [], s.containerStatuses ?? []]) {
    for (const cs of list) {
      if (req.containerName !== undefined && req.containerName !== null && req.containerName !== cs.name) continue;
      const code = cs.state?.terminated?.exitCode;
      if (typeof code === 'number' && code !== 0 && exitCodeMatches(code, req)) return cs;
    }
  }
  return undefined;
}

function matchingCondition(pod: KubeObject, patterns: NonNullable<PodFailurePolicyRule['onPodConditions']>): string | undefined {
  for (const p of patterns) {
    for (const c of podStatus(pod).conditions ?? []) if (c.type === p.type && c.status === (p.status ?? 'True')) return c.type;
  }
  return undefined;
}

export function matchPodFailurePolicy(spec: JobSpec, pod: KubeObject): PolicyMatch {
  const rules = spec.podFailurePolicy?.rules ?? [];
  const ns = pod.metadata.namespace ?? '';
  const name = pod.metadata.name ?? '';
  for (const [index, rule] of rules.entries()) {
    const action = rule.action;
    if (action !== 'FailJob' && action !== 'FailIndex' && action !== 'Ignore' && action !== 'Count') continue;
    let failJobMessage: string | undefined;
    if (rule.onExitCodes !== undefined && rule.onExitCodes !== null) {
      const cs = matchingContainer(pod, rule.onExitCodes);
      if (cs === undefined) continue;
      failJobMessage = `Container ${cs.name ?? ''} for pod ${ns}/${name} failed with exit code ${cs.state?.terminated?.exitCode ?? 0} matching ${action} rule at index ${index}`;
    } else if (rule.onPodConditions !== undefined && rule.onPodConditions !== null) {
      const type = matchingCondition(pod, rule.onPodConditions);
      if (type === undefined) continue;
      failJobMessage = `Pod ${ns}/${name} has condition ${type} matching ${action} rule at index ${index}`;
    } else {
      continue;
    }
    if (action === 'Ignore') return { countFailed: false, action };
    if (action === 'FailJob') return { failJobMessage, countFailed: true, action };
    return { countFailed: true, action };
  }
  return { countFailed: true };
}
