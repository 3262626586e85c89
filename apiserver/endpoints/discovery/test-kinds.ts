/**
 * Small strategies for the discovery and OpenAPI tests (the built-in kinds are tested with their own
 * registry); shaped like Secret, Namespace, Deployment and CertificateSigningRequest.
 */
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { kindSchema } from '../../schema/object-meta-schema.js';

export const secretKind = {
  group: '', version: 'v1', kind: 'Secret', resource: 'secrets', singular: 'secret', namespaced: true,
  schema: kindSchema('Secret holds secret data.', {
    type: { type: 'string', description: 'Used to facilitate programmatic handling of secret data.' },
    data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } },
    immutable: { type: 'boolean' },
  }),
} satisfies KindStrategy;

export const namespaceKind = {
  group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', singular: 'namespace', namespaced: false,
  shortNames: ['ns'], subresources: ['status'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  schema: kindSchema('Namespace provides a scope for Names.', {
    spec: { type: 'object', properties: { finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' } } },
    status: { type: 'object', properties: { phase: { type: 'string', enum: ['Active', 'Terminating'] } } },
  }),
} satisfies KindStrategy;

export const deploymentKind = {
  group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', singular: 'deployment', namespaced: true,
  shortNames: ['deploy'], categories: ['all'], subresources: ['status'],
  schema: kindSchema('Deployment enables declarative updates for Pods.', {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', format: 'int32' },
        strategy: { type: 'object', properties: { maxSurge: { 'x-kubernetes-int-or-string': true } } },
        containers: {
          type: 'array',
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
          'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
          'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name',
        },
      },
    },
  }),
} satisfies KindStrategy;

export const csrKind = {
  group: '', groupPrefix: 'certificates', version: 'v1', kind: 'CertificateSigningRequest', resource: 'certificatesigningrequests',
  singular: 'certificatesigningrequest', namespaced: false, shortNames: ['csr'], subresources: ['status'],
  schema: kindSchema('A certificate signing request.', { spec: { type: 'object', properties: { request: { type: 'string', format: 'byte' } } } }, ['spec']),
} satisfies KindStrategy;

export const csrBetaKind = { ...csrKind, version: 'v1beta1' } satisfies KindStrategy;

export const testKinds: readonly KindStrategy[] = [secretKind, namespaceKind, deploymentKind, csrKind, csrBetaKind];
