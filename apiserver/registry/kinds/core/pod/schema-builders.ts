/**
 * The pod schemas' constructors: the shared ones (shared/schema-builders.ts) plus quantities,
 * int-or-string and local object references. They only build plain `Schema` data.

 */
import type { Schema } from '../../../../schema/schema.js';

export { inline, ptr } from '../../../../schema/schema.js';

export { atomicList, bool, int32, int64, keyedList, obj, ref, requiredStr, str, stringList, stringMap, struct } from '../../shared/schema-builders.js';
import { obj, str } from '../../shared/schema-builders.js';
import { quantitySchema, resourceListSchema } from '../../shared/common-schemas.js';

/** `resource.Quantity` (shared with the other kinds) and maps of them. */
export const quantity = quantitySchema;
export const quantityMap = resourceListSchema;

/** `IntOrString` (ports that may be named). */
export const intOrString = (description: string): Schema => ({ description, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });

/** A reference to an object in the same namespace by name (`LocalObjectReference`). */
export const localObjectReference = (description: string): Schema =>
  obj(description, { name: str('Name of the referent (a DNS subdomain).', { default: '' }) }, undefined, {
    'x-kubernetes-map-type': 'atomic',
    protobuf: { name: 1 },
  });
