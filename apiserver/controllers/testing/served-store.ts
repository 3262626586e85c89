/**
 * For controller tests: the built-in kinds served over a fresh embedded store in a temporary directory,
 * each resource with its watch cache (controllers follow the caches), as the server assembles them.
 * `close()` stops the caches, closes the store and removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { serveResources, type ServedResources } from '../../registry/served-resources.js';
import type { Naming } from '../../naming/naming.js';
import { decodeObject } from '../../registry/generic/object-codec.js';
import { builtinKinds } from '../../registry/kinds/index.js';
import { createWatchCache } from '../../../storage/cache/watch-cache.js';
import { openMemoryStore } from '../../../storage/memory/memory-store.js';

export interface ServedStore {
  readonly served: ServedResources;
  close(): Promise<void>;
}

export async function openServedStore(names: Naming): Promise<ServedStore> {
  const dir = await mkdtemp(join(tmpdir(), 'controller-'));
  const store = await openMemoryStore({ dataDir: dir });
  const served = serveResources({
    store,
    naming: names,
    kinds: builtinKinds(),
    prefix: '/registry',
    watchCache: (keyPrefix, resource) => {
      return createWatchCache<KubeObject>(store, keyPrefix, { decode: decodeObject, resource });
    },
  });
  return {
    served,
    async close() {
      served.stop();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
