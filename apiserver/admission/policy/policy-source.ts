/**
 * Keeps the active policy index current from two object sources (the policies' and the bindings' watch
 * caches), on every replica, as Kubernetes' policy source does from its informers:
 *
 * - a source replays its current objects and then says SYNCED; only then does its view replace the
 *   previous one (a watch that ended and started again never leaves deleted objects behind);
 * - every change schedules one rebuild (changes arriving together share it) on the next turn of the event
 *   loop: policies and bindings whose uid and generation did not change keep their compiled form, the
 *   others are compiled completely, then a new index is swapped in whole — a request sees the old index
 *   or the new one, never a policy half-compiled. A change is in force within one event-loop turn of the
 *   cache delivering it;
 * - `ready` resolves once both sources have synced and the first index is built (requests wait for it);
 * - a watch that fails is started again after `retryMs` (its error reported), from a fresh state.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../../api/object.js';
import { compileBinding, compilePolicy, identityOf, type CompiledBinding, type CompiledPolicy } from './compiled-policy.js';
import { buildPolicyIndex, type PolicyIndex } from './policy-index.js';

export type SourceEvent = { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubeObject } | { readonly type: 'SYNCED' };

/**
 * Objects of one kind, followed: `watch` yields every current object as ADDED, then SYNCED once, then
 * every change, until `signal` aborts (then it ends). Ending or throwing otherwise means "start again".
 * Objects are identified by `metadata.name` (the policy kinds are cluster-scoped).
 */
export interface ObjectSource {
  watch(signal: AbortSignal): AsyncIterable<SourceEvent>;
}

export interface PolicySourceOptions {
  readonly policies: ObjectSource;
  readonly bindings: ObjectSource;
  readonly retryMs?: number;
  readonly onError?: (err: unknown) => void;
  /** Called after each new index is swapped in (tests, metrics). */
  readonly onIndexed?: (index: PolicyIndex) => void;
}

export interface PolicySource {
  /** The current index; undefined until both sources have synced. */
  readonly index: PolicyIndex | undefined;
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

export function startPolicySource(o: PolicySourceOptions): PolicySource {
  const abort = new AbortController();
  const policies = new Map<string, KubeObject>();
  const bindings = new Map<string, KubeObject>();
  let policiesSynced = false;
  let bindingsSynced = false;
  const compiledPolicies = new Map<string, CompiledPolicy>();
  const compiledBindings = new Map<string, CompiledBinding>();
  let index: PolicyIndex | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let scheduled: NodeJS.Immediate | undefined;

  /** Compiles what changed (by uid and generation) and swaps in a new index. */
  const rebuild = (): void => {
    scheduled = undefined;
    if (!policiesSynced || !bindingsSynced || abort.signal.aborted) return;
    const ps = refresh(policies, compiledPolicies, compilePolicy, (c) => c.policy);
    const bs = refresh(bindings, compiledBindings, compileBinding, (c) => c.binding);
    index = buildPolicyIndex(ps, bs);
    markReady();
    o.onIndexed?.(index);
  };

  /**
   * The compiled form of every object: kept when it is the same object or the same uid and generation,
   * compiled anew otherwise. An object the compiler throws on (a shape the kinds should have refused) is
   * left out and reported, without holding up the others.
   */
  function refresh<C extends { readonly identity: string | undefined }>(
    objects: ReadonlyMap<string, KubeObject>,
    compiled: Map<string, C>,
    compile: (o: KubeObject) => C,
    source: (c: C) => KubeObject,
  ): C[] {
    const out: C[] = [];
    for (const [name, obj] of objects) {
      let c = compiled.get(name);
      if (c === undefined || (source(c) !== obj && !sameIdentity(c.identity, obj))) {
        try {
          c = compile(obj);
        } catch (err) {
          compiled.delete(name);
          o.onError?.(err);
          continue;
        }
        compiled.set(name, c);
      }
      out.push(c);
    }
    for (const name of compiled.keys()) if (!objects.has(name)) compiled.delete(name);
    return out;
  }

  const schedule = (): void => {
    scheduled ??= setImmediate(rebuild);
  };

  const follow = async (source: ObjectSource, target: Map<string, KubeObject>, synced: () => void): Promise<void> => {
    while (!abort.signal.aborted) {
      let pending: Map<string, KubeObject> | undefined = new Map();
      try {
        for await (const ev of source.watch(abort.signal)) {
          if (ev.type === 'SYNCED') {
            if (pending !== undefined) {
              target.clear();
              for (const [k, v] of pending) target.set(k, v);
              pending = undefined;
              synced();
              schedule();
            }
            continue;
          }
          const name = ev.object.metadata?.name ?? '';
          const into = pending ?? target;
          if (ev.type === 'DELETED') into.delete(name);
          else into.set(name, ev.object);
          if (pending === undefined) schedule();
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        o.onError?.(err);
      }
      if (abort.signal.aborted) return;
      await sleep(o.retryMs ?? 1000, undefined, { signal: abort.signal, ref: false }).catch(() => undefined);
    }
  };

  const following = Promise.all([
    follow(o.policies, policies, () => (policiesSynced = true)),
    follow(o.bindings, bindings, () => (bindingsSynced = true)),
  ]);

  return {
    get index() {
      return index;
    },
    ready,
    async stop() {
      abort.abort();
      if (scheduled !== undefined) clearImmediate(scheduled);
      scheduled = undefined;
      await following;
    },
  };
}

/** A compiled form is reused only for the same uid and generation (or resourceVersion), never for an object without either. */
const sameIdentity = (identity: string | undefined, o: KubeObject): boolean => identity !== undefined && identity === identityOf(o);
