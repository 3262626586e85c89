/**
 * ClusterRole aggregation (kube's `clusterrole-aggregation` controller): a ClusterRole with an
 * `aggregationRule` gets as its rules the union of the rules of every other ClusterRole whose labels match
 * one of its selectors — selectors in order, the matching roles of each in name order, each distinct rule
 * once (first occurrence kept). Aggregated roles may feed others (`view` is labelled into `edit`, `edit`
 * into `admin`), so a change settles over successive passes, each triggered by the previous one's write.
 *
 * It reacts to changes: it follows a watch of the cluster roles (through their watch cache) and runs a
 * pass after every event, coalescing events that arrive while a pass runs; a pass also runs every
 * `resyncMs` as a safety net, and the watch is re-established (after a fresh list) whenever it ends. A pass
 * reads the roles from the cache (a consistent list) and writes only roles whose rules differ, through a
 * patch that leaves everything but `rules` alone and does nothing if the role lost its aggregationRule
 * meanwhile. Writes carry the field manager `clusterrole-aggregation-controller`, as kube's do.
 *
 * Runs on the leader replica only (leader-election.ts), like the namespace controller.
 */
import { followRegistry } from '../follow-registry.js';
import { passLoop } from '../pass-loop.js';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../selectors/label-selector-object.js';

export const AGGREGATION_FIELD_MANAGER = 'clusterrole-aggregation-controller';

export interface AggregationControllerOptions {
  /** The registry of `clusterroles`. */
  readonly clusterRoles: GenericRegistry;
  /** A full pass at least this often. Default 30 s. */
  readonly resyncMs?: number;
  /** Wait before re-watching after the watch failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
  readonly onError?: (err: unknown) => void;
  /** Called after each write, with the role's name (tests and logs). */
  readonly onAggregated?: (name: string) => void;
}

export interface AggregationController {
  /** Starts a pass soon (coalesced with one in flight). */
  kick(): void;
  /** Ends the watch; resolves after the pass in flight, if any. */
  stop(): Promise<void>;
}

type Rule = Record<string, unknown>;
const RULE_FIELDS = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/** Two rules are the same when each list is equal, an absent list being equal to an empty one (kube's semantic equality). */
function sameRule(a: Rule, b: Rule): boolean {
  for (const f of RULE_FIELDS) {
    const x = Array.isArray(a[f]) ? (a[f] as unknown[]) : [];
    const y = Array.isArray(b[f]) ? (b[f] as unknown[]) : [];
    if (!isDeepStrictEqual(x, y)) return false;
  }
  return true;
}

const rulesOf = (role: KubeObject): Rule[] => (Array.isArray(role.rules) ? (role.rules as Rule[]) : []);
const selectorsOf = (role: KubeObject): LabelSelectorObject[] | undefined => {
  const rule = role.aggregationRule as { clusterRoleSelectors?: LabelSelectorObject[] } | undefined | null;
  return rule === undefined || rule === null ? undefined : (rule.clusterRoleSelectors ?? []);
};

/**
 * The rules `role` should have given all cluster roles, or undefined when it is not aggregated. A selector
 * that does not parse (validation keeps them out; this is defensive) selects nothing.
 */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): Rule[] | undefined {
  const selectors = selectorsOf(role);
  if (selectors === undefined) return undefined;
  const byName = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
  const rules: Rule[] = [];
  for (const s of selectors) {
    let selector;
    try {
      selector = labelSelectorFromObject(s);
    } catch {
      continue;
    }
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !selector.matches(other.metadata.labels ?? {})) continue;
      for (const r of rulesOf(other)) if (!rules.some((x) => sameRule(x, r))) rules.push(r);
    }
  }
  return rules;
}

const sameRules = (a: readonly Rule[], b: readonly Rule[]): boolean => a.length === b.length && a.every((r, i) => sameRule(r, b[i]!));

export function startClusterRoleAggregation(o: AggregationControllerOptions): AggregationController {
  const registry = o.clusterRoles;
  const resyncMs = o.resyncMs ?? 30_000;
  const rewatchDelayMs = o.rewatchDelayMs ?? 1000;
  const abort = new AbortController();

  const write = async (name: string, rules: Rule[]): Promise<void> => {
    try {
      await registry.patch(
        '',
        name,
        (current) => (selectorsOf(current) === undefined || sameRules(rulesOf(current), rules) ? current : { ...current, rules }),
        { fieldManager: AGGREGATION_FIELD_MANAGER },
      );
      o.onAggregated?.(name);
    } catch (err) {
      // Deleted since the list: nothing to aggregate into.
      if (!(err instanceof StatusError && err.reason === 'NotFound')) throw err;
    }
  };

  const pass = async (): Promise<void> => {
    const all = (await registry.list('', {})).items;
    for (const role of all) {
      if (loop.stopped) return;
      const rules = aggregatedRules(role, all);
      if (rules === undefined || sameRules(rulesOf(role), rules)) continue;
      try {
        await write(role.metadata.name ?? '', rules);
      } catch (err) {
        o.onError?.(err);
      }
    }
  };

  // `pass` reads `loop.stopped` only when the loop runs it, after this line.
  const loop = passLoop(pass, resyncMs, o.onError);
  const run = loop.kick;

  const following = followRegistry(registry, loop, abort.signal, { onError: o.onError, rewatchDelayMs });

  return {
    kick: run,
    async stop() {
      const stopping = loop.stop();
      abort.abort();
      await following;
      await stopping;
    },
  };
}
