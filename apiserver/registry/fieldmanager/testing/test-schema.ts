/** A small schema exercising every merge type, for the fieldmanager unit tests. */
import type { Schema } from '../../../schema/schema.js';

const str: Schema = { type: 'string' };

export const testSchema: Schema = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: {
      type: 'object',
      properties: {
        name: str,
        namespace: str,
        resourceVersion: str,
        labels: { type: 'object', additionalProperties: str },
        finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
      },
    },
    data: { type: 'object', additionalProperties: str },
    selector: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
    args: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' },
    tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
    items: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', properties: { name: str, value: str, extra: { type: 'object', additionalProperties: str } } },
    },
    spec: { type: 'object', properties: { replicas: { type: 'integer' }, paused: { type: 'boolean' } } },
    status: { type: 'object', properties: { phase: str } },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};
