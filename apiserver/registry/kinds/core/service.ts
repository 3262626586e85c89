/**
 * Service (core `v1`): namespaced, a `status` sub-resource, short name `svc`, category `all`; names are
 * DNS-1035 labels. As Kubernetes v1.32:
 * - create: status cleared, v1 defaults (service-defaults.ts), `clusterIP` copied into `clusterIPs`;
 * - update: status kept, allocated values the client left out kept, fields the new type cannot have
 *   cleared when unchanged, the cluster IP and IP family rules of ValidateServiceUpdate;
 * - status writes: only `status` changes, the load balancer ingress rules apply;
 * - warnings as Kubernetes' (service-warnings.ts);
 * - delete answers the deleted Service (Kubernetes' service storage returns the object).
 * Cluster IPs, IP families and node ports are filled in by the server's allocator (service-allocation/),
 * which the registry runs as its WriteHooks after these hooks.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { jsonClone } from '../../patch/json-value.js';
import { defaultService, dropTypeDependentFields, normalizeClusterIPs, patchAllocatedValues, specOf } from './service-defaults.js';
import { SERVICE_FIELDS, SERVICE_PROPERTIES } from './service-schema.js';
import { serviceTable } from './service-table.js';
import { serviceWarnings } from './service-warnings.js';
import { validateService, validateServiceStatus, validateServiceUpdate } from './service-validation.js';

const schema = kindSchema(
  'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.',
  SERVICE_PROPERTIES,
  [],
  SERVICE_FIELDS,
);

type Rec = Record<string, unknown>;

export const services = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'Service',
  resource: 'services',
  singular: 'service',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  subresources: ['status'],
  nameRule: 'dns-1035-label',
  deleteReturnsObject: true,
  schema,
  table: serviceTable,

  prepareForCreate(svc: KubeObject): void {
    svc.status = { loadBalancer: {} };
    defaultService(svc);
    normalizeClusterIPs(specOf(svc), undefined);
  },

  prepareForUpdate(svc: KubeObject, old: KubeObject): void {
    defaultService(svc);
    const s = specOf(svc);
    const o = (old.spec as Rec | undefined) ?? {};
    normalizeClusterIPs(s, o);
    patchAllocatedValues(s, o);
    dropTypeDependentFields(s, o);
  },

  validate: (svc: KubeObject): FieldError[] => validateService(svc),
  warnings: (svc: KubeObject): string[] => serviceWarnings(svc),
  validateUpdate: (svc: KubeObject, old: KubeObject): FieldError[] => validateServiceUpdate(svc, old),

  /** As the registry's default (everything but `status` and managedFields is the stored object's), then v1 defaults (an ingress' ipMode). */
  prepareForStatusUpdate(svc: KubeObject, old: KubeObject): void {
    const status = svc.status;
    const managed = svc.metadata.managedFields;
    for (const k of Object.keys(svc)) delete svc[k];
    Object.assign(svc, jsonClone(old));
    svc.status = status ?? {};
    if (managed === undefined) delete svc.metadata.managedFields;
    else svc.metadata.managedFields = managed;
    defaultService(svc);
  },
  validateStatusUpdate: (svc: KubeObject): FieldError[] => validateServiceStatus(svc),
} satisfies KindStrategy);
