/**
 * The Node schema (core/v1, Kubernetes v1.32), kept apart from the strategy for size. The node agent's
 * member names follow the naming (`Naming.nodeAgent`): Kubernetes' own under `k8s.io` (`kubeletVersion`,
 * `daemonEndpoints.kubeletEndpoint`, `configMap.kubeletConfigKey`, `kubeProxyVersion`), which every client
 * library and kubectl read; the documents' under any other domain (`nodeagentVersion`, `nodeagentEndpoint`,
 * `nodeagentConfigKey`, `proxyVersion`). The wire numbers are the same in both.
 *
 * `nodeInfo` members are required, as the document says; Kubernetes' `machineID` and `systemUUID`, which the
 * document does not list, are required only under `k8s.io` (the node agent always sends them there).
 */
import type { Naming } from '../../../naming/naming.js';
import { ptr, type Schema } from '../../../schema/schema.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { resourceListSchema, taintSchema } from './common-schemas.js';
import { atomicList, bool, int32, int64, keyedList, obj, requiredStr, str, stringList, struct, time } from './schema-builders.js';

function build(agent: Naming['nodeAgent']): Schema {
  const CONFIG_KEY = `${agent}ConfigKey`;
  const ENDPOINT = `${agent}Endpoint`;
  const VERSION = `${agent}Version`;
  const PROXY = agent === 'kubelet' ? 'kubeProxyVersion' : 'proxyVersion';
  // The document lists eight nodeInfo members, all required; Kubernetes has two more.
  const INFO_REQUIRED = ['bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', VERSION, PROXY, 'operatingSystem', 'architecture'];

  const configMapSource = obj(
    'A ConfigMap used as the configuration source of a node (deprecated: the feature was removed).',
    {
      [CONFIG_KEY]: requiredStr('The key of the referenced ConfigMap holding the node agent configuration.'),
      name: requiredStr('Name of the referenced ConfigMap.'),
      namespace: requiredStr('Namespace of the referenced ConfigMap.'),
      resourceVersion: str('ResourceVersion of the referenced ConfigMap: forbidden in spec, required in status.'),
      uid: str('UID of the referenced ConfigMap: forbidden in spec, required in status.'),
    },
    ['namespace', 'name', CONFIG_KEY],
    { protobuf: { namespace: 1, name: 2, uid: 3, resourceVersion: 4, [CONFIG_KEY]: 5 } },
  );

  // Field 1 was the removed configMapRef.
  const configSource = obj('The source of a node configuration (deprecated since v1.22).', { configMap: configMapSource }, undefined, {
    protobuf: { configMap: ptr(2) },
  });

  const spec = obj('The attributes of a node.', {
    configSource: { ...configSource, description: 'Deprecated: previously used for dynamic node agent configuration; the feature was removed.' },
    externalID: str('Deprecated. Not every node agent sets it; unused.'),
    podCIDR: str('The pod IP range assigned to the node.'),
    podCIDRs: {
      ...stringList('The pod IP ranges assigned to the node: at most one per IP family; when set, entry 0 equals podCIDR.'),
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    },
    providerID: str('ID of the node assigned by the cloud provider: <ProviderName>://<ProviderSpecificNodeID>.'),
    taints: atomicList({ ...taintSchema, default: {} }, 'The taints of the node.'),
    unschedulable: bool('Controls the scheduling of new pods onto the node. Nodes are schedulable by default.'),
  }, undefined, {
    protobuf: { podCIDR: 1, externalID: 2, providerID: 3, unschedulable: 4, taints: 5, configSource: ptr(6), podCIDRs: 7 },
  });

  const nodeAddress = obj(
    'An address of a node.',
    {
      address: requiredStr('The node address.'),
      type: requiredStr('Node address type: Hostname, ExternalIP or InternalIP.'),
    },
    ['type', 'address'],
    { protobuf: { type: 1, address: 2 } },
  );

  const nodeCondition = obj(
    'The condition of a node at a point in time.',
    {
      lastHeartbeatTime: time('Last time the condition was probed.'),
      lastTransitionTime: time('Last time the condition changed from one status to another.'),
      message: str('Human-readable details about the last transition.'),
      reason: str('Machine-readable, CamelCase reason for the last transition.'),
      status: requiredStr('Status of the condition: True, False or Unknown.'),
      type: requiredStr('Type of the node condition, e.g. Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable.'),
    },
    ['type', 'status'],
    { protobuf: { type: 1, status: 2, lastHeartbeatTime: 3, lastTransitionTime: 4, reason: 5, message: 6 } },
  );

  const nodeConfigStatus = obj('The status of the (removed) dynamic node agent configuration.', {
    active: { ...configSource, description: 'The configuration the node is actively using.' },
    assigned: { ...configSource, description: 'The configuration the node will try to use.' },
    error: str('Errors met while reconciling the configuration; empty means none.'),
    lastKnownGood: { ...configSource, description: 'The configuration the node falls back to on errors.' },
  }, undefined, {
    protobuf: { assigned: ptr(1), active: ptr(2), lastKnownGood: ptr(3), error: 4 },
  });

  const daemonEndpoint = obj('A port the node agent listens on.', { Port: int32('Port number of the endpoint.', { default: 0 }) }, ['Port'], {
    protobuf: { Port: 1 },
  });

  const nodeSystemInfo = obj(
    'Identifiers and versions reported by the node.',
    {
      architecture: requiredStr('The architecture reported by the node.'),
      bootID: requiredStr('Boot ID reported by the node.'),
      containerRuntimeVersion: requiredStr('Container runtime version reported through its API (e.g. containerd://1.7.0).'),
      kernelVersion: requiredStr('Kernel version reported by `uname -r`.'),
      [PROXY]: requiredStr('Deprecated: the proxy version reported by the node (not accurate).'),
      [VERSION]: requiredStr('Node agent version reported by the node.'),
      machineID: requiredStr('MachineID reported by the node; unique per machine (/etc/machine-id).'),
      operatingSystem: requiredStr('The operating system reported by the node.'),
      osImage: requiredStr('OS image reported by the node, from /etc/os-release (e.g. Debian GNU/Linux 12).'),
      systemUUID: requiredStr('SystemUUID reported by the node, from the hardware.'),
    },
    agent === 'kubelet' ? ['machineID', 'systemUUID', ...INFO_REQUIRED] : INFO_REQUIRED,
    {
      protobuf: {
        machineID: 1, systemUUID: 2, bootID: 3, kernelVersion: 4, osImage: 5, containerRuntimeVersion: 6, [VERSION]: 7,
        [PROXY]: 8, operatingSystem: 9, architecture: 10,
      },
    },
  );

  const status = obj('The observed state of a node.', {
    addresses: keyedList(
      nodeAddress,
      'Addresses reachable to the node, from the cloud provider if any, else from the node agent. The merge key is not unique enough: replace the whole list.',
      ['type'],
    ),
    allocatable: resourceListSchema('The resources of the node available for scheduling. Defaults to capacity.'),
    capacity: resourceListSchema('The total resources of the node.'),
    conditions: keyedList(nodeCondition, 'The current observed conditions of the node.', ['type']),
    config: { ...nodeConfigStatus, description: 'Status of the (removed) dynamic node agent configuration.' },
    daemonEndpoints: struct(
      obj('Ports of daemons running on the node.', { [ENDPOINT]: struct(daemonEndpoint, 'Endpoint on which the node agent listens.') }, undefined, {
        protobuf: { [ENDPOINT]: 1 },
      }),
      'Endpoints of daemons running on the node.',
    ),
    features: obj('Features the node implements.', {
      supplementalGroupsPolicy: bool('True when the runtime supports SupplementalGroupsPolicy and containerUser.'),
    }, undefined, { protobuf: { supplementalGroupsPolicy: ptr(1) } }),
    images: atomicList(
      {
        ...obj('A container image.', {
          names: stringList('Names known for the image, e.g. ["registry.k8s.io/hyperkube:v1.0.7", "dockerhub.io/google_containers/hyperkube:v1.0.7"].'),
          sizeBytes: int64('The size of the image in bytes.'),
        }, undefined, { protobuf: { names: 1, sizeBytes: 2 } }),
        default: {},
      },
      'Container images on the node.',
    ),
    nodeInfo: struct(nodeSystemInfo, 'General information about the node.'),
    phase: str('Deprecated: never populated. NodePhase is the recently observed lifecycle phase of the node.', { enum: ['Pending', 'Running', 'Terminated'] }),
    runtimeHandlers: atomicList(
      {
        ...obj('A runtime handler of the node.', {
          features: obj('Features the runtime handler supports.', {
            recursiveReadOnlyMounts: bool('True when the handler supports recursive read-only mounts.'),
            userNamespaces: bool('True when the handler supports user namespaces, including for volumes.'),
          }, undefined, { protobuf: { recursiveReadOnlyMounts: ptr(1), userNamespaces: ptr(2) } }),
          name: str('Runtime handler name; empty for the default handler.'),
        }, undefined, { protobuf: { name: 1, features: ptr(2) } }),
        default: {},
      },
      'The available runtime handlers.',
    ),
    volumesAttached: atomicList(
      {
        ...obj(
          'A volume attached to the node.',
          { devicePath: requiredStr('Where the volume should be available.'), name: requiredStr('Name of the attached volume.') },
          ['name', 'devicePath'],
          { protobuf: { name: 1, devicePath: 2 } },
        ),
        default: {},
      },
      'Volumes attached to the node.',
    ),
    volumesInUse: stringList('Attachable volumes in use (mounted) by the node.'),
  }, undefined, {
    protobuf: {
      capacity: 1, allocatable: 2, phase: 3, conditions: 4, addresses: 5, daemonEndpoints: 6, nodeInfo: 7, images: 8, volumesInUse: 9,
      volumesAttached: 10, config: ptr(11), runtimeHandlers: 12, features: ptr(13),
    },
  });

  return kindSchema(
    'Node is a worker node of the cluster. Each node has a unique identifier in the store.',
    {
      spec: struct(spec, 'The behavior of the node.'),
      status: struct(status, 'The most recently observed status of the node, populated by the system.'),
    },
    undefined,
    { spec: 2, status: 3 },
  );
}

const schemas = new Map<Naming['nodeAgent'], Schema>();

/** The Node schema under `naming` (one frozen schema per node agent spelling). */
export function nodeSchemaFor(naming: Pick<Naming, 'nodeAgent'>): Schema {
  let schema = schemas.get(naming.nodeAgent);
  if (schema === undefined) {
    schema = build(naming.nodeAgent);
    schemas.set(naming.nodeAgent, schema);
  }
  return schema;
}
