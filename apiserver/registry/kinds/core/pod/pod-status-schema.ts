/**
 * The PodStatus schema (Kubernetes v1.32 fields) with the protobuf numbers of kubernetes/api core/v1
 * generated.proto, pointers from types.go, and the list metadata Kubernetes publishes (conditions merged
 * by `type`, pod IPs by `ip`, container statuses atomic). Status is written by the scheduler (binding,
 * nominatedNodeName) and the node agent (everything else); the API server only sets `phase: Pending` and
 * `qosClass` on create.
 */
import type { Schema } from '../../../../schema/schema.js';
import { resourceRequirementsSchema } from './container-schema.js';
import { atomicList, bool, int32, int64, keyedList, obj, ptr, quantityMap, requiredStr, str, struct } from './schema-builders.js';
import { time } from '../../shared/schema-builders.js';

const podConditionSchema: Schema = obj(
  'A condition of the pod (PodScheduled, Initialized, ContainersReady, Ready, or a readiness gate).',
  {
    type: requiredStr('Type of the condition; a qualified name unless it is one of the system conditions.'),
    status: requiredStr('True, False or Unknown.'),
    lastProbeTime: time('Last time the condition was probed.'),
    lastTransitionTime: time('Last time the condition changed status.'),
    reason: str('Unique, one-word, CamelCase reason for the last transition.'),
    message: str('Human-readable message about the last transition.'),
  },
  ['type', 'status'],
  { protobuf: { type: 1, status: 2, lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 } },
);

const containerStateSchema = (description: string): Schema =>
  struct(
    obj(
      'One state of a container; at most one member is set (none means waiting).',
      {
        waiting: obj('A container that is not running yet.', {
          reason: str('Why the container is not running yet (ContainerCreating, CrashLoopBackOff, ErrImagePull ...).'),
          message: str('Details of the reason.'),
        }, undefined, { protobuf: { reason: 1, message: 2 } }),
        running: obj('A running container.', { startedAt: time('When the container was last (re)started.') }, undefined, { protobuf: { startedAt: 1 } }),
        terminated: obj('A container that has terminated.', {
          exitCode: int32('Exit status of the last termination.', { default: 0 }),
          signal: int32('Signal of the last termination.'),
          reason: str('Brief reason of the last termination.'),
          message: str('Message of the last termination.'),
          startedAt: time('When the previous run of the container started.'),
          finishedAt: time('When the container last terminated.'),
          containerID: str("The container's ID, as '<type>://<container_id>'."),
        }, ['exitCode'], { protobuf: { exitCode: 1, signal: 2, reason: 3, message: 4, startedAt: 5, finishedAt: 6, containerID: 7 } }),
      },
      undefined,
      { protobuf: { waiting: ptr(1), running: ptr(2), terminated: ptr(3) } },
    ),
    description,
  );

const volumeMountStatusSchema: Schema = obj(
  'A volume mount as the container runtime made it.',
  {
    name: requiredStr('Name of the volume mount.'),
    mountPath: requiredStr('Path inside the container.'),
    readOnly: bool('Whether the mount is read-only.'),
    recursiveReadOnly: str('Disabled or Enabled: the recursive read-only mode the runtime applied.'),
  },
  ['name', 'mountPath'],
  { protobuf: { name: 1, mountPath: 2, readOnly: 3, recursiveReadOnly: ptr(4) } },
);

const containerUserSchema: Schema = obj('The identity the container process runs as.', {
  linux: obj('The Linux identity of the first process of the container.', {
    uid: int64('Primary user ID.', { default: 0 }),
    gid: int64('Primary group ID.', { default: 0 }),
    supplementalGroups: atomicList({ type: 'integer', format: 'int64', default: 0 }, 'Supplemental group IDs.'),
  }, ['uid', 'gid'], { protobuf: { uid: 1, gid: 2, supplementalGroups: 3 } }),
}, undefined, { protobuf: { linux: ptr(1) } });

const resourceStatusSchema: Schema = obj(
  'The health of the devices behind one resource of a container.',
  {
    name: requiredStr('Resource name (a container resource or a resource claim).'),
    resources: keyedList(
      obj('The health of one device.', {
        resourceID: requiredStr('Unique ID of the device.'),
        health: str('Healthy, Unhealthy or Unknown.'),
      }, ['resourceID'], { protobuf: { resourceID: 1, health: 2 } }),
      'Health of each device.',
      ['resourceID'],
    ),
  },
  ['name'],
  { protobuf: { name: 1, resources: 2 } },
);

export const containerStatusSchema: Schema = obj(
  'The status of one container of the pod.',
  {
    name: requiredStr('Name of the container (as in the pod spec).'),
    state: containerStateSchema("The container's current state."),
    lastState: containerStateSchema("The container's last termination."),
    ready: bool('Whether the container passes its readiness checks.', { default: false }),
    restartCount: int32('How many times the container has been restarted.', { default: 0 }),
    image: requiredStr('The image the container runs.'),
    imageID: requiredStr("The image's ID."),
    containerID: str("The container's ID, as '<type>://<container_id>'."),
    started: bool('Whether the container has passed its startup probe.'),
    allocatedResources: quantityMap('Compute resources the node allocated to the container.'),
    resources: { ...resourceRequirementsSchema, description: 'Compute resources the container runs with.' },
    volumeMounts: keyedList(volumeMountStatusSchema, 'Volume mounts of the container.', ['mountPath']),
    user: containerUserSchema,
    allocatedResourcesStatus: keyedList(resourceStatusSchema, 'Health of the resources allocated to the container.', ['name']),
  },
  ['name', 'ready', 'restartCount', 'image', 'imageID'],
  {
    protobuf: {
      name: 1, state: 2, lastState: 3, ready: 4, restartCount: 5, image: 6, imageID: 7, containerID: 8, started: ptr(9),
      allocatedResources: 10, resources: ptr(11), volumeMounts: 12, user: ptr(13), allocatedResourcesStatus: 14,
    },
  },
);

const ipSchema = (description: string): Schema => obj(description, { ip: requiredStr('The IP address.') }, ['ip'], { protobuf: { ip: 1 } });

export const podStatusSchema: Schema = obj(
  'The most recently observed status of the pod.',
  {
    phase: str('Pending, Running, Succeeded, Failed or Unknown.'),
    conditions: keyedList(podConditionSchema, 'Current service state of the pod.', ['type']),
    message: str('Human-readable message on why the pod is in this condition.'),
    reason: str("Brief CamelCase reason why the pod is in this state (e.g. 'Evicted')."),
    nominatedNodeName: str('The node the scheduler expects the pod to run on once preemption is done.'),
    hostIP: str('Primary IP address of the host the pod is assigned to.'),
    hostIPs: {
      ...atomicList({ ...ipSchema('An IP address of the host.'), default: {} }, 'IP addresses of the host; entry 0 is hostIP.'),
      'x-kubernetes-patch-merge-key': 'ip',
      'x-kubernetes-patch-strategy': 'merge',
    },
    podIP: str('Primary IP address of the pod.'),
    podIPs: keyedList(ipSchema('An IP address of the pod.'), 'IP addresses of the pod, at most one per family; entry 0 is podIP.', ['ip']),
    startTime: time('When the node agent acknowledged the pod (before any image pull).'),
    initContainerStatuses: atomicList({ ...containerStatusSchema, default: {} }, 'Statuses of the init containers, one per container.'),
    containerStatuses: atomicList({ ...containerStatusSchema, default: {} }, 'Statuses of the containers, one per container.'),
    ephemeralContainerStatuses: atomicList({ ...containerStatusSchema, default: {} }, 'Statuses of the ephemeral containers.'),
    qosClass: str('Guaranteed, Burstable or BestEffort, from the resource requirements; set on create and never changed.'),
    resize: str('Deprecated: status of a resize of the container resources.'),
    resourceClaimStatuses: keyedList(
      obj('The ResourceClaim generated for a pod resource claim.', {
        name: requiredStr('Name of the entry in spec.resourceClaims.'),
        resourceClaimName: str('Name of the generated ResourceClaim.'),
      }, ['name'], { protobuf: { name: 1, resourceClaimName: ptr(2) } }),
      'Generated ResourceClaims of the pod.',
      ['name'],
      'merge,retainKeys',
    ),
  },
  undefined,
  {
    protobuf: {
      phase: 1, conditions: 2, message: 3, reason: 4, hostIP: 5, podIP: 6, startTime: ptr(7), containerStatuses: 8, qosClass: 9,
      initContainerStatuses: 10, nominatedNodeName: 11, podIPs: 12, ephemeralContainerStatuses: 13, resize: 14, resourceClaimStatuses: 15,
      hostIPs: 16,
    },
  },
);
