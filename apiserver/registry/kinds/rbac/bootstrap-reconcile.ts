/**
 * Reconciles the bootstrap policy (bootstrap-policy.ts) with what is stored, on every start, as
 * kube-apiserver's RBAC post-start hook does in its additive mode:
 *
 * - a missing role or binding is created;
 * - an existing one whose autoupdate annotation is not `"false"` gets what it lacks: the expected labels
 *   and annotations whose keys it does not have (its own values win), the atomic rules of the expected
 *   rules that its rules do not cover (policy-rule-covers.ts), the missing aggregation selectors, the
 *   missing subjects; an aggregationRule the policy does not expect is removed. Nothing it has beyond the
 *   policy is taken away;
 * - a binding whose roleRef differs (immutable) is deleted and created again;
 * - one annotated `autoupdate: "false"` is left exactly as it is (reported as skipped).
 *
 * Several replicas may run this at the same moment: every write is conditional on the resourceVersion
 * (or absence) it was computed from, and a Conflict, AlreadyExists or NotFound starts that object over
 * from a fresh read, up to `attempts` times. Reads go to the store, never the cache.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../api/object.js';
import type { ServedResources } from '../../served-resources.js';
import { StatusError } from '../../../errors/status-error.js';
import type { Naming } from '../../../naming/naming.js';
import type { GenericRegistry } from '../../generic/generic-registry.js';
import { bootstrapPolicy, type BootstrapPolicy } from './bootstrap-policy.js';
import type { PolicyRule } from '../../../authorization/rbac-types.js';
import { uncoveredRules, type SubRule } from '../../../authorization/rule-coverage.js';
import { autoupdateAnnotation, rbacGroup } from './rbac-names.js';

export interface ReconcileOptions {
  /** Default: the bootstrap policy under `naming`. */
  readonly policy?: BootstrapPolicy;
  /** Tries per object before its conflict is thrown. Default 10. */
  readonly attempts?: number;
  /** The managedFields manager of the writes. Default `platform-apiserver`. */
  readonly fieldManager?: string;
}

/** What happened, as `<resource>/<name>` entries. */
export interface ReconcileReport {
  readonly created: string[];
  readonly updated: string[];
  readonly recreated: string[];
  /** Protected (`autoupdate: "false"`) objects that differ from the policy. */
  readonly skipped: string[];
}

type Outcome = 'none' | 'created' | 'updated' | 'recreated' | 'skipped';

/** The change an existing object needs; `undefined` when it matches the policy. */
type Plan = { readonly kind: 'update'; readonly object: KubeObject } | { readonly kind: 'recreate'; readonly object: KubeObject } | undefined;

const RETRYABLE = new Set(['Conflict', 'AlreadyExists', 'NotFound']);
const retryable = (err: unknown): boolean => err instanceof StatusError && RETRYABLE.has(err.reason);

/** `merge(expected, existing)`: every key of both, the existing value winning. */
function mergeMaps(expected: Record<string, string> | undefined, existing: Record<string, string> | undefined): Record<string, string> | undefined {
  const merged = { ...(expected ?? {}), ...(existing ?? {}) };
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/** A copy of `existing` with the expected labels and annotations merged in; `changed` when it gained any. */
function withMetadata(existing: KubeObject, expected: KubeObject): { object: KubeObject; changed: boolean } {
  const object = structuredClone(existing);
  const labels = mergeMaps(expected.metadata.labels, existing.metadata.labels);
  const annotations = mergeMaps(expected.metadata.annotations, existing.metadata.annotations);
  if (labels !== undefined) object.metadata.labels = labels;
  if (annotations !== undefined) object.metadata.annotations = annotations;
  const changed = !isDeepStrictEqual(labels, existing.metadata.labels ?? undefined) || !isDeepStrictEqual(annotations, existing.metadata.annotations ?? undefined);
  return { object, changed };
}

const rulesOf = (obj: KubeObject): PolicyRule[] => (Array.isArray(obj.rules) ? (obj.rules as PolicyRule[]) : []);
const selectorsOf = (obj: KubeObject): unknown[] => {
  const rule = obj.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined | null;
  return rule === undefined || rule === null ? [] : (rule.clusterRoleSelectors ?? []);
};

/** A broken-down rule as stored: empty lists left out, as Go's `omitempty` writes the rule. */
function withoutEmptyLists(r: SubRule): PolicyRule {
  const out: Record<string, readonly string[]> = {};
  for (const [k, v] of Object.entries(r) as [string, readonly string[]][]) if (v.length > 0 || k === 'verbs') out[k] = v;
  return out as unknown as PolicyRule;
}

function planRole(existing: KubeObject, expected: KubeObject): Plan {
  const { object, changed: metaChanged } = withMetadata(existing, expected);
  let changed = metaChanged;
  const missingRules = uncoveredRules(rulesOf(existing), rulesOf(expected));
  if (missingRules.length > 0) {
    object.rules = [...rulesOf(existing), ...missingRules.map(withoutEmptyLists)];
    changed = true;
  }
  const hasAggregation = existing.aggregationRule !== undefined && existing.aggregationRule !== null;
  if (expected.aggregationRule === undefined && hasAggregation) {
    delete object.aggregationRule;
    changed = true;
  } else if (expected.aggregationRule !== undefined) {
    const have = selectorsOf(existing);
    const missing = selectorsOf(expected).filter((s) => !have.some((h) => isDeepStrictEqual(h, s)));
    if (missing.length > 0) {
      object.aggregationRule = { ...((existing.aggregationRule as object | undefined) ?? {}), clusterRoleSelectors: [...have, ...missing] };
      changed = true;
    }
  }
  return changed ? { kind: 'update', object } : undefined;
}

function planBinding(existing: KubeObject, expected: KubeObject): Plan {
  if (!isDeepStrictEqual(existing.roleRef, expected.roleRef)) return { kind: 'recreate', object: structuredClone(expected) };
  const { object, changed: metaChanged } = withMetadata(existing, expected);
  let changed = metaChanged;
  const have = Array.isArray(existing.subjects) ? existing.subjects : [];
  const missing = (expected.subjects as unknown[]).filter((s) => !have.some((h) => isDeepStrictEqual(h, s)));
  if (missing.length > 0) {
    object.subjects = [...have, ...missing];
    changed = true;
  }
  return changed ? { kind: 'update', object } : undefined;
}

async function getOrUndefined(registry: GenericRegistry, name: string): Promise<KubeObject | undefined> {
  try {
    return await registry.get('', name);
  } catch (err) {
    if (err instanceof StatusError && err.reason === 'NotFound') return undefined;
    throw err;
  }
}

/** One object, retried from a fresh read while another writer races it. */
async function reconcileOne(
  registry: GenericRegistry,
  expected: KubeObject,
  plan: (existing: KubeObject, expected: KubeObject) => Plan,
  autoupdateKey: string,
  attempts: number,
  fieldManager: string,
): Promise<Outcome> {
  const name = expected.metadata.name ?? '';
  for (let attempt = 1; ; attempt++) {
    try {
      const existing = await getOrUndefined(registry, name);
      if (existing === undefined) {
        await registry.create('', structuredClone(expected), { fieldManager });
        return 'created';
      }
      const change = plan(existing, expected);
      if (change === undefined) return 'none';
      if (existing.metadata.annotations?.[autoupdateKey] === 'false') return 'skipped';
      if (change.kind === 'recreate') {
        await registry.delete('', name, { preconditions: { uid: existing.metadata.uid ?? '', resourceVersion: existing.metadata.resourceVersion ?? '' } });
        await registry.create('', change.object, { fieldManager });
        return 'recreated';
      }
      await registry.update('', name, change.object, { fieldManager });
      return 'updated';
    } catch (err) {
      if (!retryable(err) || attempt >= attempts) throw err;
    }
  }
}

/**
 * Brings the stored RBAC objects up to the bootstrap policy. Does nothing when the RBAC resources are not
 * served (`--runtime-config` turned them off).
 */
export async function reconcileBootstrapPolicy(resources: ServedResources, naming: Naming, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const report: ReconcileReport = { created: [], updated: [], recreated: [], skipped: [] };
  const policy = options.policy ?? bootstrapPolicy(naming);
  const attempts = options.attempts ?? 10;
  const fieldManager = options.fieldManager ?? 'platform-apiserver';
  const key = autoupdateAnnotation(naming);
  const group = rbacGroup(naming);
  const record = (resource: string, name: string, outcome: Outcome): void => {
    if (outcome !== 'none') report[outcome].push(`${resource}/${name}`);
  };
  const roles = resources.lookup(group, 'v1', 'clusterroles');
  if (roles !== undefined) {
    for (const role of policy.clusterRoles) {
      record('clusterroles', role.metadata.name ?? '', await reconcileOne(roles.registry, role, planRole, key, attempts, fieldManager));
    }
  }
  const bindings = resources.lookup(group, 'v1', 'clusterrolebindings');
  if (bindings !== undefined) {
    for (const binding of policy.clusterRoleBindings) {
      record('clusterrolebindings', binding.metadata.name ?? '', await reconcileOne(bindings.registry, binding, planBinding, key, attempts, fieldManager));
    }
  }
  return report;
}
