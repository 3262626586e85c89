/**
 * The param objects a binding evaluates its policy with (Kubernetes' `CollectParams`), read from the
 * param kind's watch cache through a `ParamSource`:
 *
 * | case                                                  | params                                         |
 * |-------------------------------------------------------|------------------------------------------------|
 * | the policy has no paramKind                           | one evaluation, no `params` variable           |
 * | paramKind set, the binding has no paramRef            | one evaluation with `params` null              |
 * | namespaced kind, no paramRef.namespace and a          | error `cannot use namespaced paramRef in policy |
 * | cluster-scoped request                                | binding that matches cluster-scoped resources`  |
 * | cluster-scoped kind with paramRef.namespace           | error `paramRef.namespace must not be provided  |
 * |                                                       | for a cluster-scoped \`paramKind\``             |
 * | paramRef.name                                         | that object (in paramRef.namespace, else the   |
 * |                                                       | request's namespace, for a namespaced kind)    |
 * | paramRef.selector                                     | every matching object (of that namespace), one |
 * |                                                       | evaluation each, in key order                  |
 * | none found                                            | `Deny`: error `no params found for policy      |
 * |                                                       | binding with \`Deny\` parameterNotFoundAction`; |
 * |                                                       | `Allow`: no evaluation                         |
 *
 * Errors are configuration errors of the binding (`failed to configure binding: <error>`) under the
 * policy's failurePolicy. A param object without apiVersion/kind gets the paramKind's (Kubernetes does the
 * same for typed objects), so `params.kind` always reads.
 */
import type { KubeObject } from '../../api/object.js';
import { labelSelectorFromObject } from '../../selectors/label-selector-object.js';
import type { LabelSelector } from '../../selectors/selector.js';
import type { GroupVersionKind } from '../attributes.js';
import type { CompiledParamKind } from './compiled-policy.js';
import type { ParamRef } from './policy-types.js';

/** The objects of one param kind (a served resource's watch cache). */
export interface ParamSource {
  readonly namespaced: boolean;
  /** The object, or undefined when there is none. */
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Matching objects of one namespace ('' for a cluster-scoped kind), in key order. */
  list(namespace: string, selector: LabelSelector): Promise<readonly KubeObject[]>;
}

/** The param source of a kind; undefined when no served resource has that kind (`failed to find resource referenced by paramKind`). */
export type ParamLookup = (kind: GroupVersionKind) => ParamSource | undefined;

/** A configuration error: its message follows `failed to configure binding: `. */
export class BindingConfigurationError extends Error {}

function withTypeMeta(o: KubeObject, kind: CompiledParamKind): KubeObject {
  if (typeof o.apiVersion === 'string' && o.apiVersion !== '' && typeof o.kind === 'string' && o.kind !== '') return o;
  return { ...o, apiVersion: kind.apiVersion, kind: kind.kind };
}

/** `null` stands for "evaluate with params null"; an empty list for "do not evaluate". Throws BindingConfigurationError. */
export async function collectParams(
  paramKind: CompiledParamKind | undefined,
  source: ParamSource | undefined,
  paramRef: ParamRef | undefined,
  requestNamespace: string,
): Promise<readonly (KubeObject | null)[]> {
  if (paramKind === undefined || paramRef === undefined) return [null];
  // The dispatcher has already refused a paramKind nothing serves (a configuration error of the policy).
  if (source === undefined) throw new BindingConfigurationError(`paramKind kind \`&ParamKind{APIVersion:${paramKind.apiVersion},Kind:${paramKind.kind},}\` not known`);
  let namespace = '';
  if (source.namespaced) {
    namespace = paramRef.namespace !== undefined && paramRef.namespace !== '' ? paramRef.namespace : requestNamespace;
    if (namespace === '') throw new BindingConfigurationError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (paramRef.namespace !== undefined && paramRef.namespace !== '') {
    throw new BindingConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: readonly KubeObject[];
  const name = paramRef.name ?? '';
  if (name !== '') {
    if (paramRef.selector !== undefined && paramRef.selector !== null) throw new BindingConfigurationError('paramRef.name and paramRef.selector are mutually exclusive');
    const found = await source.get(namespace, name);
    params = found === undefined ? [] : [found];
  } else if (paramRef.selector !== undefined && paramRef.selector !== null) {
    let selector: LabelSelector;
    try {
      selector = labelSelectorFromObject(paramRef.selector);
    } catch (e) {
      throw new BindingConfigurationError(e instanceof Error ? e.message : String(e));
    }
    params = await source.list(namespace, selector);
  } else {
    throw new BindingConfigurationError('one of name or selector must be provided');
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
    throw new BindingConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return params.map((o) => withTypeMeta(o, paramKind));
}
