/**
 * The store a replica serves from: the backend (etcd, or the embedded store under the data dir) unless the
 * caller brings one, encryption at rest right over it when `--encryption-provider-config` is given, and the
 * periodic compaction. Whatever keeps running registers its stop in `cleanups`.
 */
import { join } from 'node:path';
import { startCompactor } from '../../storage/compactor.js';
import { tlsUnusedByEndpoints } from '../../storage/etcd/client-tls.js';
import type { Store } from '../../storage/interface.js';
import { openStore } from '../../storage/open-store.js';
import type { ServerConfig } from '../config/server-config.js';
import { builtinKinds } from '../registry/kinds/index.js';
import { openEncryptionAtRest, type EncryptionAtRest } from '../encryption/encryption-at-rest.js';
import type { Logger } from '../log/logger.js';
import type { Naming } from '../naming/naming.js';

export interface AssembledStore {
  /** What everything above reads and writes: plaintext, encrypted below when configured. */
  readonly store: Store;
  readonly encryption: EncryptionAtRest | undefined;
}

export async function assembleStore(
  config: ServerConfig,
  names: Naming,
  logger: Logger,
  cleanups: (() => Promise<void>)[],
  given?: Store,
): Promise<AssembledStore> {
  let store = given;
  if (config.storage.backend === 'etcd' && tlsUnusedByEndpoints(config.storage.endpoints, config.storage.tls)) {
    // As kube's etcd client: http:// members are dialed in plain text, the TLS files go unused.
    logger.warn({ endpoints: config.storage.endpoints }, 'the etcd servers are http:// URLs: --etcd-cafile, --etcd-certfile and --etcd-keyfile are not used');
  }
  if (store === undefined) {
    const opened = await openStore(
      config.storage.backend === 'etcd'
        ? { backend: 'etcd', endpoints: config.storage.endpoints, tls: config.storage.tls }
        : { backend: 'memory', dataDir: join(config.dataDir, 'store'), logger: logger.child({ component: 'memory-store' }) },
    );
    cleanups.push(() => opened.close());
    store = opened;
  }
  // The transforming store goes right over the backend, so everything above sees plaintext; every stored
  // object is checked readable first (a wrong or missing key stops the start).
  const encryption = config.encryption === undefined
    ? undefined
    : openEncryptionAtRest({ file: config.encryption.file, naming: names, prefix: config.storagePrefix, kinds: builtinKinds(names) });
  if (encryption !== undefined) {
    const { checked } = await encryption.checkStored(store);
    logger.info({ checked, resources: encryption.transformers.current.configured }, 'encryption at rest: every stored object is readable');
    store = encryption.wrap(store);
  }
  if (config.compactionIntervalMs > 0) {
    const compactor = startCompactor(store, {
      intervalMs: config.compactionIntervalMs,
      onCompacted: (revision) => logger.debug({ revision }, 'compacted'),
      onError: (err) => logger.warn({ err }, 'compaction failed'),
    });
    cleanups.push(() => compactor.stop());
  }
  return { store, encryption };
}
