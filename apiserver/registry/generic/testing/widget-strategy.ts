/** A small kind for the registry's tests: namespaced, status sub-resource, generation, a selectable field. */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { invalidValue } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';

const spec = (o: KubeObject): Record<string, unknown> => (o.spec ?? {}) as Record<string, unknown>;

export const widgetStrategy = {
  group: '',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  namespaced: true,
  subresources: ['status'],
  tracksGeneration: true,
  allowCreateOnUpdate: false,
  schema: kindSchema('A widget.', {
    spec: {
      type: 'object',
      properties: {
        color: { type: 'string', default: 'red' },
        replicas: { type: 'integer' },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  }),
  selectableFields: { 'spec.color': (o: KubeObject) => String(spec(o).color ?? '') },
  validate(obj) {
    const r = spec(obj).replicas;
    return typeof r === 'number' && r < 0 ? [invalidValue('spec.replicas', r, 'must be greater than or equal to 0')] : [];
  },
  warnings(obj) {
    return spec(obj).replicas === 13 ? ['13 replicas are unlucky'] : [];
  },
} satisfies KindStrategy;

/** A cluster-scoped kind without status that returns the object on delete and allows create on update. */
export const gadgetStrategy = {
  group: '',
  version: 'v1',
  kind: 'Gadget',
  resource: 'gadgets',
  singular: 'gadget',
  namespaced: false,
  allowCreateOnUpdate: true,
  deleteReturnsObject: true,
  schema: kindSchema('A gadget.', { data: { type: 'object', additionalProperties: { type: 'string' } } }),
} satisfies KindStrategy;
