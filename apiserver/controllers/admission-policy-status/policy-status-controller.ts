/**
 * The ValidatingAdmissionPolicy status controller (Kubernetes' validatingadmissionpolicy-status
 * controller): for every policy whose `metadata.generation` is newer than `status.observedGeneration`, it
 * type-checks the policy against the kinds it matches (type-check.ts, with the served schemas) and writes
 * the status sub-resource: `observedGeneration` = the checked generation and `typeChecking` = the
 * warnings (`{}` when there are none), leaving other status fields (conditions) alone. Writes carry the
 * field manager `validatingadmissionpolicy-status-controller`, as upstream's.
 *
 * It follows a watch of the policies (through their watch cache) and runs a pass after every event
 * (coalesced while one runs), plus every `resyncMs`; the watch is re-established after a fresh list when
 * it ends. A pass reads the policies from the cache; a write is skipped when the stored policy moved on
 * to another generation meanwhile (its own event brings the next pass). Policies that are already
 * current are not touched, so status writes do not feed back into more writes.
 *
 * Runs on the leader replica only (leader-election.ts), like the other in-server controllers.
 */
import type { KubeObject } from '../../api/object.js';
import type { ServedResources } from '../../registry/served-resources.js';
import { StatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { followRegistry } from '../follow-registry.js';
import { passLoop } from '../pass-loop.js';
import { servedSchemaResolver } from './served-schemas.js';
import { typeCheckPolicy, type SchemaResolver } from './type-check.js';
import { isObject } from '../../api/json.js';

export const POLICY_STATUS_FIELD_MANAGER = 'validatingadmissionpolicy-status-controller';

export interface PolicyStatusControllerOptions {
  /** The registry of `validatingadmissionpolicies`. */
  readonly policies: GenericRegistry;
  /** What the server serves: the kinds policies match and their schemas. */
  readonly resources: ServedResources;
  /** A full pass at least this often. Default 60 s. */
  readonly resyncMs?: number;
  /** Wait before re-watching after the watch failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
  readonly onError?: (err: unknown) => void;
  /** Called after each status write, with the policy's name and the generation checked (tests and logs). */
  readonly onChecked?: (name: string, generation: number) => void;
}

export interface PolicyStatusController {
  /** Starts a pass soon (coalesced with one in flight). */
  kick(): void;
  /** Ends the watch; resolves after the pass in flight, if any. */
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;

const generationOf = (p: KubeObject): number => (typeof p.metadata.generation === 'number' ? p.metadata.generation : 0);
const observedOf = (p: KubeObject): number => {
  const status = isObject(p.status) ? p.status : {};
  return typeof status.observedGeneration === 'number' ? status.observedGeneration : 0;
};

/** Whether the policy's status is behind its spec (upstream: generation <= observedGeneration means done). */
export const needsCheck = (p: KubeObject): boolean => generationOf(p) > observedOf(p);

/** The status a check of `policy` produces, over `current` (other status fields kept). */
export function checkedStatus(policy: KubeObject, resolver: SchemaResolver, current: unknown): Json {
  const warnings = typeCheckPolicy(policy, resolver);
  return {
    ...(isObject(current) ? current : {}),
    observedGeneration: generationOf(policy),
    typeChecking: warnings.length === 0 ? {} : { expressionWarnings: warnings.map((w) => ({ fieldRef: w.fieldRef, warning: w.warning })) },
  };
}

export function startPolicyStatusController(o: PolicyStatusControllerOptions): PolicyStatusController {
  const registry = o.policies;
  const resolver = servedSchemaResolver(o.resources);
  const abort = new AbortController();

  const reconcile = async (policy: KubeObject): Promise<void> => {
    const name = policy.metadata.name ?? '';
    const generation = generationOf(policy);
    let wrote = false;
    try {
      await registry.patch(
        '',
        name,
        (current) => {
          // Checked against a generation that is no longer the stored one: the next event re-checks.
          if (generationOf(current) !== generation || !needsCheck(current)) return current;
          wrote = true;
          return { ...current, status: checkedStatus(current, resolver, current.status) };
        },
        { subresource: 'status', fieldManager: POLICY_STATUS_FIELD_MANAGER },
      );
    } catch (err) {
      // Deleted since the list: nothing to report.
      if (err instanceof StatusError && err.reason === 'NotFound') return;
      throw err;
    }
    if (wrote) o.onChecked?.(name, generation);
  };

  const pass = async (): Promise<void> => {
    const all = (await registry.list('', {})).items;
    for (const policy of all) {
      if (loop.stopped) return;
      if (!needsCheck(policy)) continue;
      try {
        await reconcile(policy);
      } catch (err) {
        o.onError?.(err);
      }
    }
  };

  // `pass` reads `loop.stopped` only when the loop runs it, after this line.
  const loop = passLoop(pass, o.resyncMs ?? 60_000, o.onError);

  const following = followRegistry(registry, loop, abort.signal, { onError: o.onError, rewatchDelayMs: o.rewatchDelayMs });

  return {
    kick: () => loop.kick(),
    async stop() {
      const stopping = loop.stop();
      abort.abort();
      await following;
      await stopping;
    },
  };
}
