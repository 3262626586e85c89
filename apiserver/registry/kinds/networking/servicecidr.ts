/**
 * ServiceCIDR (`networking.<domain>/v1beta1`): the IP ranges cluster IPs of Services are allocated from.
 * Cluster-scoped, with a `status` sub-resource; a beta version Kubernetes introduced after 1.22, so it is
 * served only when `--runtime-config` enables `networking.<domain>/v1beta1` (runtime-config.ts: beta
 * versions are off unless listed in `betaOnByDefault`).
 *
 * As Kubernetes v1.32: the blocks are validated on create and immutable after; the generation is not
 * tracked (the spec cannot change). Unlike Kubernetes 1.32, whose strategies leave status alone on the main
 * endpoint, status is written only through `/status` (a create starts from an empty status, the main
 * endpoint keeps the stored one), where the document's condition rules are checked: Kubernetes declares
 * status a reset field of the main resource, and the document lists it as a sub-resource.
 *
 * Not done here: Kubernetes' ServiceCIDR controller, which adds the `networking.k8s.io/service-cidr-finalizer`
 * finalizer and the Ready condition, and keeps a ServiceCIDR that still has addresses allocated from it.
 * Delete answers with a Status.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { SERVICE_CIDR_FIELDS, SERVICE_CIDR_PROPERTIES } from './networking-schemas.js';
import { serviceCIDRTable } from './networking-tables.js';
import { validateServiceCIDRSpec, validateServiceCIDRStatus, validateServiceCIDRUpdate } from './networking-validation.js';

const schema = kindSchema(
  'ServiceCIDR defines a range of IP addresses using CIDR format (e.g. 192.168.0.0/24 or 2001:db2::/64). This range is used to allocate ClusterIPs to Service objects.',
  SERVICE_CIDR_PROPERTIES,
  [],
  SERVICE_CIDR_FIELDS,
);

export const serviceCIDRs = Object.freeze({
  groupPrefix: 'networking',
  group: '',
  version: 'v1beta1',
  kind: 'ServiceCIDR',
  resource: 'servicecidrs',
  singular: 'servicecidr',
  namespaced: false,
  subresources: Object.freeze(['status'] as const),
  schema,
  table: serviceCIDRTable,

  prepareForCreate(cidr: KubeObject): void {
    cidr.status = {};
  },

  prepareForUpdate(cidr: KubeObject, old: KubeObject): void {
    // A copy: `old` may be shared with the watch cache.
    if (old.status === undefined) delete cidr.status;
    else cidr.status = structuredClone(old.status);
  },

  // Kubernetes validates the blocks on create only; on update they are compared with the stored ones.
  validate: (cidr: KubeObject, ctx: StrategyContext): FieldError[] => (ctx.operation === 'create' ? validateServiceCIDRSpec(cidr) : []),
  validateUpdate: (cidr: KubeObject, old: KubeObject): FieldError[] => validateServiceCIDRUpdate(cidr, old),
  validateStatusUpdate: (cidr: KubeObject): FieldError[] => validateServiceCIDRStatus(cidr),
} satisfies KindStrategy);
