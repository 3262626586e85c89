/**
 * Encryption at rest as the server assembles it (`--encryption-provider-config`,
 * `--encryption-provider-config-automatic-reload`):
 *
 * 1. `openEncryptionAtRest` reads and validates the file (a bad file is a start-up error) and builds the
 *    transformers of the configured resources (`resource-transformers.ts`).
 * 2. `wrap(store)` puts the transforming store (`storage/transforming-store.ts`) over the backend, below
 *    everything else: registries, watch caches, controllers and the compactor see plaintext; the backend
 *    holds ciphertext for the configured resources.
 * 3. `checkStored(store)` reads every stored object once (paged, the raw values through the transformers)
 *    and fails the start when any cannot be read: a key removed from the file, a wrong key or a tampered
 *    value stops the server with the keys at fault, instead of a server that starts and answers 500 on some
 *    reads. (kube starts and fails the reads; this check is ours, and costs one read of the store at start,
 *    as the watch caches' first lists do.)
 * 4. `startReload` (with the flag) follows the file (watched-file.ts: its directory, and a re-read every
 *    minute as kube polls): content that parses replaces the configuration at once, for every later read
 *    and write; content that does not keeps the configuration in force and logs the error. Counted in kube
 *    1.32's `apiserver_encryption_config_controller_automatic_reloads_total{status,apiserver_id_hash}` and
 *    `..._automatic_reload_last_timestamp_seconds`. A reload does not re-check stored objects (as kube):
 *    removing a key still in use makes the reads of its objects fail (500, naming the key).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Store } from '../../storage/interface.js';
import { transformStore } from '../../storage/transforming-store.js';
import { watchFile, type WatchedFile } from '../auth/watched-file.js';
import type { Naming } from '../naming/naming.js';
import { groupOf, storedResourceOf, type KindStrategy } from '../registry/kind-strategy.js';
import { qualifiedResource } from '../errors/constructors.js';
import { EncryptionConfigError, parseEncryptionConfig, readEncryptionConfigFile } from './encryption-config.js';
import { EncryptionTransformers } from './resource-transformers.js';

export interface EncryptionLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface EncryptionAtRest {
  readonly transformers: EncryptionTransformers;
  /** `store` with the configured resources' values transformed. */
  wrap(store: Store): Store;
  /** Reads every object under the prefix through the transformers; throws when any cannot be read. */
  checkStored(rawStore: Store): Promise<{ readonly checked: number }>;
  /**
   * kube's storage transformation metrics into `registry`: `apiserver_storage_transformation_operations_total`
   * `{transformation_type, transformer_prefix, status}` and `apiserver_storage_transformation_duration_seconds`
   * `{transformation_type, transformer_prefix}` (successes only), as kube records them.
   */
  instrument(registry: Registry): void;
  /** Follows the file (automatic reload); metrics into `registry`. `check()` re-reads it now. */
  startReload(registry: Registry, logger: EncryptionLogger, intervalMs?: number): WatchedFile;
}

export interface EncryptionOptions {
  readonly file: string;
  readonly naming: Naming;
  /** `--etcd-prefix`. */
  readonly prefix: string;
  /** The built-in kinds (their stored resources name the keys' first segment). */
  readonly kinds: readonly KindStrategy[];
}

/** Built-in stored resource name -> its group-resource string (`secrets`, `deployments.apps`). */
function builtinResources(kinds: readonly KindStrategy[], naming: Naming): Map<string, string> {
  const out = new Map<string, string>();
  for (const k of kinds) {
    if (k.virtual !== undefined) continue;
    const resource = storedResourceOf(k);
    if (out.has(resource)) continue;
    const group = k.storedAs === undefined ? groupOf(k, naming) : groupOf(k.storedAs.kind, naming);
    out.set(resource, qualifiedResource({ group, resource }));
  }
  return out;
}

const CHECK_PAGE = 500;
const CHECK_REPORTED = 5;

export function openEncryptionAtRest(o: EncryptionOptions): EncryptionAtRest {
  const { config, text: initial } = readEncryptionConfigFile(o.file, o.naming.domain);
  const transformers = new EncryptionTransformers(config, o.naming.encryptedValuePrefix, {
    prefix: o.prefix,
    builtin: builtinResources(o.kinds, o.naming),
  });
  return {
    transformers,
    wrap: (store) => transformStore(store, transformers.forKey),
    async checkStored(raw) {
      const base = `${o.prefix.replace(/\/+$/, '')}/`;
      const failures: string[] = [];
      let failed = 0;
      let checked = 0;
      let page = await raw.list(base, { limit: CHECK_PAGE });
      const revision = page.revision;
      for (;;) {
        for (const kv of page.items) {
          const t = transformers.forKey(kv.key);
          if (t === undefined) continue;
          checked++;
          try {
            const { value } = t.fromStorage(kv.value, kv.key);
            // aescbc has no integrity check: a wrong key passes the padding check about once in 256 reads
            // and yields garbage. Stored objects are JSON, so garbage is caught here.
            if (value.length > 0 && value[0] !== 0x7b) throw new Error('the value read is not a stored object (a wrong aescbc key?)');
          } catch (err) {
            failed++;
            if (failures.length < CHECK_REPORTED) failures.push(`${kv.key}: ${(err as Error).message}`);
          }
        }
        if (!page.more || page.items.length === 0) break;
        page = await raw.list(base, { revision, startKey: `${page.items[page.items.length - 1]!.key}\x00`, limit: CHECK_PAGE });
      }
      if (failed > 0) {
        throw new EncryptionConfigError(
          `--encryption-provider-config: ${failed} of ${checked} stored objects cannot be read with the configured providers `
            + `(a key missing from the file, a wrong key, or a damaged value): ${failures.join('; ')}${failed > failures.length ? '; ...' : ''}`,
        );
      }
      return { checked };
    },
    instrument(registry) {
      const operations = new Counter({
        name: 'apiserver_storage_transformation_operations_total',
        help: 'Total number of transformations.',
        labelNames: ['transformation_type', 'transformer_prefix', 'status'],
        registers: [registry],
      });
      const durations = new Histogram({
        name: 'apiserver_storage_transformation_duration_seconds',
        help: 'Latencies in seconds of value transformation operations.',
        labelNames: ['transformation_type', 'transformer_prefix'],
        // kube: ExponentialBuckets(5e-6, 2, 25).
        buckets: Array.from({ length: 25 }, (_, i) => 5e-6 * 2 ** i),
        registers: [registry],
      });
      // Series resolved once per label set: a transformation costs a map lookup, not prom-client's label hashing.
      const counted = new Map<string, { inc(): void }>();
      const timed = new Map<string, { observe(v: number): void }>();
      transformers.instrument({
        record(type, prefix, seconds, ok) {
          const status = ok ? 'OK' : 'unknown-non-grpc';
          const ck = `${type}\0${prefix}\0${status}`;
          let c = counted.get(ck);
          if (c === undefined) {
            c = operations.labels({ transformation_type: type, transformer_prefix: prefix, status });
            counted.set(ck, c);
          }
          c.inc();
          if (!ok) return;
          const tk = `${type}\0${prefix}`;
          let h = timed.get(tk);
          if (h === undefined) {
            h = durations.labels({ transformation_type: type, transformer_prefix: prefix });
            timed.set(tk, h);
          }
          h.observe(seconds);
        },
      });
    },
    startReload(registry, logger, intervalMs) {
      // kube labels the reload metrics with a hash of the server's identity (one per process).
      const idHash = `sha256:${createHash('sha256').update(`apiserver-${randomUUID()}`).digest('hex')}`;
      const reloads = new Counter({
        name: 'apiserver_encryption_config_controller_automatic_reloads_total',
        help: 'Total number of reload successes and failures of encryption configuration split by apiserver identity.',
        labelNames: ['status', 'apiserver_id_hash'],
        registers: [registry],
      });
      const last = new Gauge({
        name: 'apiserver_encryption_config_controller_automatic_reload_last_timestamp_seconds',
        help: 'Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.',
        labelNames: ['status', 'apiserver_id_hash'],
        registers: [registry],
      });
      const record = (status: 'success' | 'failure'): void => {
        reloads.inc({ status, apiserver_id_hash: idHash });
        last.set({ status, apiserver_id_hash: idHash }, Date.now() / 1000);
      };
      const watched: WatchedFile = watchFile({
        file: o.file,
        initial,
        intervalMs,
        onContent: (text) => {
          try {
            transformers.swap(parseEncryptionConfig(text, o.naming.domain));
          } catch (err) {
            record('failure');
            logger.error({ file: o.file, err: (err as Error).message }, 'failed to process encryption config: the configuration in force is kept');
            return;
          }
          record('success');
          logger.info({ file: o.file, resources: transformers.current.configured }, 'loaded new encryption config');
        },
        onReadError: (err) => logger.error({ file: o.file, err: err.message }, 'reading the encryption provider config failed'),
      });
      return watched;
    },
  };
}
