/**
 * Where strategic merge patch reads a field's merge strategy: the kind's structural schema (the
 * `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` extensions Kubernetes publishes from its
 * Go struct tags), in place of upstream's reflection over the Go types.
 *
 * A field the schema does not describe (a map's values, `x-kubernetes-preserve-unknown-fields` subtrees)
 * has no strategy: its maps merge recursively and its lists are replaced whole, as for Go map values.
 */
import type { Schema } from '../../../schema/schema.js';
import { unknownError } from './errors.js';

export interface PatchMeta {
  /** The field's own schema, for looking further down; undefined where the schema says nothing. */
  readonly schema: Schema | undefined;
  /** `merge`, `replace` or '' (the default: maps merge, lists are replaced). */
  readonly strategy: string;
  /** Whether `retainKeys` is among the strategies (`merge,retainKeys` on `volumes`). */
  readonly retainKeys: boolean;
  /** The element key of a merged list of objects; '' for primitive lists and unmerged ones. */
  readonly mergeKey: string;
}

const NONE: PatchMeta = Object.freeze({ schema: undefined, strategy: '', retainKeys: false, mergeKey: '' });

/** The schema of member `key` of an object described by `parent` (a struct field or a map value). */
function childSchema(parent: Schema | undefined, key: string): Schema | undefined {
  if (parent === undefined) return undefined;
  const props = parent.properties;
  if (props !== undefined && Object.prototype.hasOwnProperty.call(props, key)) return props[key];
  const ap = parent.additionalProperties;
  return typeof ap === 'object' ? ap : undefined;
}

/** The patch metadata of member `key` of the object `parent` describes. */
export function lookupPatchMeta(parent: Schema | undefined, key: string): PatchMeta {
  const schema = childSchema(parent, key);
  if (schema === undefined) return NONE;
  const raw = schema['x-kubernetes-patch-strategy'];
  const strategies = raw === undefined || raw === '' ? [] : raw.split(',');
  const { retainKeys, strategy } = splitRetainKeys(strategies);
  return { schema, strategy, retainKeys, mergeKey: schema['x-kubernetes-patch-merge-key'] ?? '' };
}

/** The schema of a list's elements. */
export const elementSchema = (list: Schema | undefined): Schema | undefined => list?.items;

/** Upstream's `extractRetainKeysPatchStrategy`: at most two strategies, one of them `retainKeys`. */
function splitRetainKeys(strategies: readonly string[]): { retainKeys: boolean; strategy: string } {
  if (strategies.length === 0) return { retainKeys: false, strategy: '' };
  if (strategies.length === 1) {
    return strategies[0] === 'retainKeys' ? { retainKeys: true, strategy: '' } : { retainKeys: false, strategy: strategies[0]! };
  }
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return { retainKeys: true, strategy: strategies[1]! };
    if (strategies[1] === 'retainKeys') return { retainKeys: true, strategy: strategies[0]! };
  }
  throw unknownError(`unexpected patch strategy: [${strategies.join(' ')}]`);
}
