/** Schemas of the pod's scheduling constraints: affinity, tolerations and topology spread constraints. */
import type { Schema } from '../../../../schema/schema.js';
import { labelSelectorSchema } from './label-selector-schema.js';
import { atomicList, int32, int64, keyedList, obj, ptr, requiredStr, str, stringList, struct } from './schema-builders.js';

const nodeSelectorRequirementSchema: Schema = obj(
  'A key, an operator (In, NotIn, Exists, DoesNotExist, Gt, Lt) and values.',
  {
    key: requiredStr('The label key the selector applies to.'),
    operator: requiredStr('In, NotIn, Exists, DoesNotExist, Gt or Lt.'),
    values: stringList('Values: non-empty for In and NotIn, empty for Exists and DoesNotExist, one integer for Gt and Lt.'),
  },
  ['key', 'operator'],
  { protobuf: { key: 1, operator: 2, values: 3 } },
);
const requirements = (what: string): Schema => atomicList({ ...nodeSelectorRequirementSchema, default: {} }, `Requirements by node ${what}.`);

const nodeSelectorTermSchema: Schema = obj(
  'Requirements ANDed together; a null or empty term matches no node.',
  { matchExpressions: requirements('labels'), matchFields: requirements('fields') },
  undefined,
  { 'x-kubernetes-map-type': 'atomic', protobuf: { matchExpressions: 1, matchFields: 2 } },
);

const nodeSelectorSchema: Schema = obj(
  'Node selector terms ORed together.',
  { nodeSelectorTerms: atomicList({ ...nodeSelectorTermSchema, default: {} }, 'Required. The terms, ORed.') },
  ['nodeSelectorTerms'],
  { 'x-kubernetes-map-type': 'atomic', protobuf: { nodeSelectorTerms: 1 } },
);

const nodeAffinitySchema: Schema = obj('Node affinity scheduling rules.', {
  preferredDuringSchedulingIgnoredDuringExecution: atomicList(
    {
      ...obj(
        'A weighted node selector term.',
        { preference: struct(nodeSelectorTermSchema, 'The node selector term.'), weight: int32('Weight in the range 1-100.', { default: 0 }) },
        ['weight', 'preference'],
        { protobuf: { weight: 1, preference: 2 } },
      ),
      default: {},
    },
    'Preferred terms; the node with the greatest sum of matching weights is preferred.',
  ),
  requiredDuringSchedulingIgnoredDuringExecution: nodeSelectorSchema,
}, undefined, { protobuf: { requiredDuringSchedulingIgnoredDuringExecution: ptr(1), preferredDuringSchedulingIgnoredDuringExecution: 2 } });

const podAffinityTermSchema: Schema = obj(
  'Pods (matching the selector in the namespaces) whose topology domain this pod must share, or avoid.',
  {
    labelSelector: labelSelectorSchema,
    matchLabelKeys: stringList('Label keys whose values, taken from this pod, are added to labelSelector with In.'),
    mismatchLabelKeys: stringList('Label keys whose values, taken from this pod, are added to labelSelector with NotIn.'),
    namespaceSelector: labelSelectorSchema,
    namespaces: stringList("Namespaces the term applies to; with an empty namespaceSelector, the pod's namespace."),
    topologyKey: requiredStr('Node label whose value defines the topology domain; must not be empty.'),
  },
  ['topologyKey'],
  { protobuf: { labelSelector: ptr(1), namespaces: 2, topologyKey: 3, namespaceSelector: ptr(4), matchLabelKeys: 5, mismatchLabelKeys: 6 } },
);

const weightedPodAffinityTermSchema: Schema = obj(
  'A weighted pod affinity term.',
  { podAffinityTerm: struct(podAffinityTermSchema, 'The pod affinity term.'), weight: int32('Weight in the range 1-100.', { default: 0 }) },
  ['weight', 'podAffinityTerm'],
  { protobuf: { weight: 1, podAffinityTerm: 2 } },
);

const podAffinityRules = (description: string, verb: string): Schema =>
  obj(description, {
    preferredDuringSchedulingIgnoredDuringExecution: atomicList({ ...weightedPodAffinityTermSchema, default: {} }, `Preferred terms to ${verb}.`),
    requiredDuringSchedulingIgnoredDuringExecution: atomicList({ ...podAffinityTermSchema, default: {} }, `Required terms to ${verb}.`),
  }, undefined, { protobuf: { requiredDuringSchedulingIgnoredDuringExecution: 1, preferredDuringSchedulingIgnoredDuringExecution: 2 } });

export const affinitySchema: Schema = obj('Scheduling constraints of the pod.', {
  nodeAffinity: nodeAffinitySchema,
  podAffinity: podAffinityRules('Co-locate with other pods.', 'satisfy'),
  podAntiAffinity: podAffinityRules('Keep away from other pods.', 'avoid'),
}, undefined, { protobuf: { nodeAffinity: ptr(1), podAffinity: ptr(2), podAntiAffinity: ptr(3) } });

export const tolerationSchema: Schema = obj('Lets the pod tolerate taints matching <key,value,effect> with the operator.', {
  effect: str('NoSchedule, PreferNoSchedule or NoExecute; empty matches all effects.'),
  key: str('Taint key; empty with operator Exists matches all taints.'),
  operator: str('Exists or Equal; defaults to Equal.'),
  tolerationSeconds: int64('With NoExecute: how long the pod stays bound once tainted.'),
  value: str('Taint value to match; empty with Exists.'),
}, undefined, { protobuf: { key: 1, operator: 2, value: 3, effect: 4, tolerationSeconds: ptr(5) } });

export const topologySpreadConstraintSchema: Schema = obj(
  'How matching pods spread across a topology.',
  {
    labelSelector: labelSelectorSchema,
    matchLabelKeys: stringList("Pod label keys whose values are taken from the incoming pod to select the pods to count."),
    maxSkew: int32('Greatest permitted difference of matching pods between domains; at least 1.', { default: 0 }),
    minDomains: int32('Minimum number of eligible domains (only with DoNotSchedule).'),
    nodeAffinityPolicy: str('Honor or Ignore: whether nodeAffinity/nodeSelector count when computing skew.'),
    nodeTaintsPolicy: str('Honor or Ignore: whether node taints count when computing skew.'),
    topologyKey: requiredStr('Node label key defining the topology domains.'),
    whenUnsatisfiable: requiredStr('DoNotSchedule or ScheduleAnyway.'),
  },
  ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
  {
    protobuf: {
      maxSkew: 1, topologyKey: 2, whenUnsatisfiable: 3, labelSelector: ptr(4), minDomains: ptr(5), nodeAffinityPolicy: ptr(6),
      nodeTaintsPolicy: ptr(7), matchLabelKeys: 8,
    },
  },
);

export const tolerationListSchema: Schema = atomicList({ ...tolerationSchema, default: {} }, "The pod's tolerations.");

export const topologySpreadConstraintListSchema: Schema = keyedList(
  topologySpreadConstraintSchema,
  'How pods spread across topology domains; all constraints are ANDed.',
  ['topologyKey', 'whenUnsatisfiable'],
  'merge',
  'topologyKey',
);
