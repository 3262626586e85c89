/**
 * The domain-bearing names of the EndpointSlice controller, from the group domain (Kubernetes' own under
 * `--group-domain=k8s.io`, the domain's otherwise, as `ipaddress.<legacy domain>/managed-by` is):
 *
 * | Kubernetes | here |
 * |---|---|
 * | label `kubernetes.io/service-name` | `<legacy domain>/service-name` |
 * | label `endpointslice.kubernetes.io/managed-by` | `endpointslice.<legacy domain>/managed-by` |
 * | its value `endpointslice-controller.k8s.io` | `endpointslice-controller.<domain>` |
 * | label `service.kubernetes.io/headless` | `service.<legacy domain>/headless` |
 * | annotation `endpoints.kubernetes.io/last-change-trigger-time` | `endpoints.<legacy domain>/last-change-trigger-time` |
 * | Node label `topology.kubernetes.io/zone` | `topology.<legacy domain>/zone` |
 */
import type { Naming } from '../../naming/naming.js';

export interface SliceNames {
  /** `discovery.<domain>/v1`. */
  readonly apiVersion: string;
  readonly serviceName: string;
  readonly managedBy: string;
  readonly controllerName: string;
  readonly headless: string;
  readonly lastChangeTriggerTime: string;
  readonly zone: string;
}

export function sliceNames(naming: Naming): SliceNames {
  const legacy = naming.legacyDomain;
  return Object.freeze({
    apiVersion: `${naming.group('discovery')}/v1`,
    serviceName: `${legacy}/service-name`,
    managedBy: `endpointslice.${legacy}/managed-by`,
    controllerName: `endpointslice-controller.${naming.domain}`,
    headless: `service.${legacy}/headless`,
    lastChangeTriggerTime: `endpoints.${legacy}/last-change-trigger-time`,
    zone: `topology.${legacy}/zone`,
  });
}
