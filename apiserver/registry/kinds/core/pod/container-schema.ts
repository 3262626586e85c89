/**
 * The Container schema (used by `containers`, `initContainers` and, with `targetContainerName`,
 * `ephemeralContainers`), with its ports, resources, volume mounts and devices. The list metadata is what
 * Kubernetes publishes: ports keyed by containerPort+protocol (merge key containerPort), volumeMounts by
 * mountPath, volumeDevices by devicePath, env by name. Defaults: terminationMessagePath
 * `/dev/termination-log`, terminationMessagePolicy `File`, port protocol `TCP`, resources `{}`;
 * imagePullPolicy depends on the image tag and is set by a hook (pod-defaults.ts).
 */
import type { ProtobufField, ProtobufFields, Schema } from '../../../../schema/schema.js';
import { envFromSourceSchema, envListSchema } from './env-schema.js';
import { lifecycleSchema, probeSchema } from './probe-schema.js';
import { bool, inline, int32, keyedList, atomicList, obj, ptr, quantityMap, requiredStr, str, stringList, struct } from './schema-builders.js';
import { securityContextSchema } from './security-context-schema.js';

export const containerPortSchema: Schema = obj(
  'A network port of a container.',
  {
    containerPort: int32("Port number on the pod's IP address (1-65535).", { default: 0 }),
    hostIP: str('Host IP to bind the host port to.'),
    hostPort: int32('Port number on the host (1-65535); must equal containerPort with hostNetwork.'),
    name: str('IANA_SVC_NAME of the port, unique within the pod; services may refer to it.'),
    protocol: str('UDP, TCP or SCTP; defaults to TCP.', { default: 'TCP' }),
  },
  ['containerPort'],
  { protobuf: { name: 1, hostPort: 2, containerPort: 3, protocol: 4, hostIP: 5 } },
);

const resourceClaimSchema: Schema = obj(
  'A resource claim of the pod used by this container.',
  { name: requiredStr('Name of an entry of pod.spec.resourceClaims.'), request: str('Name of a request in the claim; empty means all.') },
  ['name'],
  { protobuf: { name: 1, request: 2 } },
);

export const resourceRequirementsSchema: Schema = obj('Compute resources of a container.', {
  // Published as a list-map without strategic merge directives.
  claims: {
    type: 'array',
    description: 'Dynamically allocated resources used by the container.',
    items: { ...resourceClaimSchema, default: {} },
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  },
  limits: quantityMap('Maximum amount of each resource allowed.'),
  requests: quantityMap('Minimum amount of each resource required; defaults to the limits when omitted for a Pod.'),
}, undefined, { protobuf: { limits: 1, requests: 2, claims: 3 } });

export const volumeMountSchema: Schema = obj(
  'A mount of a pod volume into the container.',
  {
    mountPath: requiredStr("Path in the container at which the volume is mounted; must not contain ':'."),
    mountPropagation: str('None, HostToContainer or Bidirectional; defaults to None.'),
    name: requiredStr('Name of a volume of the pod.'),
    readOnly: bool('Mount read-only; defaults to false.'),
    recursiveReadOnly: str('Disabled, IfPossible or Enabled: whether read-only mounts are recursively read-only.'),
    subPath: str("Path within the volume to mount instead of its root; defaults to ''."),
    subPathExpr: str('Like subPath, with $(VAR) expanded from the container environment; exclusive with subPath.'),
  },
  ['name', 'mountPath'],
  { protobuf: { name: 1, readOnly: 2, mountPath: 3, subPath: 4, mountPropagation: ptr(5), subPathExpr: 6, recursiveReadOnly: ptr(7) } },
);

export const volumeDeviceSchema: Schema = obj(
  'A raw block device mapped into the container.',
  { devicePath: requiredStr('Path in the container of the device.'), name: requiredStr('Name of a persistentVolumeClaim volume of the pod.') },
  ['name', 'devicePath'],
  { protobuf: { name: 1, devicePath: 2 } },
);

const resizePolicySchema: Schema = obj(
  'How a resource of the container is resized.',
  { resourceName: requiredStr('cpu or memory.'), restartPolicy: requiredStr('NotRequired or RestartContainer.') },
  ['resourceName', 'restartPolicy'],
  { protobuf: { resourceName: 1, restartPolicy: 2 } },
);

const containerProperties: Record<string, Schema> = {
  args: stringList('Arguments of the entrypoint; $(VAR) is expanded from the container environment.'),
  command: stringList('Entrypoint array, not run in a shell; defaults to the image ENTRYPOINT.'),
  env: envListSchema,
  envFrom: atomicList({ ...envFromSourceSchema, default: {} }, 'Sources of environment variables; later sources win, env wins over all.'),
  image: str('Container image name.'),
  imagePullPolicy: str('Always, Never or IfNotPresent; defaults to Always for the :latest tag or no tag, else IfNotPresent.'),
  lifecycle: lifecycleSchema,
  livenessProbe: { ...probeSchema, description: 'Periodic liveness probe; the container is restarted when it fails.' },
  name: requiredStr('Name of the container (a DNS label), unique within the pod.'),
  ports: keyedList(containerPortSchema, 'Ports exposed by the container (informational).', ['containerPort', 'protocol'], 'merge', 'containerPort'),
  readinessProbe: { ...probeSchema, description: 'Periodic readiness probe; the pod leaves service endpoints when it fails.' },
  resizePolicy: atomicList({ ...resizePolicySchema, default: {} }, 'Resize policy of each resource.'),
  resources: struct(resourceRequirementsSchema),
  restartPolicy: str('Only for init containers, only Always: makes the init container a sidecar.'),
  securityContext: securityContextSchema,
  startupProbe: { ...probeSchema, description: 'Probe that must succeed before the other probes run.' },
  stdin: bool('Allocate a buffer for stdin.'),
  stdinOnce: bool('Close stdin after the first attach ends.'),
  terminationMessagePath: str('File whose contents become the termination message; defaults to /dev/termination-log.', { default: '/dev/termination-log' }),
  terminationMessagePolicy: str('File or FallbackToLogsOnError; defaults to File.', { default: 'File' }),
  tty: bool('Allocate a TTY; needs stdin.'),
  volumeDevices: keyedList(volumeDeviceSchema, 'Block devices used by the container.', ['devicePath']),
  volumeMounts: keyedList(volumeMountSchema, 'Pod volumes mounted into the container.', ['mountPath']),
  workingDir: str("Working directory; defaults to the image's."),
};

/** Container's field numbers (EphemeralContainerCommon repeats them). */
const containerFields: Readonly<Record<string, number | ProtobufField>> = {
  name: 1, image: 2, command: 3, args: 4, workingDir: 5, ports: 6, env: 7, resources: 8, volumeMounts: 9, livenessProbe: ptr(10),
  readinessProbe: ptr(11), lifecycle: ptr(12), terminationMessagePath: 13, imagePullPolicy: 14, securityContext: ptr(15), stdin: 16,
  stdinOnce: 17, tty: 18, envFrom: 19, terminationMessagePolicy: 20, volumeDevices: 21, startupProbe: ptr(22), resizePolicy: 23,
  restartPolicy: ptr(24),
};

export const containerSchema: Schema = obj('A container of a pod.', containerProperties, ['name'], { protobuf: containerFields });

/** An ephemeral container's Container fields are those of its embedded EphemeralContainerCommon (field 1). */
const ephemeralContainerFields: ProtobufFields = {
  ...Object.fromEntries(Object.entries(containerFields).map(([name, field]) => [name, inline(1, field)])),
  targetContainerName: 2,
};

export const ephemeralContainerSchema: Schema = obj(
  'A temporary container added to a running pod for debugging.',
  { ...containerProperties, targetContainerName: str('Container whose namespaces this one targets.') },
  ['name'],
  { protobuf: ephemeralContainerFields },
);
