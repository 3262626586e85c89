/** `LabelSelector` (meta/v1), as used by affinity terms, spread constraints and volume claim templates. */
import type { Schema } from '../../../../schema/schema.js';
import { atomicList, obj, requiredStr, stringList, stringMap } from './schema-builders.js';

const requirementSchema: Schema = obj(
  'A key, an operator (In, NotIn, Exists, DoesNotExist) and values.',
  {
    key: requiredStr('The label key the selector applies to.'),
    operator: requiredStr('In, NotIn, Exists or DoesNotExist.'),
    values: stringList('Values: non-empty for In and NotIn, empty for Exists and DoesNotExist.'),
  },
  ['key', 'operator'],
  { protobuf: { key: 1, operator: 2, values: 3 } },
);

export const labelSelectorSchema: Schema = obj(
  'A label query; the requirements are ANDed. An empty selector matches everything, a null one nothing.',
  {
    matchExpressions: atomicList({ ...requirementSchema, default: {} }, 'Label selector requirements.'),
    matchLabels: stringMap('Each {key: value} is the requirement "key In (value)".'),
  },
  undefined,
  { 'x-kubernetes-map-type': 'atomic', protobuf: { matchLabels: 1, matchExpressions: 2 } },
);
