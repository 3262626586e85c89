/**
 * Which fields an endpoint's writes can own (Kubernetes' reset fields, `GetResetFields` of the strategies)
 * and which fields nobody ever owns (Kubernetes' stripMetaManager).
 *
 * - `all`: every field (kinds without a status sub-resource);
 * - `no-status`: the main resource of a kind with a status sub-resource: `status` is reset by the strategy,
 *   so it is neither owned nor a conflict there;
 * - `status-only`: the `/status` sub-resource, which changes nothing but `status`.
 */
import { FieldSet } from './fieldpath/set.js';

export type FieldScope = 'all' | 'no-status' | 'status-only';

const STATUS = FieldSet.of(['f:status']);

export function keepInScope(scope: FieldScope): (s: FieldSet) => FieldSet {
  if (scope === 'no-status') return (s) => s.recursiveDifference(STATUS);
  if (scope === 'status-only') return (s) => s.filterPrefix('f:status');
  return (s) => s;
}

/** Fields the server owns: apiVersion, kind, and these of metadata (plus `metadata` itself). */
const STRIPPED = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['f:metadata', `f:${f}`]),
);

/** `s` without the server-owned fields (only those exact paths: `metadata.labels` stays). */
export function stripServerFields(s: FieldSet): FieldSet {
  return s.difference(STRIPPED);
}
