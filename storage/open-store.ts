import type { Store } from './interface.js';
import { openMemoryStore } from './memory/memory-store.js';
import { openEtcdStore } from './etcd/etcd-store.js';
import type { EtcdClientTls } from './etcd/client-tls.js';
import type { StoreLogger } from './memory/store-logger.js';

/** Which backend serves the API, and how to reach it. No etcd servers means the embedded store. */
export type StoreConfig =
  | {
      readonly backend: 'memory';
      readonly dataDir: string;
      /** The server's structured logger: recovery, a torn log tail, a stale lock taken over (JSON lines). */
      readonly logger?: StoreLogger;
    }
  | {
      readonly backend: 'etcd';
      readonly endpoints: readonly string[];
      /** Per-call deadline for unary etcd calls, in milliseconds. */
      readonly callTimeoutMs?: number;
      /** Client TLS files (kube's `--etcd-cafile/-certfile/-keyfile`), for every connection to etcd. */
      readonly tls?: EtcdClientTls;
    };

/** Backends by name: a plain map from name to constructor (as kine maps URL schemes). */
const backends: { [K in StoreConfig['backend']]: (config: Extract<StoreConfig, { backend: K }>) => Promise<Store> } = {
  memory: (c) => openMemoryStore({ dataDir: c.dataDir, logger: c.logger }),
  etcd: (c) => openEtcdStore({ endpoints: c.endpoints, callTimeoutMs: c.callTimeoutMs, tls: c.tls }),
};

/** Opens the configured backend. The caller owns the store and must `close()` it. */
export function openStore(config: StoreConfig): Promise<Store> {
  return (backends[config.backend] as (c: StoreConfig) => Promise<Store>)(config);
}
