/**
 * The PodSpec schema (Kubernetes v1.32 fields), with the list metadata Kubernetes publishes and the
 * defaults it applies to every pod spec, templates included: restartPolicy Always, dnsPolicy ClusterFirst,
 * schedulerName default-scheduler, terminationGracePeriodSeconds 30, securityContext {}. Enumerated fields
 * carry no `enum` here (Kubernetes' OpenAPI does not publish one for them); validation checks their values
 * with Kubernetes' messages.
 */
import type { Schema } from '../../../../schema/schema.js';
import { containerSchema, ephemeralContainerSchema } from './container-schema.js';
import { atomicList, bool, int32, int64, keyedList, localObjectReference, obj, ptr, quantityMap, requiredStr, str, stringList, stringMap } from './schema-builders.js';
import { affinitySchema, tolerationListSchema, topologySpreadConstraintListSchema } from './scheduling-schema.js';
import { podSecurityContextSchema } from './security-context-schema.js';
import { volumeListSchema } from './volume-schema.js';

const dnsConfigSchema: Schema = obj('DNS parameters merged into those generated from dnsPolicy.', {
  nameservers: stringList('DNS name server IP addresses, appended to the generated ones without duplicates.'),
  options: atomicList(
    { ...obj('A resolver option.', { name: str('Option name (required).'), value: str('Option value.') }, undefined, { protobuf: { name: 1, value: ptr(2) } }), default: {} },
    'Resolver options, merged into the generated ones; duplicates are removed.',
  ),
  searches: stringList('DNS search domains, appended to the generated ones without duplicates.'),
}, undefined, { protobuf: { nameservers: 1, searches: 2, options: 3 } });

const hostAliasSchema: Schema = obj(
  'An entry of the pod hosts file.',
  { hostnames: stringList('Host names for the IP address.'), ip: requiredStr('IP address of the entry.') },
  ['ip'],
  { protobuf: { ip: 1, hostnames: 2 } },
);

const podResourceClaimSchema: Schema = obj(
  'A ResourceClaim used by the pod, named for its containers.',
  {
    name: requiredStr('Name of the claim inside the pod (a DNS label).'),
    resourceClaimName: str('Name of an existing ResourceClaim; exclusive with resourceClaimTemplateName.'),
    resourceClaimTemplateName: str('Name of a ResourceClaimTemplate from which a claim is made for the pod.'),
  },
  ['name'],
  // Field 2 was the removed `source`.
  { protobuf: { name: 1, resourceClaimName: ptr(3), resourceClaimTemplateName: ptr(4) } },
);

export const podSpecSchema: Schema = obj(
  'The desired behavior of a pod.',
  {
    activeDeadlineSeconds: int64('Seconds the pod may be active before the system marks it failed; a positive integer.'),
    affinity: affinitySchema,
    automountServiceAccountToken: bool('Whether a service account token is mounted automatically.'),
    containers: keyedList(containerSchema, 'Containers of the pod; at least one.', ['name']),
    dnsConfig: dnsConfigSchema,
    dnsPolicy: str("ClusterFirstWithHostNet, ClusterFirst, Default or None; defaults to ClusterFirst.", { default: 'ClusterFirst' }),
    enableServiceLinks: bool('Inject service environment variables in the style of Docker links; defaults to true for pods.'),
    ephemeralContainers: keyedList(ephemeralContainerSchema, 'Ephemeral containers; only through the ephemeralcontainers sub-resource of a pod.', ['name']),
    hostAliases: keyedList(hostAliasSchema, 'Entries added to the pod hosts file (not with hostNetwork).', ['ip']),
    hostIPC: bool("Use the host's IPC namespace; defaults to false."),
    hostNetwork: bool("Use the host's network namespace; defaults to false."),
    hostPID: bool("Use the host's PID namespace; defaults to false."),
    hostUsers: bool("Use the host's user namespace; defaults to true."),
    hostname: str('Host name of the pod (a DNS label); defaults to a system-defined value.'),
    imagePullSecrets: keyedList(localObjectReference('A Secret used to pull images.'), 'Secrets of the namespace used to pull the images of this pod.', ['name']),
    initContainers: keyedList(containerSchema, 'Containers run in order, each to completion, before the others start.', ['name']),
    nodeName: str('Schedules the pod onto this node directly.'),
    nodeSelector: stringMap("Labels a node must have for the pod to fit on it.", true),
    os: obj('The operating system of the containers.', { name: requiredStr('linux or windows.') }, ['name'], { protobuf: { name: 1 } }),
    overhead: quantityMap('Resource overhead of running the pod with its RuntimeClass; set by admission.'),
    preemptionPolicy: str('Never or PreemptLowerPriority; defaults to PreemptLowerPriority.'),
    priority: int32('Priority value; set from priorityClassName by admission.'),
    priorityClassName: str('Name of the PriorityClass of the pod.'),
    readinessGates: atomicList(
      {
        ...obj('A pod condition that must be True for the pod to be ready.', { conditionType: requiredStr('Condition type.') }, ['conditionType'], {
          protobuf: { conditionType: 1 },
        }),
        default: {},
      },
      'Extra conditions evaluated for pod readiness.',
    ),
    resourceClaims: keyedList(podResourceClaimSchema, 'ResourceClaims allocated and reserved before the pod starts.', ['name'], 'merge,retainKeys'),
    resources: obj('Pod-level resources (alpha, PodLevelResources).', {
      limits: quantityMap('Maximum amount of each resource allowed.'),
      requests: quantityMap('Minimum amount of each resource required.'),
    }, undefined, { protobuf: { limits: 1, requests: 2 } }),
    restartPolicy: str('Always, OnFailure or Never; defaults to Always.', { default: 'Always' }),
    runtimeClassName: str('Name of the RuntimeClass used to run the pod.'),
    schedulerName: str('Scheduler that dispatches the pod; defaults to default-scheduler.', { default: 'default-scheduler' }),
    schedulingGates: keyedList(
      obj('A gate blocking scheduling.', { name: requiredStr('Name of the gate; unique.') }, ['name'], { protobuf: { name: 1 } }),
      'Gates that block scheduling while present.',
      ['name'],
    ),
    securityContext: { ...podSecurityContextSchema, default: {} },
    serviceAccount: str('Deprecated alias of serviceAccountName.'),
    serviceAccountName: str('Name of the ServiceAccount that runs the pod.'),
    setHostnameAsFQDN: bool("Set the pod's FQDN as its hostname; defaults to false."),
    shareProcessNamespace: bool('Share one process namespace between the containers; defaults to false.'),
    subdomain: str('Subdomain of the pod host name (a DNS label).'),
    terminationGracePeriodSeconds: int64('Seconds given to the pod to terminate gracefully; defaults to 30.', { default: 30 }),
    tolerations: tolerationListSchema,
    topologySpreadConstraints: topologySpreadConstraintListSchema,
    volumes: volumeListSchema,
  },
  ['containers'],
  {
    protobuf: {
      volumes: 1, containers: 2, restartPolicy: 3, terminationGracePeriodSeconds: ptr(4), activeDeadlineSeconds: ptr(5), dnsPolicy: 6,
      nodeSelector: 7, serviceAccountName: 8, serviceAccount: 9, nodeName: 10, hostNetwork: 11, hostPID: 12, hostIPC: 13,
      securityContext: ptr(14), imagePullSecrets: 15, hostname: 16, subdomain: 17, affinity: ptr(18), schedulerName: 19, initContainers: 20,
      automountServiceAccountToken: ptr(21), tolerations: 22, hostAliases: 23, priorityClassName: 24, priority: ptr(25), dnsConfig: ptr(26),
      shareProcessNamespace: ptr(27), readinessGates: 28, runtimeClassName: ptr(29), enableServiceLinks: ptr(30), preemptionPolicy: ptr(31),
      overhead: 32, topologySpreadConstraints: 33, ephemeralContainers: 34, setHostnameAsFQDN: ptr(35), os: ptr(36), hostUsers: ptr(37),
      schedulingGates: 38, resourceClaims: 39, resources: ptr(40),
    },
  },
);
