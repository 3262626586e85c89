/**
 * APIService (`apiregistration.<domain>/v1`, `apiregistration.k8s.io/v1` in k8s.io mode): cluster-scoped,
 * category `api-extensions`, a status sub-resource; it claims one group version for a backend server that
 * this server proxies to (apiserver/aggregator/), or, without `spec.service`, for this server itself (a
 * "local" APIService).
 *
 * Hooks, as kube-aggregator's strategy: create resets `status` and marks a local APIService Available
 * (reason `Local`) at once; an update keeps the stored status (the registry does); the status
 * sub-resource keeps everything else. Validation: apiservice-validation.ts.
 *
 * This server does not create local APIServices for its built-in groups (kube's autoregister
 * controller does); the ones users create are accepted and served locally.
 */
import type { KubeObject } from '../../../api/object.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { localAvailableCondition, serviceOf, setCondition } from './apiservice-conditions.js';
import { apiServiceSchema } from './apiservice-schema.js';
import { apiServiceTable } from './apiservice-table.js';
import { validateAPIService, validateAPIServiceStatus } from './apiservice-validation.js';

export const apiServices = Object.freeze({
  groupPrefix: 'apiregistration',
  group: '',
  version: 'v1',
  kind: 'APIService',
  resource: 'apiservices',
  singular: 'apiservice',
  namespaced: false,
  categories: Object.freeze(['api-extensions']),
  subresources: Object.freeze(['status'] as const),
  schema: apiServiceSchema,
  // The name is `<version>.<group>` (validated against the spec), otherwise any path segment.
  nameRule: 'path-segment',
  table: apiServiceTable,
  prepareForCreate(obj: KubeObject): void {
    obj.status = {};
    if (serviceOf(obj) === undefined) setCondition(obj, localAvailableCondition(new Date()));
  },
  validate: (obj: KubeObject): FieldError[] => validateAPIService(obj),
  validateStatusUpdate: (obj: KubeObject): FieldError[] => validateAPIServiceStatus(obj),
} satisfies KindStrategy);
