/**
 * The schema of `autoscaling/v1` HorizontalPodAutoscaler as Kubernetes v1.32 publishes it, with the field
 * numbers of `k8s.io/api/autoscaling/v1/generated.proto`: HorizontalPodAutoscaler {metadata 1, spec 2,
 * status 3}; HorizontalPodAutoscalerSpec {scaleTargetRef 1, minReplicas 2 (pointer), maxReplicas 3,
 * targetCPUUtilizationPercentage 4 (pointer)}; CrossVersionObjectReference {kind 1, name 2, apiVersion 3};
 * HorizontalPodAutoscalerStatus {observedGeneration 1, lastScaleTime 2 (pointers), currentReplicas 3,
 * desiredReplicas 4, currentCPUUtilizationPercentage 5 (pointer)}.
 *
 * Defaults as v1's defaulting and Go's decoding: `minReplicas` 1; the required non-pointer members carry
 * their zero values (`maxReplicas` 0, the reference's `kind` and `name` "", the status counts 0), so a
 * missing one fails the kind's validation with Kubernetes' cause rather than the schema's.
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { int32, int64, obj, requiredStr, str, struct, time } from '../shared/schema-builders.js';

const crossVersionObjectReferenceSchema: Schema = obj(
  'CrossVersionObjectReference contains enough information to let you identify the referred resource.',
  {
    apiVersion: str('apiVersion is the API version of the referent'),
    kind: requiredStr('kind is the kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds'),
    name: requiredStr('name is the name of the referent; More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names'),
  },
  ['kind', 'name'],
  { 'x-kubernetes-map-type': 'atomic', protobuf: { kind: 1, name: 2, apiVersion: 3 } },
);

const specSchema: Schema = obj(
  'specification of a horizontal pod autoscaler.',
  {
    maxReplicas: int32('maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.', { default: 0 }),
    minReplicas: int32(
      'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
      { default: 1 },
    ),
    scaleTargetRef: struct(
      crossVersionObjectReferenceSchema,
      'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.',
    ),
    targetCPUUtilizationPercentage: int32(
      'targetCPUUtilizationPercentage is the target average CPU utilization (represented as a percentage of requested CPU) over all the pods; if not specified the default autoscaling policy will be used.',
    ),
  },
  ['scaleTargetRef', 'maxReplicas'],
  { protobuf: { scaleTargetRef: 1, minReplicas: ptr(2), maxReplicas: 3, targetCPUUtilizationPercentage: ptr(4) } },
);

const statusSchema: Schema = obj(
  'current status of a horizontal pod autoscaler',
  {
    currentCPUUtilizationPercentage: int32(
      'currentCPUUtilizationPercentage is the current average CPU utilization over all pods, represented as a percentage of requested CPU, e.g. 70 means that an average pod is using now 70% of its requested CPU.',
    ),
    currentReplicas: int32('currentReplicas is the current number of replicas of pods managed by this autoscaler.', { default: 0 }),
    desiredReplicas: int32('desiredReplicas is the  desired number of replicas of pods managed by this autoscaler.', { default: 0 }),
    lastScaleTime: time('lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods; used by the autoscaler to control how often the number of pods is changed.'),
    observedGeneration: int64('observedGeneration is the most recent generation observed by this autoscaler.'),
  },
  ['currentReplicas', 'desiredReplicas'],
  { protobuf: { observedGeneration: ptr(1), lastScaleTime: ptr(2), currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: ptr(5) } },
);

export const HPA_PROPERTIES: Record<string, Schema> = {
  spec: struct(specSchema, 'spec defines the behaviour of autoscaler. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.'),
  status: struct(statusSchema, 'status is the current information about the autoscaler.'),
};

export const HPA_FIELDS = Object.freeze({ spec: 2, status: 3 });
