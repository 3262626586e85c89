/**
 * IPAddress (`networking.<domain>/v1beta1`): one IP address of one family, owned by one object (a
 * Service's ClusterIP), named by the address's canonical text form so that an address can be recorded
 * once. Cluster-scoped, no status; a beta version introduced after 1.22, served only when
 * `--runtime-config` enables `networking.<domain>/v1beta1`.
 *
 * As Kubernetes v1.32: the name must be a canonical IP address (the registry's ObjectMeta check is the
 * loosest, path segments, and this kind's validation adds the IP rule at `metadata.name`), the parent
 * reference is required and immutable. A `generateName` gets the registry's random suffix and so fails
 * the name rule, as nothing can generate an address name. Delete answers with a Status.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { IP_ADDRESS_FIELDS, IP_ADDRESS_PROPERTIES } from './networking-schemas.js';
import { ipAddressTable } from './networking-tables.js';
import { validateIPAddress, validateIPAddressUpdate } from './networking-validation.js';

const schema = kindSchema(
  'IPAddress represents a single IP of a single IP Family. The object is designed to be used by APIs that operate on IP addresses. The object is used by the Service core API for allocation of IP addresses. An IP address can be represented in different formats, to guarantee the uniqueness of the IP, the name of the object is the IP address in canonical format, four decimal digits separated by dots suppressing leading zeros for IPv4 and the representation defined by RFC 5952 for IPv6. Valid: 192.168.1.5 or 2001:db8::1 or 2001:db8:aaaa:bbbb:cccc:dddd:eeee:1 Invalid: 10.01.2.3 or 2001:db8:0:0:0::1',
  IP_ADDRESS_PROPERTIES,
  [],
  IP_ADDRESS_FIELDS,
);

export const ipAddresses = Object.freeze({
  groupPrefix: 'networking',
  group: '',
  version: 'v1beta1',
  kind: 'IPAddress',
  resource: 'ipaddresses',
  singular: 'ipaddress',
  namespaced: false,
  nameRule: 'path-segment',
  schema,
  table: ipAddressTable,

  validate: (ip: KubeObject): FieldError[] => validateIPAddress(ip),
  validateUpdate: (ip: KubeObject, old: KubeObject): FieldError[] => validateIPAddressUpdate(ip, old),
} satisfies KindStrategy);
