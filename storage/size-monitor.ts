/**
 * How big the backend's database is on disk, for kube's `apiserver_storage_size_bytes` and
 * `apiserver_storage_db_total_size_in_bytes`. Read on a timer by the API layer, never per request.
 *
 * etcd: each member's Status `dbSize` (the bolt file physically allocated), one client per endpoint, as
 * kube-apiserver monitors each endpoint with a client of its own. The embedded store: the bytes its data
 * directory (log segments, snapshots) occupies on disk.
 */
import type { StoreConfig } from './open-store.js';
import { etcdSizeMonitor } from './etcd/db-size.js';
import { memorySizeMonitor } from './memory/db-size.js';

export interface StorageSize {
  /** The member (`http://127.0.0.1:2379`) or the embedded store's directory. */
  readonly endpoint: string;
  readonly bytes: number;
}

export interface StoreSizeMonitor {
  /**
   * One reading per endpoint that answered (an unreachable member is left out, not an error). Never
   * throws.
   */
  sample(): Promise<readonly StorageSize[]>;
  /** Releases the monitor's own connections. Idempotent. */
  close(): Promise<void>;
}

export function openSizeMonitor(config: StoreConfig, timeoutMs = 1000): StoreSizeMonitor {
  return config.backend === 'etcd' ? etcdSizeMonitor(config.endpoints, timeoutMs, config.tls) : memorySizeMonitor(config.dataDir);
}
