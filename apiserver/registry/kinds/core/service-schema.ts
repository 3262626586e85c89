/**
 * The schema of core `v1` Service as Kubernetes v1.32 publishes it, with the field numbers of
 * `k8s.io/api/core/v1/generated.proto` (Service, ServiceSpec, ServicePort, ServiceStatus,
 * LoadBalancerStatus, LoadBalancerIngress, PortStatus, SessionAffinityConfig, ClientIPConfig) and
 * `meta/v1` Condition.
 *
 * Only unconditional v1 defaults live here (`type`, `sessionAffinity`, a port's `protocol`); the ones that
 * depend on other fields (targetPort, traffic policies, the ClientIP timeout, allocateLoadBalancerNodePorts,
 * an ingress' ipMode) are applied by `defaultService` (service-defaults.ts), as Kubernetes' SetDefaults_Service.
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { atomicList, bool, int32, int64, keyedList, obj, ref, requiredStr, str, stringList, stringMap, time } from '../shared/schema-builders.js';

const intOrString = (description: string): Schema => ({ description, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });

const clientIPConfigSchema: Schema = obj(
  'ClientIPConfig represents the configurations of Client IP based session affinity.',
  {
    timeoutSeconds: int32(
      'timeoutSeconds specifies the seconds of ClientIP type session sticky time. The value must be >0 && <=86400(for 1 day) if ServiceAffinity == "ClientIP". Default value is 10800(for 3 hours).',
    ),
  },
  undefined,
  { protobuf: { timeoutSeconds: ptr(1) } },
);

const sessionAffinityConfigSchema: Schema = obj(
  'SessionAffinityConfig represents the configurations of session affinity.',
  { clientIP: ref(clientIPConfigSchema, 'clientIP contains the configurations of Client IP based session affinity.') },
  undefined,
  { protobuf: { clientIP: ptr(1) } },
);

const servicePortSchema: Schema = obj(
  "ServicePort contains information on service's port.",
  {
    appProtocol: str(
      'The application protocol for this port. This is used as a hint for implementations to offer richer behavior for protocols that they understand. This field follows standard Kubernetes label syntax: un-prefixed names are reserved for IANA standard service names; domain-prefixed names such as mycompany.com/my-custom-protocol are for non-standard protocols.',
    ),
    name: str(
      "The name of this port within the service. This must be a DNS_LABEL. All ports within a ServiceSpec must have unique names. When considering the endpoints for a Service, this must match the 'name' field in the EndpointPort. Optional if only one ServicePort is defined on this service.",
    ),
    nodePort: int32(
      'The port on each node on which this service is exposed when type is NodePort or LoadBalancer. Usually assigned by the system. If a value is specified, in-range, and not in use it will be used, otherwise the operation will fail. If not specified, a port will be allocated if this Service requires one. If this field is specified when creating a Service which does not need it, creation will fail. This field will be wiped when updating a Service to no longer need it (e.g. changing type from NodePort to ClusterIP).',
    ),
    port: int32('The port that will be exposed by this service.', { default: 0 }),
    protocol: str('The IP protocol for this port. Supports "TCP", "UDP", and "SCTP". Default is TCP.', { default: 'TCP' }),
    targetPort: intOrString(
      "Number or name of the port to access on the pods targeted by the service. Number must be in the range 1 to 65535. Name must be an IANA_SVC_NAME. If this is a string, it will be looked up as a named port in the target Pod's container ports. If this is not specified, the value of the 'port' field is used (an identity map). This field is ignored for services with clusterIP=None, and should be omitted or set equal to the 'port' field.",
    ),
  },
  ['port'],
  { protobuf: { name: 1, protocol: 2, port: 3, targetPort: 4, nodePort: 5, appProtocol: ptr(6) } },
);

const specSchema: Schema = obj(
  'ServiceSpec describes the attributes that a user creates on a service.',
  {
    allocateLoadBalancerNodePorts: bool(
      'allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer. Default is "true". It may be set to "false" if the cluster load-balancer does not rely on NodePorts. This field may only be set for services with type LoadBalancer and will be cleared if the type is changed to any other type.',
    ),
    clusterIP: str(
      'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above). Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required. Only applies to types ClusterIP, NodePort, and LoadBalancer.',
    ),
    clusterIPs: stringList(
      'ClusterIPs is a list of IP addresses assigned to this service, and are usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName or from ExternalName. Valid values are "None", empty string (""), or a valid IP address; "None" may only be the first and only value. This field may hold a maximum of two entries (dual-stack IPs, in either order), which must correspond to the values of the ipFamilies field. Both clusterIPs and ipFamilies are governed by the ipFamilyPolicy field.',
    ),
    externalIPs: stringList(
      'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service. These IPs are not managed by the cluster. The user is responsible for ensuring that traffic arrives at a node with this IP.',
    ),
    externalName: str(
      'externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record). No proxying will be involved. Must be a lowercase RFC-1123 hostname and requires `type` to be "ExternalName".',
    ),
    externalTrafficPolicy: str(
      'externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service\'s "externally-facing" addresses (NodePorts, ExternalIPs, and LoadBalancer IPs). "Local" preserves the client source IP; "Cluster" (the default) routes to all endpoints evenly.',
    ),
    healthCheckNodePort: int32(
      'healthCheckNodePort specifies the healthcheck nodePort for the service. This only applies when type is set to LoadBalancer and externalTrafficPolicy is set to Local. If a value is specified, is in-range, and is not in use, it will be used. If not specified, a value will be automatically allocated.',
    ),
    internalTrafficPolicy: str(
      'InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP. If set to "Local", the proxy will assume that pods only want to talk to endpoints of the service on the same node as the pod, dropping the traffic if there are no local endpoints. The default value, "Cluster", uses the standard behavior of routing to all endpoints evenly.',
    ),
    ipFamilies: stringList(
      'IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service. This field is usually assigned automatically based on cluster configuration and the ipFamilyPolicy field. This field is conditionally mutable: it allows for adding or removing a secondary IP family, but it does not allow changing the primary IP family of the Service.',
    ),
    ipFamilyPolicy: str(
      'IPFamilyPolicy represents the dual-stack-ness requested or required by this Service. If there is no value provided, then this field will be set to SingleStack. Services can be "SingleStack" (a single IP family), "PreferDualStack" (two IP families on dual-stack configured clusters or a single IP family on single-stack clusters), or "RequireDualStack" (two IP families on dual-stack configured clusters, otherwise fail).',
    ),
    loadBalancerClass: str(
      'loadBalancerClass is the class of the load balancer implementation this Service belongs to. If specified, the value of this field must be a label-style identifier, with an optional prefix. This field can only be set when the Service type is \'LoadBalancer\'. Once set, it can not be changed.',
    ),
    loadBalancerIP: str('Only applies to Service Type: LoadBalancer. Deprecated: this field was under-specified and its meaning varies across implementations.'),
    loadBalancerSourceRanges: stringList(
      'If specified and supported by the platform, this will restrict traffic through the cloud-provider load-balancer will be restricted to the specified client IPs. This field will be ignored if the cloud-provider does not support the feature.',
    ),
    ports: keyedList(servicePortSchema, 'The list of ports that are exposed by this service.', ['port', 'protocol'], 'merge', 'port'),
    publishNotReadyAddresses: bool(
      'publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready. The primary use case for setting this field is for a StatefulSet\'s Headless Service to propagate SRV DNS records for its Pods for the purpose of peer discovery.',
    ),
    selector: stringMap(
      'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName.',
      true,
    ),
    sessionAffinity: str(
      'Supports "ClientIP" and "None". Used to maintain session affinity. Enable client IP based session affinity. Must be ClientIP or None. Defaults to None.',
      { default: 'None' },
    ),
    sessionAffinityConfig: ref(sessionAffinityConfigSchema, 'sessionAffinityConfig contains the configurations of session affinity.'),
    trafficDistribution: str(
      'TrafficDistribution offers a way to express preferences for how traffic is distributed to Service endpoints. "PreferClose" asks implementations to prioritize endpoints that are topologically close.',
    ),
    type: str(
      'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud). "ExternalName" aliases this service to the specified externalName.',
      { default: 'ClusterIP' },
    ),
  },
  undefined,
  {
    protobuf: {
      ports: 1,
      selector: 2,
      clusterIP: 3,
      type: 4,
      externalIPs: 5,
      sessionAffinity: 7,
      loadBalancerIP: 8,
      loadBalancerSourceRanges: 9,
      externalName: 10,
      externalTrafficPolicy: 11,
      healthCheckNodePort: 12,
      publishNotReadyAddresses: 13,
      sessionAffinityConfig: ptr(14),
      ipFamilyPolicy: ptr(17),
      clusterIPs: 18,
      ipFamilies: 19,
      allocateLoadBalancerNodePorts: ptr(20),
      loadBalancerClass: ptr(21),
      internalTrafficPolicy: ptr(22),
      trafficDistribution: ptr(23),
    },
  },
);

const portStatusSchema: Schema = obj(
  'PortStatus represents the error condition of a service port.',
  {
    error: str(
      'Error is to record the problem with the service port. The format of the error shall comply with the following rules: built-in error values shall be specified in this file and those shall use CamelCase names; cloud provider specific error values must have names that comply with the format foo.example.com/CamelCase.',
    ),
    port: int32('Port is the port number of the service port of which status is recorded here', { default: 0 }),
    protocol: requiredStr('Protocol is the protocol of the service port of which status is recorded here. The supported values are: "TCP", "UDP", "SCTP"'),
  },
  ['port', 'protocol'],
  { protobuf: { port: 1, protocol: 2, error: ptr(3) } },
);

const ingressSchema: Schema = obj(
  'LoadBalancerIngress represents the status of a load-balancer ingress point: traffic intended for the service should be sent to an ingress point.',
  {
    hostname: str('Hostname is set for load-balancer ingress points that are DNS based (typically AWS load-balancers)'),
    ip: str('IP is set for load-balancer ingress points that are IP based (typically GCE or OpenStack load-balancers)'),
    ipMode: str(
      'IPMode specifies how the load-balancer IP behaves, and may only be specified when the ip field is specified. "VIP" (the default) delivers traffic with the destination set to the load-balancer\'s IP and port; "Proxy" delivers it to the node or pod.',
    ),
    ports: atomicList({ ...portStatusSchema, default: {} }, 'Ports is a list of records of service ports. If used, every port defined in the service should have an entry in it'),
  },
  undefined,
  { protobuf: { ip: 1, hostname: 2, ipMode: ptr(3), ports: 4 } },
);

const loadBalancerStatusSchema: Schema = obj(
  'LoadBalancerStatus represents the status of a load-balancer.',
  { ingress: atomicList({ ...ingressSchema, default: {} }, 'Ingress is a list containing ingress points for the load-balancer. Traffic intended for the service should be sent to these ingress points.') },
  undefined,
  { protobuf: { ingress: 1 } },
);

/** meta/v1 Condition. */
export const metaConditionSchema: Schema = obj(
  'Condition contains details for one aspect of the current state of this API Resource.',
  {
    lastTransitionTime: time('lastTransitionTime is the last time the condition transitioned from one status to another.'),
    message: requiredStr('message is a human readable message indicating details about the transition. This may be an empty string.'),
    observedGeneration: int64('observedGeneration represents the .metadata.generation that the condition was set based upon.'),
    reason: requiredStr("reason contains a programmatic identifier indicating the reason for the condition's last transition."),
    status: requiredStr('status of the condition, one of True, False, Unknown.'),
    type: requiredStr('type of condition in CamelCase or in foo.example.com/CamelCase.'),
  },
  ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  { protobuf: { type: 1, status: 2, observedGeneration: 3, lastTransitionTime: 4, reason: 5, message: 6 } },
);

const statusSchema: Schema = obj(
  'ServiceStatus represents the current status of a service.',
  {
    conditions: keyedList(metaConditionSchema, 'Current service state', ['type']),
    loadBalancer: { ...ref(loadBalancerStatusSchema, 'LoadBalancer contains the current status of the load-balancer, if one is present.'), default: {} },
  },
  undefined,
  { protobuf: { loadBalancer: 1, conditions: 2 } },
);

export const SERVICE_PROPERTIES: Record<string, Schema> = {
  spec: { ...ref(specSchema, 'Spec defines the behavior of a service.'), default: {} },
  status: { ...ref(statusSchema, 'Most recently observed status of the service. Populated by the system. Read-only.'), default: {} },
};

export const SERVICE_FIELDS = Object.freeze({ spec: 2, status: 3 });
