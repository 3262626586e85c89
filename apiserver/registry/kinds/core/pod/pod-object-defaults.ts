/**
 * The defaults Kubernetes applies to Pods but not to pod templates (core/v1 SetDefaults_Pod), on top of
 * the shared pod spec defaults (pod-defaults.ts):
 * - a container (or init container) with limits gets the same requests for every limited resource it
 *   does not request;
 * - `enableServiceLinks` true;
 * - with `hostNetwork`, a port without `hostPort` gets its `containerPort`.
 * Then the status IPs are reconciled as Kubernetes' v1 conversion does: `podIP` wins over `podIPs[0]`
 * (a differing `podIP` replaces the list), an empty `podIP` is filled from `podIPs[0]`.
 */
import { type JsonObject, arrayAt, isObject, numberAt, objectAt, objectItems, stringAt } from './json-values.js';

function defaultRequestsToLimits(c: JsonObject): void {
  const resources = objectAt(c, 'resources');
  const limits = resources === undefined ? undefined : objectAt(resources, 'limits');
  if (resources === undefined || limits === undefined) return;
  const requests = objectAt(resources, 'requests') ?? {};
  for (const [k, v] of Object.entries(limits)) if (requests[k] === undefined) requests[k] = v;
  resources.requests = requests;
}

export function defaultPodObjectSpec(spec: unknown): void {
  if (!isObject(spec)) return;
  for (const list of ['containers', 'initContainers'] as const) {
    for (const [, c] of objectItems(arrayAt(spec, list))) {
      defaultRequestsToLimits(c);
      if (spec.hostNetwork === true) {
        for (const [, port] of objectItems(arrayAt(c, 'ports'))) {
          if ((numberAt(port, 'hostPort') ?? 0) === 0 && numberAt(port, 'containerPort') !== undefined) port.hostPort = port.containerPort;
        }
      }
    }
  }
  if (typeof spec.enableServiceLinks !== 'boolean') spec.enableServiceLinks = true;
}

/** Makes `podIP` and `podIPs` agree, `podIP` authoritative (kube's v1 PodStatus conversion). */
export function reconcilePodIPs(status: unknown): void {
  if (!isObject(status)) return;
  const podIP = stringAt(status, 'podIP');
  const podIPs = arrayAt(status, 'podIPs');
  const first = isObject(podIPs[0]) ? stringAt(podIPs[0], 'ip') : '';
  if (podIP !== '' && podIP !== first) status.podIPs = [{ ip: podIP }];
  else if (podIP === '' && first !== '') status.podIP = first;
}
