/**
 * The ValidatingAdmissionPolicy admission plugin (validating phase; Kubernetes' plugin of that name):
 * every write (CREATE, UPDATE, DELETE, CONNECT, sub-resources, dry runs) is checked against the policies
 * bound to it, as dispatcher.ts describes. What it reads, all fed by the integrator from watch caches:
 *
 * | option      | what                                                                                    |
 * |-------------|-----------------------------------------------------------------------------------------|
 * | policies    | ObjectSource of ValidatingAdmissionPolicy objects (v1 JSON)                             |
 * | bindings    | ObjectSource of ValidatingAdmissionPolicyBinding objects                                |
 * | params      | ParamLookup: the served resource of a paramKind (get / list from its watch cache)       |
 * | namespaces  | the Namespace object of a name (namespaceSelector, `namespaceObject`)                   |
 * | authorizer  | the server's authorizer (the `authorizer` variable; checks cached per request)          |
 * | naming      | the group domain (exempt kinds, the validation_failure audit key)                       |
 *
 * Never evaluated (as Kubernetes): requests about the admissionregistration configuration kinds
 * (ValidatingAdmissionPolicy, its binding, webhook configurations, mutating policies, in either group
 * name), and the review APIs (TokenReview, SelfSubjectReview, the SubjectAccessReviews,
 * SelfSubjectRulesReview). `start()` follows the sources; until both have synced, requests wait (at most
 * `readyTimeoutMs`, then 403 `not yet ready to handle request`).
 *
 * matchPolicy Equivalent: a request also matches rules that name an equivalent resource (the same
 * objects served under another group or version), given by `equivalentResources`; then `request.kind` and
 * `request.resource` name the matched one and `convert` turns the objects into its version. Without
 * `equivalentResources` every resource is only equivalent to itself (one version per resource), and
 * Equivalent behaves as Exact.
 */
import type { AuthorizerLike } from '../../cel/library/authz.js';
import { forbidden } from '../../errors/constructors.js';
import type { KubeObject } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from '../attributes.js';
import type { AdmissionPlugin } from '../plugin.js';
import { candidateResources, dispatch, objectName, type PolicyCheckMetrics } from './dispatcher.js';
import type { EquivalentResource } from './match-resources.js';
import type { ParamLookup } from './params.js';
import { startPolicySource, type ObjectSource, type PolicySource } from './policy-source.js';
import type { PolicyIndex } from './policy-index.js';

export const POLICY_ADMISSION_PLUGIN_NAME = 'ValidatingAdmissionPolicy';

export interface PolicyAdmissionOptions {
  readonly policies: ObjectSource;
  readonly bindings: ObjectSource;
  readonly params: ParamLookup;
  /** The Namespace object of a name; undefined when it does not exist (read the cache, then the store). */
  readonly namespaces: (name: string) => Promise<KubeObject | undefined>;
  readonly authorizer: AuthorizerLike;
  readonly naming: Naming;
  /** Other group versions serving the same objects as `resource` (matchPolicy Equivalent). Default: none. */
  readonly equivalentResources?: (resource: GroupVersionResource, subresource: string) => readonly EquivalentResource[];
  /** Converts an object to an equivalent kind's version; default: objects are passed as they are. */
  readonly convert?: (object: KubeObject, to: GroupVersionKind) => KubeObject | Promise<KubeObject>;
  /** How long a request waits for the first sync. Default 10 s (Kubernetes' wait). */
  readonly readyTimeoutMs?: number;
  /** Wait before following a source again after its watch failed. Default 1 s. */
  readonly retryMs?: number;
  readonly onError?: (err: unknown) => void;
  /** kube's policy check metrics (dispatcher.ts); default none. */
  readonly metrics?: PolicyCheckMetrics;
  /** Called after each new set of policies is in force (tests, metrics). */
  readonly onIndexed?: (index: PolicyIndex) => void;
}

export interface PolicyAdmission extends AdmissionPlugin {
  readonly name: typeof POLICY_ADMISSION_PLUGIN_NAME;
  validate(attributes: AdmissionAttributes): Promise<void>;
  /** Starts following the sources (idempotent). */
  start(): void;
  /** Resolves once the policies and bindings present at start are in force. */
  ready(): Promise<void>;
  /** Stops following; later requests wait as before the first sync. */
  stop(): Promise<void>;
  /** The policies in force now (undefined before the first sync). */
  readonly index: PolicyIndex | undefined;
}

const CONFIGURATION_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);

const REVIEW_RESOURCES: readonly (readonly [string, string])[] = [
  ['authentication', 'selfsubjectreviews'],
  ['authentication', 'tokenreviews'],
  ['authorization', 'localsubjectaccessreviews'],
  ['authorization', 'selfsubjectaccessreviews'],
  ['authorization', 'selfsubjectrulesreviews'],
  ['authorization', 'subjectaccessreviews'],
];

export function policyAdmission(o: PolicyAdmissionOptions): PolicyAdmission {
  const configurationGroups = new Set([o.naming.group('admissionregistration'), 'admissionregistration.k8s.io']);
  const excluded = new Set(REVIEW_RESOURCES.flatMap(([prefix, resource]) => [`${o.naming.group(prefix)}/${resource}`, `${prefix}.k8s.io/${resource}`]));
  const validationFailureKey = `validation.policy.admission.${o.naming.domain}/validation_failure`;
  let source: PolicySource | undefined;
  let started: Promise<void> | undefined;

  const isExempt = (a: AdmissionAttributes): boolean =>
    (configurationGroups.has(a.kind.group) && CONFIGURATION_KINDS.has(a.kind.kind)) || excluded.has(`${a.resource.group}/${a.resource.resource}`);

  const waitReady = async (a: AdmissionAttributes): Promise<PolicyIndex> => {
    const current = source?.index;
    if (current !== undefined) return current;
    const timeoutMs = o.readyTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([started ?? new Promise<void>(() => undefined), timedOut]);
    clearTimeout(timer);
    const index = source?.index;
    if (index === undefined) throw forbidden({ group: a.resource.group, resource: a.resource.resource }, objectName(a), 'not yet ready to handle request');
    return index;
  };

  const plugin: PolicyAdmission = {
    name: POLICY_ADMISSION_PLUGIN_NAME,
    get index() {
      return source?.index;
    },
    async validate(a) {
      if (isExempt(a)) return;
      const index = await waitReady(a);
      if (index.hooks.length === 0) return;
      const equivalents = o.equivalentResources?.(a.resource, a.subresource) ?? [];
      const hooks = index.candidates(candidateResources(a.resource, equivalents));
      if (hooks.length === 0) return;
      await dispatch(a, hooks, {
        params: o.params,
        namespace: o.namespaces,
        authorizer: o.authorizer,
        validationFailureKey,
        equivalents,
        ...(o.convert === undefined ? {} : { convert: o.convert }),
        ...(o.metrics === undefined ? {} : { metrics: o.metrics }),
      });
    },
    start() {
      if (source !== undefined) return;
      source = startPolicySource({
        policies: o.policies,
        bindings: o.bindings,
        ...(o.retryMs === undefined ? {} : { retryMs: o.retryMs }),
        ...(o.onError === undefined ? {} : { onError: o.onError }),
        ...(o.onIndexed === undefined ? {} : { onIndexed: o.onIndexed }),
      });
      started = source.ready;
    },
    ready() {
      if (started === undefined) plugin.start();
      return started!;
    },
    async stop() {
      const s = source;
      source = undefined;
      started = undefined;
      await s?.stop();
    },
  };
  return plugin;
}
