/**
 * `autoscaling/v1` Scale: the body of every `<resource>/<name>/scale` sub-resource (registry/scale-subresource.ts),
 * never served as a resource of its own here. The group is Kubernetes' fixed `autoscaling` in every
 * group-domain mode (as the spec's `autoscaling/v1` HorizontalPodAutoscaler): stock clients (`kubectl scale`,
 * client-go's scale client) decode only `autoscaling/v1` Scales.
 *
 * JSON follows the Go struct: `spec.replicas` is omitted when 0, `status.replicas` is always present,
 * `status.selector` is omitted when empty. Protobuf numbers: Scale{metadata=1, spec=2, status=3},
 * ScaleSpec{replicas=1}, ScaleStatus{replicas=1, selector=2}.
 */
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { int32, obj, str, struct } from '../shared/schema-builders.js';

const schema = kindSchema(
  'Scale represents a scaling request for a resource.',
  {
    spec: struct(
      obj('The desired state of the scaled object.', {
        replicas: int32('The desired number of instances for the scaled object.'),
      }, undefined, { protobuf: { replicas: 1 } }),
      'The desired state of the scaled object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.',
    ),
    status: struct(
      obj('The current state of the scaled object.', {
        replicas: int32('The actual number of observed instances of the scaled object.', { default: 0 }),
        selector: str('The label query over pods that should match the replicas count, in the string form of a label selector (the form the autoscaler reads).'),
      }, ['replicas'], { protobuf: { replicas: 1, selector: 2 } }),
      'The current state of the scaled object. Read-only.',
    ),
  },
  undefined,
  { spec: 2, status: 3 },
);

/** The Scale kind: identity and schema of the scale sub-resource's request and response bodies. */
export const scaleKind = Object.freeze({
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  resource: 'scales',
  singular: 'scale',
  namespaced: true,
  verbs: Object.freeze(['get', 'patch', 'update'] as const),
  schema,
} satisfies KindStrategy);
