/**
 * The instances of a CustomResourceDefinition being deleted, removed as Kubernetes' CRD finalizer does:
 * one delete collection per namespace that has instances (so each instance's own finalizers are honoured:
 * such instances are only marked), then a poll until none is left. The outcome is the Terminating
 * condition to record, with Kubernetes' reasons and messages:
 * - InstanceDeletionCompleted (False, "removed all instances") when the resource is empty;
 * - InstanceDeletionFailed (True) when listing or a delete failed;
 * - InstanceDeletionCheck (True) when instances are still there after `waitMs` (finalizers of their own).
 * A failed outcome is retried by the caller.
 */
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { CrdCondition } from '../../registry/kinds/apiextensions/crd-conditions.js';

export interface CleanupOptions {
  /** How long to wait for the instances to be gone; default 60 s (Kubernetes' one minute). */
  readonly waitMs?: number;
  /** Between two checks; default 200 ms (Kubernetes polls every 5 s; the store here answers at once). */
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
}

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export async function deleteInstances(registry: GenericRegistry, o: CleanupOptions = {}): Promise<{ condition: CrdCondition; failed: boolean }> {
  const failed = (message: string, reason = 'InstanceDeletionFailed') =>
    ({ condition: { type: 'Terminating', status: 'True', reason, message }, failed: true }) as const;
  let namespaces: Set<string>;
  try {
    const all = await registry.list('', { resourceVersion: '' });
    namespaces = new Set(all.items.map((i) => i.metadata.namespace ?? ''));
  } catch (err) {
    return failed(`could not list instances: ${errorText(err)}`);
  }
  const errors: string[] = [];
  for (const ns of namespaces) {
    try {
      await registry.deleteCollection(ns, {}, {});
    } catch (err) {
      errors.push(errorText(err));
    }
  }
  if (errors.length > 0) return failed(`could not issue all deletes: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}`);

  const deadline = Date.now() + (o.waitMs ?? 60_000);
  for (;;) {
    let left: number;
    try {
      left = (await registry.list('', { limit: 1, resourceVersion: '' })).items.length;
    } catch (err) {
      return failed(`could not confirm zero CustomResources remaining: ${errorText(err)}`, 'InstanceDeletionCheck');
    }
    if (left === 0) return { condition: { type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }, failed: false };
    if (Date.now() >= deadline || o.signal?.aborted === true) {
      return failed('could not confirm zero CustomResources remaining: timed out waiting for the condition', 'InstanceDeletionCheck');
    }
    await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? 200));
  }
}
