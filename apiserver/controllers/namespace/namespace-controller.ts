/**
 * Namespace lifecycle: every namespace marked for deletion (Terminating) has its content removed — every
 * namespaced resource, in batches of `batchSize` — and, once nothing is left, the `kubernetes` finalizer
 * is removed and the namespace goes. Objects held by their own finalizers keep the namespace Terminating
 * until they are gone.
 *
 * Runs on the leader replica only (leader-election.ts); a pass starts every `intervalMs` and whenever
 * `kick()` is called (a delete on this replica), never two at a time.
 */
import type { ServedResources } from '../../endpoints/resources/served-resources.js';
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
}

export interface NamespaceController {
  /** Starts a pass soon (coalesced with one in flight). */
  kick(): void;
  /** Resolves after the pass in flight, if any; no pass starts afterwards. */
  stop(): Promise<void>;
}

export function startNamespaceController(o: NamespaceControllerOptions): NamespaceController {
  const namespaces = o.resources.lookup('', 'v1', 'namespaces');
  if (namespaces === undefined) throw new Error('the namespace controller needs the namespaces resource');
  const contents = o.resources.all.filter((r) => r.strategy.namespaced);
  const batchSize = o.batchSize ?? 500;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  /** Deletes one batch of every namespaced resource in `ns`; true when nothing is left. */
  const emptyOut = async (ns: string): Promise<boolean> => {
    let empty = true;
    for (const r of contents) {
      const deleted = await r.registry.deleteCollection(ns, { limit: batchSize }, {});
      if (deleted.items.length === 0) continue;
      // Something was there; it may be gone now or be held by finalizers: look again next pass.
      const left = await r.registry.list(ns, { limit: 1 });
      if (left.items.length > 0) empty = false;
    }
    return empty;
  };

  const pass = async (): Promise<void> => {
    const list = await namespaces.registry.list('', {});
    for (const ns of list.items) {
      if (stopped) return;
      const name = ns.metadata.name ?? '';
      if (ns.metadata.deletionTimestamp === undefined) continue;
      try {
        if (!(await emptyOut(name))) continue;
        if (await finalizeNamespace(namespaces.registry, name, FINALIZER_KUBERNETES)) o.onRemoved?.(name);
      } catch (err) {
        o.onError?.(err);
      }
    }
  };

  const run = (): void => {
    if (stopped) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    if (timer !== undefined) clearTimeout(timer);
    running = pass()
      .catch((err: unknown) => o.onError?.(err))
      .finally(() => {
        running = undefined;
        if (stopped) return;
        if (again) {
          again = false;
          run();
        } else {
          timer = setTimeout(run, o.intervalMs ?? 1000);
          timer.unref();
        }
      });
  };
  run();

  return {
    kick: run,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
