/**
 * This replica's identity record, as kube-apiserver's lease endpoint reconciler keeps it: the key
 * `<prefix>/masterleases/<advertise address>` holds `{ip, port}` and expires `ttlSeconds` after its last
 * write (the store deletes it), and the replica writes it again every `intervalMs`. So the records present
 * are the replicas alive now; a replica that stops deletes its own at once, one that dies is gone within the
 * ttl. The leader's kubernetes-service controller reads them to publish the `kubernetes` endpoints.
 */
import { isStorageError } from '../../../storage/errors.js';
import type { Store } from '../../../storage/interface.js';

export interface MasterLeaseRecord {
  readonly ip: string;
  readonly port: number;
}

export interface MasterLeaseOptions {
  readonly store: Store;
  /** `--etcd-prefix`. */
  readonly prefix: string;
  readonly ip: string;
  readonly port: number;
  /** Default 15 s (kube's master lease ttl). */
  readonly ttlSeconds?: number;
  /** Default 10 s (kube's endpoint reconcile interval). */
  readonly intervalMs?: number;
  readonly onError?: (err: unknown) => void;
}

export interface MasterLease {
  /** Writes the record now (and resolves once written). */
  renew(): Promise<void>;
  /** Stops renewing and deletes the record. */
  stop(): Promise<void>;
}

export const masterLeasesPrefix = (prefix: string): string => `${prefix}/masterleases/`;

/** The live replicas' records (expired ones are gone from the store). */
export async function listMasterLeases(store: Store, prefix: string): Promise<MasterLeaseRecord[]> {
  const res = await store.list(masterLeasesPrefix(prefix));
  const out: MasterLeaseRecord[] = [];
  for (const kv of res.items) {
    try {
      const r = JSON.parse(Buffer.from(kv.value).toString('utf8')) as Partial<MasterLeaseRecord>;
      if (typeof r.ip === 'string' && typeof r.port === 'number') out.push({ ip: r.ip, port: r.port });
    } catch {
      // Not a record of ours: ignored.
    }
  }
  return out;
}

export function startMasterLease(o: MasterLeaseOptions): MasterLease {
  const key = `${masterLeasesPrefix(o.prefix)}${o.ip}`;
  const ttlSeconds = o.ttlSeconds ?? 15;
  const value = Buffer.from(JSON.stringify({ ip: o.ip, port: o.port }));
  let stopped = false;

  const renew = async (): Promise<void> => {
    try {
      await o.store.create(key, value, { ttlSeconds });
    } catch (err) {
      if (!isStorageError(err, 'AlreadyExists')) throw err;
      // Another write (ours, earlier) holds it: write over it; a conflict means it changed meanwhile, retry once.
      const current = err.current;
      if (current === undefined) return renew();
      await o.store.update(key, value, current.modRevision, { ttlSeconds }).catch(async (e: unknown) => {
        if (!isStorageError(e, 'Conflict')) throw e;
        const again = e.current;
        if (again !== undefined) await o.store.update(key, value, again.modRevision, { ttlSeconds });
      });
    }
  };
  const timer = setInterval(() => {
    if (!stopped) renew().catch((err: unknown) => o.onError?.(err));
  }, o.intervalMs ?? 10_000);
  timer.unref();

  return {
    renew,
    async stop() {
      stopped = true;
      clearInterval(timer);
      try {
        await o.store.delete(key);
      } catch (err) {
        if (!isStorageError(err, 'NotFound')) o.onError?.(err);
      }
    },
  };
}
