/**
 * deletecollection: list with the request's selectors (and limit/continue, when given), then delete each
 * listed object with the same DeleteOptions, a bounded number at a time. Objects that disappeared meanwhile
 * are skipped. Answers the list of the objects as listed (kube's generic store returns the listed items),
 * with the listing's resourceVersion. The first other failure is thrown after the running deletes settle.
 */
import type { KubeList } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import { deleteObject, validateDeleteOptions } from './delete.js';
import { listObjects } from './list.js';
import type { DeleteOptions, ListOptions } from './options.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';

export async function deleteCollection(ctx: RegistryContext, namespace: string, listOpts: ListOptions = {}, deleteOpts: DeleteOptions = {}): Promise<KubeList> {
  validateDeleteOptions(ctx, deleteOpts);
  const list = await listObjects(ctx, requestNamespace(ctx, namespace), listOpts);
  let next = 0;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < list.items.length) {
      const item = list.items[next++]!;
      try {
        await deleteObject(ctx, item.metadata.namespace ?? '', item.metadata.name ?? '', deleteOpts);
      } catch (err) {
        if (isStatusError(err) && err.code === 404) continue;
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ctx.deleteCollectionConcurrency, list.items.length) }, worker));
  if (failure !== undefined) throw failure;
  return list;
}
