/**
 * A MatchResources (a policy's `matchConstraints`, a binding's `matchResources`) against a request, in
 * Kubernetes' order (admission/plugin/policy/matching):
 *
 * 1. namespaceSelector: a cluster-scoped request that is not a Namespace always matches; an empty selector
 *    matches; a Namespace object (create/update) is judged by its own new labels, anything else by the
 *    labels of its namespace (from the namespace lookup; a namespace that does not exist is Kubernetes'
 *    404 `namespaces "x" not found`);
 * 2. objectSelector: empty matches; else the new or the old object's labels (either; an absent object
 *    never matches);
 * 3. excludeResourceRules: any match (with its resourceNames) excludes — exclusions win;
 * 4. resourceRules: any match; none listed matches everything (a binding without rules narrows nothing).
 *    With `matchPolicy: Equivalent` (the API's default), a request that no rule names exactly matches when
 *    a rule names an equivalent resource: the same objects served under another group or version (a
 *    custom resource's other served versions, core `events` and `events.<domain>` Events). The result then
 *    carries that resource and kind (what `request.resource` / `request.kind` show).
 *
 * A selector that does not parse or a namespace that cannot be read is an error only when the rules match
 * (Kubernetes returns it after the rules, so a policy about other resources never fails a request). The
 * errors are StatusErrors (`Internal error occurred: ...`, the namespace's 404); the dispatcher turns them
 * into configuration errors of the policy or binding.
 */
import type { KubeObject } from '../../api/object.js';
import { internalError } from '../../errors/constructors.js';
import { StatusError } from '../../errors/status-error.js';
import { labelSelectorFromObject } from '../../selectors/label-selector-object.js';
import type { LabelSelector } from '../../selectors/selector.js';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../attributes.js';
import type { MatchResources, NamedRuleWithOperations } from './policy-types.js';
import { isNamespaceResource, namedRuleMatches, type RuleSubject } from './rules.js';

/** A resource equivalent to the request's one, and its kind (Kubernetes' EquivalentResourceMapper). */
export interface EquivalentResource {
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
}

/** The request as the matchers need it; one per request, shared by every policy and binding. */
export interface MatchRequest {
  readonly attributes: AdmissionAttributes;
  /** Other group versions of the same objects (may include the request's own resource). */
  readonly equivalents: readonly EquivalentResource[];
  /** The labels of the request's namespace (memoized per request); throws the namespace's 404. */
  namespaceLabels(name: string): Promise<Readonly<Record<string, string>> | undefined>;
}

export interface MatchResult {
  readonly matches: boolean;
  /** The resource and kind the rules matched (an equivalent one with matchPolicy Equivalent). */
  readonly resource: GroupVersionResource;
  readonly kind: GroupVersionKind;
}

/** A MatchResources with its selectors parsed once (per policy or binding generation). */
export interface CompiledMatchResources {
  readonly namespaceSelector: LabelSelector | StatusError;
  readonly objectSelector: LabelSelector | StatusError;
  readonly resourceRules: readonly NamedRuleWithOperations[];
  readonly excludeResourceRules: readonly NamedRuleWithOperations[];
  readonly equivalent: boolean;
}

/** A selector as Kubernetes' matcher parses it: absent is empty (everything); a bad one an internal error. */
function parseSelector(sel: MatchResources['namespaceSelector']): LabelSelector | StatusError {
  try {
    return labelSelectorFromObject(sel ?? {});
  } catch (e) {
    return internalError(e instanceof Error ? e.message : String(e));
  }
}

export function compileMatchResources(m: MatchResources): CompiledMatchResources {
  return {
    namespaceSelector: parseSelector(m.namespaceSelector),
    objectSelector: parseSelector(m.objectSelector),
    resourceRules: m.resourceRules ?? [],
    excludeResourceRules: m.excludeResourceRules ?? [],
    equivalent: (m.matchPolicy ?? 'Equivalent') === 'Equivalent',
  };
}

const NO_MATCH: MatchResult = Object.freeze({ matches: false, resource: { group: '', version: '', resource: '' }, kind: { group: '', version: '', kind: '' } });

/** The name of the namespace whose labels a namespaceSelector reads; '' for cluster-scoped requests. */
export function selectorNamespaceName(a: AdmissionAttributes): string {
  if (a.namespace !== '') return a.namespace;
  // Kubernetes' request info gives a Namespace object its own name as namespace; our attributes may not.
  return isNamespaceResource(a.resource) ? a.name : '';
}

/** Synchronous unless the selector needs the namespace's labels (a lookup, memoized per request). */
function namespaceSelectorMatches(sel: LabelSelector | StatusError, r: MatchRequest): boolean | StatusError | Promise<boolean | StatusError> {
  const a = r.attributes;
  const namespaceObject = isNamespaceResource(a.resource);
  if (a.namespace === '' && !namespaceObject) return true;
  if (sel instanceof StatusError) return sel;
  if (sel.empty) return true;
  if (namespaceObject && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) return sel.matches(a.object?.metadata.labels ?? {});
  return r.namespaceLabels(selectorNamespaceName(a)).then(
    (labels) => sel.matches(labels ?? {}),
    (e: unknown) => (e instanceof StatusError ? e : internalError(e instanceof Error ? e.message : String(e))),
  );
}

const objectLabelsMatch = (o: KubeObject | undefined, sel: LabelSelector): boolean =>
  o !== undefined && o !== null && typeof o.metadata === 'object' && o.metadata !== null && sel.matches(o.metadata.labels ?? {});

function objectSelectorMatches(sel: LabelSelector | StatusError, a: AdmissionAttributes): boolean | StatusError {
  if (sel instanceof StatusError) return sel;
  if (sel.empty) return true;
  return objectLabelsMatch(a.object, sel) || objectLabelsMatch(a.oldObject, sel);
}

/** Kubernetes' `matchesResourceRules`: the request's own resource first, then (Equivalent) its equivalents. */
function rulesMatch(rules: readonly NamedRuleWithOperations[], equivalent: boolean, r: MatchRequest): MatchResult {
  const a = r.attributes;
  for (const rule of rules) if (namedRuleMatches(rule, a)) return { matches: true, resource: a.resource, kind: a.kind };
  if (!equivalent) return NO_MATCH;
  for (const rule of rules) {
    for (const eq of r.equivalents) {
      if (sameResource(eq.resource, a.resource)) continue;
      const subject: RuleSubject = { resource: eq.resource, subresource: a.subresource, operation: a.operation, namespace: a.namespace, name: a.name };
      if (namedRuleMatches(rule, subject)) return { matches: true, resource: eq.resource, kind: eq.kind };
    }
  }
  return NO_MATCH;
}

export const sameResource = (x: GroupVersionResource, y: GroupVersionResource): boolean => x.group === y.group && x.version === y.version && x.resource === y.resource;

/**
 * Whether `m` matches the request; throws (a StatusError) only when the rules match but a selector could not
 * be judged. Synchronous unless a namespaceSelector needs the namespace's labels (the common case of no
 * selector costs no promise per policy).
 */
export function matchResources(m: CompiledMatchResources, r: MatchRequest): MatchResult | Promise<MatchResult> {
  const ns = namespaceSelectorMatches(m.namespaceSelector, r);
  return ns instanceof Promise ? ns.then((v) => decide(m, r, v)) : decide(m, r, ns);
}

function decide(m: CompiledMatchResources, r: MatchRequest, ns: boolean | StatusError): MatchResult {
  if (ns === false) return NO_MATCH;
  const obj = objectSelectorMatches(m.objectSelector, r.attributes);
  if (obj === false) return NO_MATCH;
  if (rulesMatch(m.excludeResourceRules, m.equivalent, r).matches) return NO_MATCH;
  const a = r.attributes;
  const matched = m.resourceRules.length === 0 ? { matches: true, resource: a.resource, kind: a.kind } : rulesMatch(m.resourceRules, m.equivalent, r);
  if (!matched.matches) return NO_MATCH;
  if (ns instanceof StatusError) throw ns;
  if (obj instanceof StatusError) throw obj;
  return matched;
}
