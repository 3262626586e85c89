/**
 * EndpointSlice (`discovery.<domain>/v1`): a subset of the endpoints implementing a service. Namespaced,
 * no status and no short names (as Kubernetes). As in Kubernetes v1.32: the generation starts at 1 and
 * moves with every change outside metadata and with every change of the labels (which pick the service);
 * `endpoints[].deprecatedTopology` is dropped silently
 * on a create and on any update that changes the endpoints (v1 clients cannot write it); the address type
 * never changes. Delete answers with a Status.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { jsonEqual } from '../../patch/json-value.js';
import { ENDPOINT_SLICE_FIELDS, ENDPOINT_SLICE_PROPERTIES } from './endpointslice-schema.js';
import { endpointSliceTable } from './endpointslice-table.js';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './endpointslice-validation.js';
import { isObject } from '../../../api/json.js';

const schema = kindSchema(
  'EndpointSlice represents a subset of the endpoints that implement a service. For a given service there may be multiple EndpointSlice objects, selected by labels, which must be joined to produce the full set of endpoints.',
  ENDPOINT_SLICE_PROPERTIES,
  [],
  ENDPOINT_SLICE_FIELDS,
);

/** Clears every endpoint's deprecated topology: the v1 API ignores writes of it. */
function dropTopology(slice: KubeObject): void {
  if (!Array.isArray(slice.endpoints)) return;
  for (const ep of slice.endpoints as unknown[]) {
    if (isObject(ep)) delete ep.deprecatedTopology;
  }
}

export const endpointSlices = Object.freeze({
  groupPrefix: 'discovery',
  group: '',
  version: 'v1',
  kind: 'EndpointSlice',
  resource: 'endpointslices',
  singular: 'endpointslice',
  namespaced: true,
  schema,
  tracksGeneration: true,
  table: endpointSliceTable,

  prepareForCreate(slice: KubeObject): void {
    dropTopology(slice);
  },

  prepareForUpdate(slice: KubeObject, old: KubeObject): void {
    // Changes outside metadata bump the generation in the registry; a label change does too, here.
    if (!jsonEqual(slice.metadata.labels ?? {}, old.metadata.labels ?? {})) slice.metadata.generation = (old.metadata.generation ?? 0) + 1;
    // Kubernetes keeps the topology only when the endpoints are sent back exactly as stored.
    if (!jsonEqual(slice.endpoints, old.endpoints)) dropTopology(slice);
  },

  validate: (slice: KubeObject): FieldError[] => validateEndpointSlice(slice),
  validateUpdate: (slice: KubeObject, old: KubeObject): FieldError[] => validateEndpointSliceUpdate(slice, old),
} satisfies KindStrategy);
