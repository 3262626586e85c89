/**
 * StatefulSet and ReplicationController in protobuf: objects encoded by the server's schema-driven codec
 * are read back by protobufjs with an independent description of the apps/v1 and core/v1 messages
 * (written below from generated.proto's numbers), and round-trip through the server's decoder. A claim
 * template's apiVersion and kind are Go's untagged TypeMeta: never on the wire, restored by the defaults
 * of the next write, as Kubernetes' apps/v1 conversion restores them.
 */
import protobuf from 'protobufjs';
import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../schema/defaults.js';
import { decodeProtobuf, encodeMessage, objectProtobuf } from '../../../codec/protobuf/protobuf-codec.js';
import { replicationControllers } from '../core/replicationcontroller.js';
import { createAs } from '../storage/testing.js';
import { statefulSets } from './statefulset.js';

const PROTO = `
syntax = "proto2";
package w;
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message Quantity { optional string string = 1; }
message ObjectMeta { optional string name = 1; map<string, string> labels = 11; }
message LabelSelector { map<string, string> matchLabels = 1; }
message Container { optional string name = 1; optional string image = 2; }
message PodSpec { repeated Container containers = 2; optional string restartPolicy = 3; }
message PodTemplateSpec { optional ObjectMeta metadata = 1; optional PodSpec spec = 2; }
message VolumeResourceRequirements { map<string, Quantity> limits = 1; map<string, Quantity> requests = 2; }
message PVCSpec { repeated string accessModes = 1; optional VolumeResourceRequirements resources = 2; optional string storageClassName = 5; optional string volumeMode = 6; }
message PVCStatus { optional string phase = 1; }
message PVC { optional ObjectMeta metadata = 1; optional PVCSpec spec = 2; optional PVCStatus status = 3; }
message IntOrString { optional int64 type = 1; optional int32 intVal = 2; optional string strVal = 3; }
message RollingUpdate { optional int32 partition = 1; optional IntOrString maxUnavailable = 2; }
message UpdateStrategy { optional string type = 1; optional RollingUpdate rollingUpdate = 2; }
message RetentionPolicy { optional string whenDeleted = 1; optional string whenScaled = 2; }
message Ordinals { optional int32 start = 1; }
message StatefulSetSpec {
  optional int32 replicas = 1; optional LabelSelector selector = 2; optional PodTemplateSpec template = 3; repeated PVC volumeClaimTemplates = 4;
  optional string serviceName = 5; optional string podManagementPolicy = 6; optional UpdateStrategy updateStrategy = 7;
  optional int32 revisionHistoryLimit = 8; optional int32 minReadySeconds = 9; optional RetentionPolicy persistentVolumeClaimRetentionPolicy = 10;
  optional Ordinals ordinals = 11;
}
message StatefulSetCondition { optional string type = 1; optional string status = 2; optional Time lastTransitionTime = 3; optional string reason = 4; optional string message = 5; }
message StatefulSetStatus {
  optional int64 observedGeneration = 1; optional int32 replicas = 2; optional int32 readyReplicas = 3; optional int32 currentReplicas = 4;
  optional int32 updatedReplicas = 5; optional string currentRevision = 6; optional string updateRevision = 7; optional int32 collisionCount = 9;
  repeated StatefulSetCondition conditions = 10; optional int32 availableReplicas = 11;
}
message StatefulSet { optional ObjectMeta metadata = 1; optional StatefulSetSpec spec = 2; optional StatefulSetStatus status = 3; }
message RCSpec { optional int32 replicas = 1; map<string, string> selector = 2; optional PodTemplateSpec template = 3; optional int32 minReadySeconds = 4; }
message RCCondition { optional string type = 1; optional string status = 2; optional Time lastTransitionTime = 3; optional string reason = 4; optional string message = 5; }
message RCStatus {
  optional int32 replicas = 1; optional int32 fullyLabeledReplicas = 2; optional int64 observedGeneration = 3; optional int32 readyReplicas = 4;
  optional int32 availableReplicas = 5; repeated RCCondition conditions = 6;
}
message RC { optional ObjectMeta metadata = 1; optional RCSpec spec = 2; optional RCStatus status = 3; }
`;
const root = protobuf.parse(PROTO).root;
const read = (name: string, bytes: Uint8Array): Record<string, any> => {
  const t = root.lookupType(`w.${name}`);
  return t.toObject(t.decode(bytes), { longs: Number, defaults: false }) as Record<string, any>;
};

const statefulSet: KubeObject = createAs(statefulSets, {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas: 0,
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', volumeMounts: [{ name: 'data', mountPath: '/d' }] }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } } }],
    ordinals: { start: 2 },
  },
}).obj;

test('a StatefulSet reads back from the independent description (pointer zeros kept, claims as PVC messages)', () => {
  const status = {
    replicas: 2, readyReplicas: 1, availableReplicas: 1, collisionCount: 0, observedGeneration: 4,
    conditions: [{ type: 'X', status: 'True', lastTransitionTime: '2025-01-02T03:04:05Z', reason: 'R', message: 'm' }],
  };
  const msg = read('StatefulSet', encodeMessage(statefulSets.schema, { ...statefulSet, status }));
  expect(msg.spec).toMatchObject({
    replicas: 0, // a pointer in Go: an explicit zero is on the wire
    selector: { matchLabels: { app: 'web' } },
    serviceName: 'web',
    podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    revisionHistoryLimit: 10,
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    ordinals: { start: 2 },
  });
  expect(msg.spec.volumeClaimTemplates).toEqual([{
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: { string: '1Gi' } } }, storageClassName: 'fast', volumeMode: 'Filesystem' },
    status: { phase: 'Pending' },
  }]);
  expect(msg.status).toEqual({
    replicas: 2, readyReplicas: 1, availableReplicas: 1, collisionCount: 0, observedGeneration: 4,
    conditions: [{ type: 'X', status: 'True', lastTransitionTime: { seconds: Date.parse('2025-01-02T03:04:05Z') / 1000, nanos: 0 }, reason: 'R', message: 'm' }],
  });
});

test('a StatefulSet round-trips through the server codec; claim TypeMeta comes back with the next write\'s defaults', () => {
  const decoded = decodeProtobuf(objectProtobuf(statefulSets.schema, statefulSet, undefined).bytes, statefulSets.schema);
  expect(decoded.unknown).toEqual([]);
  const value = { apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value } as KubeObject;
  const claim = (value.spec as { volumeClaimTemplates: Record<string, unknown>[] }).volumeClaimTemplates[0]!;
  expect([claim.apiVersion, claim.kind]).toEqual([undefined, undefined]);
  expect(createAs(statefulSets, value).obj).toEqual(statefulSet);
});

test('a ReplicationController reads back and round-trips', () => {
  const rc = createAs(replicationControllers, {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'fe', namespace: 'default' },
    spec: { replicas: 0, minReadySeconds: 3, template: { metadata: { labels: { app: 'fe' } }, spec: { containers: [{ name: 'php', image: 'php' }] } } },
  }).obj;
  const status = { replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 2, conditions: [{ type: 'ReplicaFailure', status: 'False' }] };
  const msg = read('RC', encodeMessage(replicationControllers.schema, { ...rc, status }));
  expect(msg.spec).toMatchObject({ replicas: 0, selector: { app: 'fe' }, minReadySeconds: 3, template: { metadata: { labels: { app: 'fe' } }, spec: { restartPolicy: 'Always' } } });
  expect(msg.status).toEqual(status);
  const decoded = decodeProtobuf(objectProtobuf(replicationControllers.schema, rc, undefined).bytes, replicationControllers.schema);
  const value = { apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value } as KubeObject;
  // Plain zeros are not on the wire (Go's omitempty); the schema's defaults restore `status.replicas: 0`.
  expect(value.status).toEqual({});
  applyDefaults(value, replicationControllers.schema);
  expect(value).toEqual(rc);
});
