/**
 * ValidatePodSpec for templates: volumes, containers, init containers, restart and DNS policies, node
 * selector, security context, scheduling, names of referenced objects. Paths start at `path` (for a
 * PodTemplate: `template.spec`).
 */
import { type FieldError, type FieldPath, invalidValue, notSupported, required } from '../../../../validation/field-error.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../../validation/names.js';
import { type JsonObject, arrayAt, numberAt, objectAt, objectItems, stringAt } from './json-values.js';
import { validateLabels } from './validate-metadata.js';
import { validateContainers, validateInitContainers } from './validate-container.js';
import { validatePodSecurityContext } from './validate-security-context.js';
import { validateTolerations, validateTopologySpreadConstraints } from './validate-scheduling.js';
import { validateVolumes } from './validate-volumes.js';

const RESTART_POLICIES: readonly string[] = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES: readonly string[] = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PREEMPTION_POLICIES: readonly string[] = ['PreemptLowerPriority', 'Never'];
const MAX_INT32 = 2147483647;
/** The grace period Kubernetes assumes when none is set (bounds lifecycle sleep actions). */
const DEFAULT_GRACE_PERIOD = 30;

function validateEnum(value: string, allowed: readonly string[], path: FieldPath): FieldError[] {
  if (value === '') return [required(path, '')];
  return allowed.includes(value) ? [] : [notSupported(path, value, allowed)];
}

function subdomainField(spec: JsonObject, field: string, path: FieldPath): FieldError[] {
  const v = stringAt(spec, field);
  return v === '' ? [] : isDNS1123Subdomain(v).map((msg) => invalidValue(path.child(field), v, msg));
}

function labelField(spec: JsonObject, field: string, path: FieldPath): FieldError[] {
  const v = stringAt(spec, field);
  return v === '' ? [] : isDNS1123Label(v).map((msg) => invalidValue(path.child(field), v, msg));
}

/** With hostNetwork, a host port must equal its container port (0 is allowed in templates). */
function validateHostNetworkPorts(spec: JsonObject, path: FieldPath): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    for (const [ci, c] of objectItems(arrayAt(spec, list))) {
      for (const [pi, port] of objectItems(arrayAt(c, 'ports'))) {
        const hostPort = numberAt(port, 'hostPort') ?? 0;
        if (hostPort !== 0 && hostPort !== (numberAt(port, 'containerPort') ?? 0)) {
          errs.push(invalidValue(path.child(list).index(ci).child('ports').index(pi).child('hostPort'), hostPort, 'must match `containerPort` when `hostNetwork` is true'));
        }
      }
    }
  }
  return errs;
}

export function validatePodSpec(spec: JsonObject, path: FieldPath): FieldError[] {
  const { volumes, errors } = validateVolumes(spec, path.child('volumes'));
  const gracePeriod = numberAt(spec, 'terminationGracePeriodSeconds') ?? DEFAULT_GRACE_PERIOD;
  const ctx = { volumes, gracePeriod };
  const errs: FieldError[] = [...errors];
  errs.push(...validateContainers(spec, ctx, path.child('containers')));
  errs.push(...validateInitContainers(spec, ctx, path.child('initContainers')));
  errs.push(...validateHostNetworkPorts(spec, path));
  errs.push(...validateEnum(stringAt(spec, 'restartPolicy'), RESTART_POLICIES, path.child('restartPolicy')));
  errs.push(...validateEnum(stringAt(spec, 'dnsPolicy'), DNS_POLICIES, path.child('dnsPolicy')));
  const nodeSelector = objectAt(spec, 'nodeSelector');
  if (nodeSelector !== undefined) errs.push(...validateLabels(nodeSelector, path.child('nodeSelector')));
  errs.push(...validatePodSecurityContext(spec, path.child('securityContext')));
  if (stringAt(spec, 'dnsPolicy') === 'None' && objectAt(spec, 'dnsConfig') === undefined) {
    errs.push(required(path.child('dnsConfig'), 'must provide `dnsConfig` when `dnsPolicy` is None'));
  }
  errs.push(...validateTopologySpreadConstraints(spec, path.child('topologySpreadConstraints')));
  errs.push(...subdomainField(spec, 'serviceAccountName', path));
  errs.push(...subdomainField(spec, 'nodeName', path));
  const deadline = numberAt(spec, 'activeDeadlineSeconds');
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32)) {
    errs.push(invalidValue(path.child('activeDeadlineSeconds'), deadline, `must be between 1 and ${MAX_INT32}, inclusive`));
  }
  errs.push(...labelField(spec, 'hostname', path));
  errs.push(...labelField(spec, 'subdomain', path));
  errs.push(...validateTolerations(spec, path.child('tolerations')));
  errs.push(...subdomainField(spec, 'priorityClassName', path));
  errs.push(...subdomainField(spec, 'runtimeClassName', path));
  if (typeof spec.preemptionPolicy === 'string' && !PREEMPTION_POLICIES.includes(spec.preemptionPolicy)) {
    errs.push(notSupported(path.child('preemptionPolicy'), spec.preemptionPolicy, PREEMPTION_POLICIES));
  }
  return errs;
}
