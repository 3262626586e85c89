/**
 * The schemas of ServiceCIDR and IPAddress (`networking.<domain>/v1beta1`) as Kubernetes v1.32 publishes
 * them, with the field numbers of `k8s.io/api/networking/v1beta1/generated.proto` (ServiceCIDR {metadata 1,
 * spec 2, status 3}, ServiceCIDRSpec {cidrs 1}, ServiceCIDRStatus {conditions 1}, IPAddress {metadata 1,
 * spec 2}, IPAddressSpec {parentRef 1, a pointer}, ParentReference {group 1, resource 2, namespace 3,
 * name 4}). Conditions are metav1.Condition.
 *
 * On purpose, no member is listed as required and no empty-string default is published for the parent
 * reference's members, so a missing one reaches the kinds' validation and fails with Kubernetes' own cause
 * (`spec.parentRef.resource: Required value`) and an object reads back as Kubernetes writes it (empty
 * members left out).
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { conditionSchema } from '../admissionregistration/policy-schema.js';
import { atomicList, keyedList, obj, str, struct } from '../shared/schema-builders.js';

const serviceCIDRSpecSchema: Schema = obj(
  'ServiceCIDRSpec define the CIDRs the user wants to use for allocating ClusterIPs for Services.',
  {
    cidrs: atomicList(
      { type: 'string', default: '' },
      'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.',
    ),
  },
  undefined,
  { protobuf: { cidrs: 1 } },
);

const serviceCIDRStatusSchema: Schema = obj(
  'ServiceCIDRStatus describes the current state of the ServiceCIDR.',
  {
    conditions: keyedList(conditionSchema, 'conditions holds an array of metav1.Condition that describe the state of the ServiceCIDR. Current service state', ['type']),
  },
  undefined,
  { protobuf: { conditions: 1 } },
);

export const SERVICE_CIDR_PROPERTIES: Record<string, Schema> = {
  spec: struct(serviceCIDRSpecSchema, 'spec is the desired state of the ServiceCIDR.'),
  status: struct(serviceCIDRStatusSchema, 'status represents the current state of the ServiceCIDR.'),
};

export const SERVICE_CIDR_FIELDS = Object.freeze({ spec: 2, status: 3 });

const parentReferenceSchema: Schema = obj(
  'ParentReference describes a reference to a parent object.',
  {
    group: str('Group is the group of the object being referenced.'),
    name: str('Name is the name of the object being referenced.'),
    namespace: str('Namespace is the namespace of the object being referenced.'),
    resource: str('Resource is the resource of the object being referenced.'),
  },
  undefined,
  { protobuf: { group: 1, resource: 2, namespace: 3, name: 4 } },
);

const ipAddressSpecSchema: Schema = obj(
  'IPAddressSpec describe the attributes in an IP Address.',
  {
    parentRef: {
      ...parentReferenceSchema,
      description: 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.',
    },
  },
  undefined,
  { protobuf: { parentRef: ptr(1) } },
);

export const IP_ADDRESS_PROPERTIES: Record<string, Schema> = {
  spec: struct(ipAddressSpecSchema, 'spec is the desired state of the IPAddress.'),
};

export const IP_ADDRESS_FIELDS = Object.freeze({ spec: 2 });
