/** Schemas of a container's environment: `env` (EnvVar and its `valueFrom` sources) and `envFrom`. */
import type { Schema } from '../../../../schema/schema.js';
import { bool, inline, keyedList, obj, ptr, quantity, requiredStr, str } from './schema-builders.js';

/** `fieldRef`: a field of the pod (`metadata.name`, `status.podIP` ...). */
export const objectFieldSelectorSchema: Schema = obj(
  'Selects a field of the pod.',
  {
    apiVersion: str('Schema version the fieldPath is written in; defaults to "v1".', { default: 'v1' }),
    fieldPath: requiredStr('Path of the field to select, in that API version.'),
  },
  ['fieldPath'],
  { 'x-kubernetes-map-type': 'atomic', protobuf: { apiVersion: 1, fieldPath: 2 } },
);

/** `resourceFieldRef`: a resource request or limit of a container. */
export const resourceFieldSelectorSchema: Schema = obj(
  'Selects a resource (limits.cpu, requests.memory ...) of a container.',
  {
    containerName: str('Container name; required for volumes, optional for env vars.'),
    divisor: quantity('Output format of the exposed resources; defaults to "1".'),
    resource: requiredStr('Required: the resource to select.'),
  },
  ['resource'],
  { 'x-kubernetes-map-type': 'atomic', protobuf: { containerName: 1, resource: 2, divisor: 3 } },
);

const keySelector = (what: string): Schema =>
  obj(
    `Selects a key of a ${what}.`,
    {
      key: requiredStr(`The key of the ${what} to select.`),
      name: str(`Name of the ${what} (a DNS subdomain).`, { default: '' }),
      optional: bool(`Whether the ${what} or its key must be defined.`),
    },
    ['key'],
    // `name` is the embedded LocalObjectReference's.
    { 'x-kubernetes-map-type': 'atomic', protobuf: { name: inline(1, 1), key: 2, optional: ptr(3) } },
  );

export const configMapKeySelectorSchema = keySelector('ConfigMap');
export const secretKeySelectorSchema = keySelector('Secret');

export const envVarSourceSchema: Schema = obj('Source of an environment variable value; exactly one of its fields.', {
  configMapKeyRef: { ...configMapKeySelectorSchema, description: 'Selects a key of a ConfigMap.' },
  fieldRef: { ...objectFieldSelectorSchema, description: 'Selects a field of the pod.' },
  resourceFieldRef: { ...resourceFieldSelectorSchema, description: 'Selects a resource of the container.' },
  secretKeyRef: { ...secretKeySelectorSchema, description: 'Selects a key of a Secret in the pod namespace.' },
}, undefined, { protobuf: { fieldRef: ptr(1), resourceFieldRef: ptr(2), configMapKeyRef: ptr(3), secretKeyRef: ptr(4) } });

export const envVarSchema: Schema = obj(
  'An environment variable of a container.',
  {
    name: requiredStr('Name of the variable.'),
    value: str('The value; $(VAR) references to earlier variables are expanded, $$(VAR) escapes. Defaults to "".'),
    valueFrom: { ...envVarSourceSchema, description: "Source of the variable's value; not with a non-empty value." },
  },
  ['name'],
  { protobuf: { name: 1, value: 2, valueFrom: ptr(3) } },
);

const envSource = (what: string): Schema =>
  obj(
    `Selects a ${what} whose keys become environment variables.`,
    {
      name: str(`Name of the ${what}.`, { default: '' }),
      optional: bool(`Whether the ${what} must be defined.`),
    },
    undefined,
    { 'x-kubernetes-map-type': 'atomic', protobuf: { name: inline(1, 1), optional: ptr(2) } },
  );

export const envFromSourceSchema: Schema = obj('A source of a set of environment variables.', {
  configMapRef: envSource('ConfigMap'),
  prefix: str('Prefix prepended to every key of the source (a C identifier).'),
  secretRef: envSource('Secret'),
}, undefined, { protobuf: { prefix: 1, configMapRef: ptr(2), secretRef: ptr(3) } });

/** `env` of a container: keyed by `name`. */
export const envListSchema: Schema = keyedList(envVarSchema, 'Environment variables to set in the container.', ['name']);
