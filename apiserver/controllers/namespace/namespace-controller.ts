/**
 * Namespace lifecycle: every namespace marked for deletion (Terminating) has its content removed — every
 * namespaced resource, in batches of `batchSize` — and, once nothing is left, the `kubernetes` finalizer
 * is removed and the namespace goes. Objects held by their own finalizers keep the namespace Terminating
 * until they are gone.
 *
 * Runs on the leader replica only (leader-election.ts); a pass starts every `intervalMs` and whenever
 * `kick()` is called (a delete on this replica), never two at a time.
 *
 * Deletion problems are recorded as events about the namespace (`kubectl describe namespace` shows them),
 * with the reasons and messages of Kubernetes' namespace deletion conditions: `ContentDeletionFailed`
 * (Warning) when deleting some resource failed, `SomeFinalizerRemain` (Normal) while objects wait for
 * their finalizers. A problem is recorded when it appears or its message changes, and again at most once
 * per `repeatMs` while it lasts (the recorder aggregates those repeats into one event's count).
 */
import { passLoop } from '../pass-loop.js';
import type { KubeObject } from '../../api/object.js';
import type { ServedResource, ServedResources } from '../../registry/served-resources.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import { referenceOf } from '../../events/object-reference.js';
import { FINALIZER_KUBERNETES } from '../../registry/kinds/core/namespace.js';
import { finalizeNamespace } from './finalize.js';

export interface NamespaceControllerOptions {
  readonly resources: ServedResources;
  /** Default 1 s. */
  readonly intervalMs?: number;
  /** Objects deleted per request of a pass. Default 500. */
  readonly batchSize?: number;
  readonly onError?: (err: unknown) => void;
  readonly onRemoved?: (namespace: string) => void;
  /** Where deletion problems are recorded as events (component `namespace-controller`). Default: nowhere. */
  readonly recorder?: EventRecorder;
  /** How often a lasting problem is recorded again. Default 60 s. */
  readonly repeatMs?: number;
}

/** What one pass over a namespace's content found. */
interface ContentState {
  readonly empty: boolean;
  /** One message per resource whose deletion failed. */
  readonly failures: readonly string[];
  /** Finalizer -> objects still held by it. */
  readonly finalizers: ReadonlyMap<string, number>;
}

/** kube's NamespaceDeletionContentFailure message. */
export const contentFailureMessage = (failures: readonly string[]): string =>
  `Failed to delete all resource types, ${failures.length} remaining: ${[...failures].sort().join(', ')}`;

/** kube's NamespaceFinalizersRemaining message. */
export const finalizersMessage = (finalizers: ReadonlyMap<string, number>): string =>
  `Some finalizers are remaining: ${[...finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort().join(', ')}`;

export interface NamespaceController {
  /** Starts a pass soon (coalesced with one in flight). */
  kick(): void;
  /** Resolves after the pass in flight, if any; no pass starts afterwards. */
  stop(): Promise<void>;
}

export function startNamespaceController(o: NamespaceControllerOptions): NamespaceController {
  const namespaces = o.resources.lookup('', 'v1', 'namespaces');
  if (namespaces === undefined) throw new Error('the namespace controller needs the namespaces resource');
  /**
   * The namespaced resources, one registry per stored key prefix, read at each pass (custom resources come
   * and go). Views of another resource's objects (events.k8s.io Events) and a custom resource's other
   * versions are that prefix's content already.
   */
  const contentsNow = (): ServedResource[] => {
    const byPrefix = new Map<string, ServedResource>();
    for (const r of o.resources.all) {
      if (!r.strategy.namespaced || r.strategy.storedAs !== undefined || r.strategy.virtual !== undefined) continue;
      const base = r.registry.context.keys.base;
      if (!byPrefix.has(base)) byPrefix.set(base, r);
    }
    return [...byPrefix.values()];
  };
  const batchSize = o.batchSize ?? 500;
  const repeatMs = o.repeatMs ?? 60_000;
  /** `<namespace>\0<reason>` -> the last message recorded and when. */
  const recorded = new Map<string, { message: string; at: number }>();

  /** Deletes one batch of every namespaced resource in `ns`; `empty` when nothing is left. */
  const emptyOut = async (ns: string): Promise<ContentState> => {
    let empty = true;
    const failures: string[] = [];
    const finalizers = new Map<string, number>();
    for (const r of contentsNow()) {
      try {
        // Background, as kube's deleter: a kind's orphaning default (Jobs) would add the `orphan` finalizer.
        const deleted = await r.registry.deleteCollection(ns, { limit: batchSize }, { propagationPolicy: 'Background' });
        if (deleted.items.length === 0) continue;
        // Objects with finalizers were only marked: they stay until their finalizers are done.
        for (const item of deleted.items) for (const f of item.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
        // Something was there; it may be gone now or be held by finalizers: look again next pass.
        const left = await r.registry.list(ns, { limit: 1 });
        if (left.items.length > 0) empty = false;
      } catch (err) {
        empty = false;
        failures.push(`${r.strategy.resource}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return { empty, failures, finalizers };
  };

  /** Records a problem when it is new, changed, or last recorded `repeatMs` ago; clears a solved one. */
  const report = async (ns: KubeObject, reason: string, type: 'Normal' | 'Warning', message: string | undefined): Promise<void> => {
    const key = `${ns.metadata.name ?? ''}\u0000${reason}`;
    if (message === undefined) {
      recorded.delete(key);
      return;
    }
    const last = recorded.get(key);
    const now = Date.now();
    if (last !== undefined && last.message === message && now - last.at < repeatMs) return;
    recorded.set(key, { message, at: now });
    await o.recorder?.event(referenceOf(ns), type, reason, message);
  };

  const reportProblems = async (ns: KubeObject, state: ContentState): Promise<void> => {
    await report(ns, 'ContentDeletionFailed', 'Warning', state.failures.length > 0 ? contentFailureMessage(state.failures) : undefined);
    await report(ns, 'SomeFinalizerRemain', 'Normal', state.finalizers.size > 0 ? finalizersMessage(state.finalizers) : undefined);
  };

  const forget = (name: string): void => {
    for (const key of recorded.keys()) if (key.startsWith(`${name}\u0000`)) recorded.delete(key);
  };

  const pass = async (): Promise<void> => {
    const list = await namespaces.registry.list('', {});
    for (const ns of list.items) {
      if (loop.stopped) return;
      const name = ns.metadata.name ?? '';
      if (ns.metadata.deletionTimestamp === undefined) continue;
      try {
        const state = await emptyOut(name);
        await reportProblems(ns, state);
        if (!state.empty) continue;
        if (await finalizeNamespace(namespaces.registry, name, FINALIZER_KUBERNETES)) {
          forget(name);
          o.onRemoved?.(name);
        }
      } catch (err) {
        o.onError?.(err);
      }
    }
  };

  // `pass` reads `loop.stopped` only when the loop runs it, after this line.
  const loop = passLoop(pass, o.intervalMs ?? 1000, o.onError);
  loop.kick();
  return { kick: loop.kick, stop: () => loop.stop() };
}
