/**
 * What a list or watch selects, in the watch cache's terms: the key range (one namespace, one object when
 * the field selector pins `metadata.name`, or the whole resource) and a predicate over decoded objects
 * (label and field selectors). The store path of list applies the same predicate while it pages.
 */
import type { KubeObject } from '../../api/object.js';
import type { CacheFilter } from '../../../storage/cache/types.js';
import { exactMatch } from '../../selectors/field-selector.js';
import type { FieldSelector, LabelSelector } from '../../selectors/selector.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';

export interface Selectors {
  readonly labelSelector?: LabelSelector | undefined;
  readonly fieldSelector?: FieldSelector | undefined;
}

/** The field values a field selector sees for `obj`. */
export function fieldsOf(ctx: RegistryContext, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = {
    'metadata.name': obj.metadata.name ?? '',
    'metadata.namespace': obj.metadata.namespace ?? '',
  };
  const extra = ctx.strategy.selectableFields;
  if (extra !== undefined) for (const [k, f] of Object.entries(extra)) fields[k] = f(obj);
  return fields;
}

/**
 * The selectors' predicate over STORED objects (the cache's, or fresh from the store); undefined when they
 * select everything. Each is seen as `StoredShape.selectable` makes it (a custom resource in its served
 * version when no webhook is needed).
 */
export function objectPredicate(ctx: RegistryContext, s: Selectors): ((obj: KubeObject) => boolean) | undefined {
  const label = s.labelSelector !== undefined && !s.labelSelector.empty ? s.labelSelector : undefined;
  const field = s.fieldSelector !== undefined && !s.fieldSelector.empty ? s.fieldSelector : undefined;
  if (label === undefined && field === undefined) return undefined;
  const view = ctx.shape.selectable;
  return (stored) => {
    const obj = view(stored);
    return (label === undefined || label.matches(obj.metadata.labels)) && (field === undefined || field.matches(fieldsOf(ctx, obj)));
  };
}

/**
 * The cache filter of a request in `namespace` ('' for all namespaces or cluster-scoped kinds). A field
 * selector `metadata.name=x` narrows it to one key when the namespace is known (kubectl's watch of one
 * object); the predicate still checks every selector.
 */
export function objectFilter(ctx: RegistryContext, namespace: string, s: Selectors): CacheFilter<KubeObject> {
  const ns = requestNamespace(ctx, namespace);
  const keyPrefix = ctx.keys.collectionPrefix(ns);
  const matches = objectPredicate(ctx, s);
  const name = s.fieldSelector === undefined ? undefined : exactMatch(s.fieldSelector, 'metadata.name');
  const key = name !== undefined && (ns !== '' || !ctx.strategy.namespaced) ? keyOf(ctx, ns, name) : undefined;
  return { keyPrefix, ...(key === undefined ? {} : { key }), ...(matches === undefined ? {} : { matches }) };
}

/** The key of `name`, or undefined for a name no key can have (the predicate then matches nothing). */
function keyOf(ctx: RegistryContext, namespace: string, name: string): string | undefined {
  try {
    return ctx.keys.objectKey(namespace, name);
  } catch {
    return undefined;
  }
}
