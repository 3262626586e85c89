/**
 * One request against the candidate policies (Kubernetes' validating `dispatcher.Dispatch`):
 *
 * for each policy (name order): matchConstraints (an error, a missing matchConstraints or a paramKind
 * nothing serves is a configuration error of the policy) -> for each binding (name order): matchResources
 * (error: configuration error of the binding) -> params (error: configuration error of the binding) ->
 * the namespace object (a namespace that does not exist ends the request with its 404, as Kubernetes) ->
 * one evaluation per param -> each deny decision goes through the binding's validationActions:
 *
 * | action | effect                                                                                      |
 * |--------|---------------------------------------------------------------------------------------------|
 * | Deny   | the request is refused (the first denial's message and reason answer it)                    |
 * | Warn   | warning `Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <msg>`   |
 * | Audit  | audit annotation `validation.policy.admission.<domain>/validation_failure` =                |
 * |        | `[{"message","policy","binding","expressionIndex","validationActions"}]` (Go's JSON)        |
 *
 * Configuration errors deny under failurePolicy Fail whatever the actions (`failed to configure policy: ...`
 * / `failed to configure binding: ...`), and are ignored under Ignore. An auditAnnotation that errs denies.
 * Published auditAnnotations are collected per policy across its bindings and params: each value cut to
 * 10 KiB, distinct values of one key joined with `, `, published as `<policy>/<key>`.
 *
 * The answer: `<resource>.<group> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding
 * '<b>' denied request: <message>` (`... '<p>' denied request: ...` for an error of the policy itself),
 * reason the validation's (Invalid by default) with its code (Forbidden 403, Unauthorized 401,
 * RequestEntityTooLarge 413, Invalid and anything else 422), `details` {name, group, kind: resource,
 * causes: [{message}]}. The name is the request's, else the object's name or generateName, else `Unknown`.
 */
import type { KubeObject } from '../../api/object.js';
import type { AdmissionInput } from '../../cel/environment/admission.js';
import { CelAuthorizer, CelGroupCheck, CelResourceCheck, type AuthorizerLike } from '../../cel/library/authz.js';
import { notFound, qualifiedResource } from '../../errors/constructors.js';
import { StatusError } from '../../errors/status-error.js';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../attributes.js';
import { admissionRequest } from './admission-request.js';
import { cachingAuthorizer } from './caching-authorizer.js';
import { gvkString, type CompiledBinding, type CompiledPolicy } from './compiled-policy.js';
import { matchResources, sameResource, type EquivalentResource, type MatchRequest, type MatchResult } from './match-resources.js';
import { collectParams, type ParamLookup } from './params.js';
import type { PolicyHook } from './policy-index.js';
import { validatePolicy, type PolicyDecision } from './validator.js';

/** Kubernetes' cut of an auditAnnotations value. */
export const MAX_AUDIT_ANNOTATION_VALUE_LENGTH = 10 * 1024;

export interface DispatchContext {
  readonly params: ParamLookup;
  /** The Namespace object of a name, or undefined when there is none. */
  readonly namespace: (name: string) => Promise<KubeObject | undefined>;
  readonly authorizer: AuthorizerLike;
  /** `validation.policy.admission.<domain>/validation_failure`. */
  readonly validationFailureKey: string;
  readonly equivalents: readonly EquivalentResource[];
  /** The object and old object as another version of the same resource (matchPolicy Equivalent). */
  readonly convert?: (object: KubeObject, to: GroupVersionKind) => KubeObject | Promise<KubeObject>;
  /** kube's `apiserver_validating_admission_policy_check_*` (see PolicyCheckMetrics). */
  readonly metrics?: PolicyCheckMetrics;
}

/** kube's `error_type` of a policy check. */
export type PolicyErrorType = 'no_error' | 'compile_error' | 'invalid_error' | 'out_of_budget';

/**
 * Policy check outcomes, counted as Kubernetes counts them: each deny decision once per validationAction
 * of its binding (`deny`, `warn`, `audit`), an erring auditAnnotation as `deny`, and an admit decision only
 * when it came from an error ignored under failurePolicy Ignore (`allow`). `seconds` is the evaluation of
 * the binding for that param (Kubernetes times each expression; here one evaluation covers them all).
 */
export interface PolicyCheckMetrics {
  check(policy: string, binding: string, errorType: PolicyErrorType, action: 'allow' | 'deny' | 'warn' | 'audit', seconds: number): void;
}

/** Kubernetes' classification of a decision's error by its message. */
function errorTypeOf(d: PolicyDecision): PolicyErrorType {
  if (d.evaluation !== 'error') return 'no_error';
  if (d.message.includes('compilation error')) return 'compile_error';
  if (d.message.includes('running out of cost budget')) return 'out_of_budget';
  return 'invalid_error';
}

interface Denial {
  readonly policy: string;
  readonly binding?: string;
  readonly decision: PolicyDecision;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Go's encoding/json string escaping (HTML characters and line separators as \u escapes). */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The first `max` bytes of `s` as UTF-8 (a cut character becomes U+FFFD, as Go's audit encoding shows it). */
function truncateUtf8(s: string, max: number): string {
  if (s.length <= max / 3) return s;
  const b = Buffer.from(s, 'utf8');
  return b.length <= max ? s : b.subarray(0, max).toString('utf8');
}

/** `NewNamespaceObject`: what expressions see of a namespace (managedFields, owners and the like left out). */
function namespaceObjectOf(ns: KubeObject): Record<string, unknown> {
  const m = ns.metadata;
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'finalizers'] as const) {
    if (m[k] !== undefined) metadata[k === 'uid' ? 'UID' : k] = m[k];
  }
  return { metadata, spec: ns.spec ?? {}, status: ns.status ?? {} };
}

function reasonCode(reason: string): { reason: 'Forbidden' | 'Unauthorized' | 'RequestEntityTooLarge' | 'Invalid'; code: number } {
  switch (reason) {
    case 'Forbidden':
      return { reason, code: 403 };
    case 'Unauthorized':
      return { reason, code: 401 };
    case 'RequestEntityTooLarge':
      return { reason, code: 413 };
    default:
      // Only the four reasons pass validation; anything else keeps its name with Invalid's code, as Kubernetes.
      return { reason: 'Invalid', code: 422 };
  }
}

export function objectName(a: AdmissionAttributes): string {
  if (a.name !== '') return a.name;
  const m = a.object?.metadata;
  return m?.name || m?.generateName || 'Unknown';
}

function denialError(a: AdmissionAttributes, d: Denial): StatusError {
  const text =
    d.binding === undefined
      ? `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.decision.message}`
      : `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.decision.message}`;
  const name = objectName(a);
  const gr = { group: a.resource.group, resource: a.resource.resource };
  const { reason, code } = reasonCode(d.decision.reason === '' ? 'Invalid' : d.decision.reason);
  const status = new StatusError(reason, `${qualifiedResource(gr)} ${JSON.stringify(name)} is forbidden: ${text}`, { name, group: gr.group, kind: gr.resource, causes: [{ message: text }] }, code);
  return status;
}

/** What a binding without params evaluates with: one round, `params` null. */
const NO_PARAMS: readonly (KubeObject | null)[] = Object.freeze([null]);

const sameKind = (x: GroupVersionKind, y: GroupVersionKind): boolean => x.group === y.group && x.version === y.version && x.kind === y.kind;

/** Runs the candidate hooks for a request; throws the denial (or the namespace's 404). */
export async function dispatch(a: AdmissionAttributes, hooks: readonly PolicyHook[], ctx: DispatchContext): Promise<void> {
  const denials: Denial[] = [];
  const metrics = ctx.metrics;
  const namespaces = new Map<string, Promise<KubeObject | undefined>>();
  const namespaceOf = (name: string): Promise<KubeObject | undefined> => {
    let p = namespaces.get(name);
    if (p === undefined) namespaces.set(name, (p = ctx.namespace(name)));
    return p;
  };
  const request: MatchRequest = {
    attributes: a,
    equivalents: ctx.equivalents,
    async namespaceLabels(name) {
      const ns = await namespaceOf(name);
      if (ns === undefined) throw notFound({ group: '', resource: 'namespaces' }, name);
      return ns.metadata.labels;
    },
  };
  const authorizer = new CelAuthorizer(cachingAuthorizer(ctx.authorizer), a.userInfo ?? { name: '', uid: '', groups: [] });
  const requestResourceAuthorizer = new CelResourceCheck(new CelGroupCheck(authorizer, a.resource.group), {
    resource: a.resource.resource,
    subresource: a.subresource,
    namespace: a.namespace,
    name: a.name,
  });
  const warned = new Set<string>();
  const annotated = new Map<string, string>();
  // Kubernetes' attributes refuse to overwrite an audit annotation with another value: the first stays.
  const annotate = (key: string, value: string): void => {
    if (annotated.has(key)) return;
    annotated.set(key, value);
    a.addAuditAnnotation(key, value);
  };
  const versioned = new Map<string, Promise<{ object: KubeObject | undefined; oldObject: KubeObject | undefined }>>();
  const objectsAs = (kind: GroupVersionKind): Promise<{ object: KubeObject | undefined; oldObject: KubeObject | undefined }> => {
    const key = `${kind.group}/${kind.version}/${kind.kind}`;
    let p = versioned.get(key);
    if (p === undefined) {
      const same = kind.group === a.kind.group && kind.version === a.kind.version && kind.kind === a.kind.kind;
      const convert = ctx.convert;
      p =
        same || convert === undefined
          ? Promise.resolve({ object: a.object, oldObject: a.oldObject })
          : (async () => ({
              object: a.object === undefined ? undefined : await convert(a.object, kind),
              oldObject: a.oldObject === undefined ? undefined : await convert(a.oldObject, kind),
            }))();
      versioned.set(key, p);
    }
    return p;
  };

  // Built once per request and shared by every policy that reads them (the same JSON for the same
  // matched resource and kind; the same namespace object), which keeps per-policy work to the expressions.
  const requests = new Map<string, Record<string, unknown>>();
  const requestFor = (resource: GroupVersionResource, kind: GroupVersionKind): Record<string, unknown> => {
    const key = `${resource.group}/${resource.version}/${resource.resource}/${kind.kind}`;
    let r = requests.get(key);
    if (r === undefined) requests.set(key, (r = admissionRequest(a, resource, kind)));
    return r;
  };
  const namespaceObjects = new Map<string, Record<string, unknown>>();
  const namespaceObjectFor = (name: string, ns: KubeObject): Record<string, unknown> => {
    let o = namespaceObjects.get(name);
    if (o === undefined) namespaceObjects.set(name, (o = namespaceObjectOf(ns)));
    return o;
  };

  const configError = (p: CompiledPolicy, b: CompiledBinding | undefined, err: unknown): void => {
    if (p.failurePolicy === 'Ignore') return;
    const text =
      p.failurePolicy === 'Fail'
        ? `${b === undefined ? 'failed to configure policy' : 'failed to configure binding'}: ${message(err)}`
        : `unrecognized failure policy: '${p.failurePolicy}'`;
    denials.push({ policy: p.name, ...(b === undefined ? {} : { binding: b.name }), decision: { action: 'deny', evaluation: 'error', message: text, reason: '' } });
  };

  for (const hook of hooks) {
    const p = hook.policy;
    let matched: MatchResult;
    try {
      if (p.matchConstraints === undefined) throw new Error('policy contained no match constraints, a required field');
      const m = matchResources(p.matchConstraints, request);
      matched = m instanceof Promise ? await m : m;
    } catch (err) {
      configError(p, undefined, err);
      continue;
    }
    if (!matched.matches) continue;
    const paramSource = p.paramKind === undefined ? undefined : ctx.params(p.paramKind.gvk);
    if (p.paramKind !== undefined && paramSource === undefined) {
      configError(p, undefined, new Error(`failed to find resource referenced by paramKind: '${gvkString(p.paramKind.gvk)}'`));
      continue;
    }
    // Made on first use: most policies publish no audit annotation.
    let collected: Map<string, string[]> | undefined;
    for (const b of hook.bindings) {
      try {
        if (b.matchResources !== undefined) {
          const m = matchResources(b.matchResources, request);
          if (!(m instanceof Promise ? await m : m).matches) continue;
        }
      } catch (err) {
        configError(p, b, err);
        continue;
      }
      let params: readonly (KubeObject | null)[];
      try {
        params = p.paramKind === undefined || b.paramRef === undefined ? NO_PARAMS : await collectParams(p.paramKind, paramSource, b.paramRef, a.namespace);
      } catch (err) {
        configError(p, b, err);
        continue;
      }
      // The namespace object (none for cluster-scoped requests and for a Namespace itself). Kubernetes
      // reads it for every matching binding, params or not, and a missing namespace ends the request.
      const isNamespace = a.kind.group === '' && a.kind.version === 'v1' && a.kind.kind === 'Namespace';
      const nsName = isNamespace ? '' : a.namespace;
      let namespaceObject: Record<string, unknown> | null = null;
      if (nsName !== '') {
        namespaceObject = namespaceObjects.get(nsName) ?? null;
        if (namespaceObject === null) {
          const ns = await namespaceOf(nsName);
          if (ns === undefined) throw notFound({ group: '', resource: 'namespaces' }, nsName);
          namespaceObject = namespaceObjectFor(nsName, ns);
        }
      }
      if (params.length === 0) continue;
      let objects: { object: KubeObject | undefined; oldObject: KubeObject | undefined };
      try {
        objects = sameKind(matched.kind, a.kind) ? { object: a.object, oldObject: a.oldObject } : await objectsAs(matched.kind);
      } catch (err) {
        configError(p, undefined, new Error(`failed to convert object version: ${message(err)}`));
        continue;
      }
      const base: AdmissionInput = {
        object: objects.object ?? null,
        oldObject: objects.oldObject ?? null,
        request: requestFor(matched.resource, matched.kind),
        namespaceObject,
        authorizer,
        requestResourceAuthorizer,
      };
      for (const param of params) {
        const began = metrics === undefined ? 0 : performance.now();
        const result = validatePolicy(p, p.paramKind === undefined ? base : { ...base, params: param });
        const seconds = metrics === undefined ? 0 : (performance.now() - began) / 1000;
        for (let i = 0; i < result.decisions.length; i++) {
          const d = result.decisions[i]!;
          if (d.action !== 'deny') {
            if (metrics !== undefined && d.evaluation === 'error') metrics.check(p.name, b.name, errorTypeOf(d), 'allow', seconds);
            continue;
          }
          for (const action of b.validationActions) {
            metrics?.check(p.name, b.name, errorTypeOf(d), action === 'Deny' ? 'deny' : action === 'Warn' ? 'warn' : 'audit', seconds);
            if (action === 'Deny') denials.push({ policy: p.name, binding: b.name, decision: d });
            else if (action === 'Warn') {
              const text = `Validation failed for ValidatingAdmissionPolicy '${p.name}' with binding '${b.name}': ${d.message}`;
              if (!warned.has(text)) {
                warned.add(text);
                a.addWarning(text);
              }
            } else if (action === 'Audit') {
              annotate(
                ctx.validationFailureKey,
                goJson([{ message: d.message, policy: b.policyName, binding: b.name, expressionIndex: i, validationActions: b.validationActions }]),
              );
            }
          }
        }
        for (const r of result.auditAnnotations) {
          if (r.action === 'publish') {
            const value = truncateUtf8(r.value, MAX_AUDIT_ANNOTATION_VALUE_LENGTH);
            collected ??= new Map();
            const values = collected.get(r.key);
            if (values === undefined) collected.set(r.key, [value]);
            else if (!values.includes(value)) values.push(value);
          } else if (r.action === 'error') {
            const decision: PolicyDecision = { action: 'deny', evaluation: 'error', message: r.error, reason: '' };
            metrics?.check(p.name, b.name, errorTypeOf(decision), 'deny', seconds);
            denials.push({ policy: p.name, binding: b.name, decision });
          }
        }
      }
    }
    if (collected !== undefined) for (const [key, values] of collected) annotate(`${p.name}/${key}`, values.join(', '));
  }
  if (denials.length > 0) throw denialError(a, denials[0]!);
}

/** The (group, resource) pairs whose buckets hold a request's candidates: its own and its equivalents'. */
export function candidateResources(resource: GroupVersionResource, equivalents: readonly EquivalentResource[]): { group: string; resource: string }[] {
  const out = [{ group: resource.group, resource: resource.resource }];
  for (const e of equivalents) if (!sameResource(e.resource, resource)) out.push({ group: e.resource.group, resource: e.resource.resource });
  return out;
}
