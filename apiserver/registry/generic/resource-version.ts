/**
 * resourceVersion parameters: '' and '0' parse to 0, anything else must be a base-10 unsigned integer
 * (400 otherwise). "Not older than N" is checked against the store's current revision.
 */
import { badRequest, tooLargeResourceVersion } from '../../errors/constructors.js';
import type { RegistryContext } from './registry-context.js';
import { translated } from './storage-errors.js';

export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  if (!/^[0-9]+$/.test(rv) || !Number.isSafeInteger(Number(rv))) throw badRequest(`invalid resource version: ${rv}`);
  return Number(rv);
}

/**
 * 504 "Too large resource version" when the store has not reached `rv`: "Not older than" for reads the
 * store serves (pages, registries without a watch cache). The store is the source of truth and never lags
 * behind itself, so this only happens for a version from the future; reads the watch cache serves wait up
 * to 3 s for it instead (storage/cache).
 */
export async function requireNotOlderThan(ctx: RegistryContext, rv: number): Promise<number> {
  const current = await translated(ctx.gr, '', () => ctx.store.currentRevision());
  if (current < rv) throw tooLargeResourceVersion(rv, current);
  return current;
}
