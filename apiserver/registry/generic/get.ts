/** get: one object, 404 when missing. */
import type { KubeObject } from '../../api/object.js';
import { notFound } from '../../errors/constructors.js';
import { decodeObject } from './object-codec.js';
import type { GetOptions } from './options.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';
import { parseResourceVersion, requireNotOlderThan } from './resource-version.js';
import { translated } from './storage-errors.js';

export async function getObject(ctx: RegistryContext, namespace: string, name: string, opts: GetOptions = {}): Promise<KubeObject> {
  const key = ctx.keys.objectKey(requestNamespace(ctx, namespace), name);
  const rv = parseResourceVersion(opts.resourceVersion);
  if (rv > 0) await requireNotOlderThan(ctx, rv);
  const res = await translated(ctx.gr, name, () => ctx.store.get(key));
  if (res.kv === undefined) throw notFound(ctx.gr, name);
  return decodeObject(res.kv);
}
