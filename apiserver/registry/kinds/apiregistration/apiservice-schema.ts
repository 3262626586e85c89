/**
 * The schema of APIService (`apiregistration.<domain>/v1`), as Kubernetes v1.32 publishes it, with the
 * field numbers of `k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/generated.proto` beside every
 * message (spec = 2, status = 3; `metadata` = 1 comes from `kindSchema`).
 *
 * Defaults as Kubernetes' v1 defaulting: a `service` without `port` gets 443. `service: null` (or absent)
 * is a local APIService; the null is dropped like any null of a pointer field.
 */
import type { Schema } from '../../../schema/schema.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { bool, int32, keyedList, obj, requiredStr, str, struct, time } from '../shared/schema-builders.js';

export const serviceReferenceSchema: Schema = obj(
  'ServiceReference holds a reference to Service.legacy.k8s.io',
  {
    name: str('Name is the name of the service'),
    namespace: str('Namespace is the namespace of the service'),
    port: int32('If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).', {
      default: 443,
    }),
  },
  undefined,
  { protobuf: { namespace: 1, name: 2, port: { tag: 3, pointer: true } } },
);

export const apiServiceSpecSchema: Schema = obj(
  'APIServiceSpec contains information for locating and communicating with a server. Only https is supported, though you are able to disable certificate verification.',
  {
    caBundle: str("CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.", {
      format: 'byte',
    }),
    group: str('Group is the API group name this server hosts'),
    groupPriorityMinimum: int32(
      'GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones. Note that other versions of this group might specify even higher GroupPriorityMinimum values such that the whole group gets a higher priority. The primary sort is based on GroupPriorityMinimum, ordered highest number to lowest (20 before 10). The secondary sort is based on the alphabetical comparison of the name of the object.  (v1.bar before v1.foo) We\'d recommend something like: *.k8s.io (except extensions) at 18000 and PaaSes (OpenShift, Deis) are recommended to be in the 2000s',
      { default: 0 },
    ),
    insecureSkipTLSVerify: bool('InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.'),
    service: {
      ...serviceReferenceSchema,
      description:
        'Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server. The call will simply delegate to the normal handler chain to be fulfilled.',
    },
    version: str('Version is the API version this server hosts.  For example, "v1"'),
    versionPriority: int32(
      'VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero. The primary sort is based on VersionPriority, ordered highest to lowest (20 before 10). Since it\'s inside of a group, the number can be small, probably in the 10s. In case of equal version priorities, the version string will be used to compute the order inside a group. If the version string is "kube-like", it will sort above non "kube-like" version strings, which are ordered lexicographically. "Kube-like" versions start with a "v", then are followed by a number (the major version), then optionally the string "alpha" or "beta" and another number (the minor version). These are sorted first by GA > beta > alpha (where GA is a version with no suffix such as beta or alpha), and then by comparing major version, then minor version. An example sorted list of versions: v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10.',
      { default: 0 },
    ),
  },
  ['groupPriorityMinimum', 'versionPriority'],
  {
    protobuf: {
      service: { tag: 1, pointer: true },
      group: 2,
      version: 3,
      insecureSkipTLSVerify: 4,
      caBundle: 5,
      groupPriorityMinimum: 7,
      versionPriority: 8,
    },
  },
);

const conditionSchema: Schema = obj(
  'APIServiceCondition describes the state of an APIService at a particular point',
  {
    lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
    message: str('Human-readable message indicating details about last transition.'),
    reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
    status: requiredStr('Status is the status of the condition. Can be True, False, Unknown.'),
    type: requiredStr('Type is the type of the condition.'),
  },
  ['type', 'status'],
  { protobuf: { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 } },
);

export const apiServiceStatusSchema: Schema = obj(
  'APIServiceStatus contains derived information about an API server',
  { conditions: keyedList(conditionSchema, 'Current service state of apiService.', ['type']) },
  undefined,
  { protobuf: { conditions: 1 } },
);

export const apiServiceSchema: Schema = kindSchema(
  'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
  {
    spec: struct(apiServiceSpecSchema, 'Spec contains information for locating and communicating with a server'),
    status: struct(apiServiceStatusSchema, 'Status contains derived information about an API server'),
  },
  undefined,
  { spec: 2, status: 3 },
);
