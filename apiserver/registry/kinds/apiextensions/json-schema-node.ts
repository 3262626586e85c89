/**
 * Reading a JSONSchemaProps as a CustomResourceDefinition carries it: plain JSON, extensions spelled with
 * the naming's prefix (`x-kubernetes-` in k8s.io mode, `x-platform-` otherwise). The checks in this folder
 * read definitions through these helpers so a malformed member (a string where a schema belongs) is
 * treated as absent instead of throwing: the kind's schema keeps JSONSchemaProps free-form
 * (crd-schema.ts), so any JSON can arrive here.
 */

import { isObject, type JsonObject } from '../../../api/json.js';

export { isObject };
export type Json = JsonObject;

/** The member `key` of `node` when it is a JSON object. */
export const objectAt = (node: Json, key: string): Json | undefined => {
  const v = node[key];
  return isObject(v) ? v : undefined;
};

/** The schemas of a list member (`allOf`, `anyOf`, `oneOf`), skipping non-objects. */
export const schemaList = (node: Json, key: string): Json[] => {
  const v = node[key];
  return Array.isArray(v) ? v.filter(isObject) : [];
};

/** The named schemas of a map member (`properties`, `patternProperties`, `definitions`). */
/** The schemas of a map (`properties`): a null entry is an empty schema, as Go decodes it (then refused as structural: no type). */
export const schemaMap = (node: Json, key: string): [string, Json][] => {
  const v = objectAt(node, key);
  return v === undefined ? [] : Object.entries(v).map(([k, s]): [string, unknown] => [k, s === null ? {} : s]).filter((e): e is [string, Json] => isObject(e[1]));
};

export const stringAt = (node: Json, key: string): string => {
  const v = node[key];
  return typeof v === 'string' ? v : '';
};

export const truthy = (node: Json, key: string): boolean => node[key] === true;

/** `additionalProperties` / `additionalItems` as JSONSchemaPropsOrBool: the schema, or undefined for a boolean. */
export const orBoolSchema = (node: Json, key: string): Json | undefined => objectAt(node, key);

/** A member is set (Go's non-zero value): present and not null. */
export const isSet = (node: Json, key: string): boolean => node[key] !== undefined && node[key] !== null;

/** The extension names of one prefix. */
export class Extensions {
  constructor(readonly prefix: string) {}
  get preserveUnknownFields(): string {
    return `${this.prefix}preserve-unknown-fields`;
  }
  get embeddedResource(): string {
    return `${this.prefix}embedded-resource`;
  }
  get intOrString(): string {
    return `${this.prefix}int-or-string`;
  }
  get listType(): string {
    return `${this.prefix}list-type`;
  }
  get listMapKeys(): string {
    return `${this.prefix}list-map-keys`;
  }
  get mapType(): string {
    return `${this.prefix}map-type`;
  }
  get validations(): string {
    return `${this.prefix}validations`;
  }
}
