/**
 * Runs the one Store conformance suite against every backend. `STORE_BACKENDS=memory` (or `etcd`) narrows
 * the list. The etcd backend runs against a real etcd started by the harness; under CI it fails when etcd
 * cannot start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreConformance, type StoreUnderTest } from '../../storage/testing/conformance.js';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import { openEtcdStore } from '../../storage/etcd/etcd-store.js';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';

function memory(): StoreUnderTest {
  let dir = '';
  return {
    open: () => {
      dir = mkdtempSync(join(tmpdir(), 'conformance-memory-'));
      return openMemoryStore({ dataDir: dir });
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function etcd(): StoreUnderTest {
  let cluster: EtcdCluster | undefined;
  return {
    open: async () => {
      cluster = await startEtcd();
      return openEtcdStore({ endpoints: cluster.endpoints });
    },
    cleanup: async () => cluster?.stop(),
  };
}

const backends: Record<string, () => StoreUnderTest> = { memory, etcd };
const selected = (process.env.STORE_BACKENDS ?? Object.keys(backends).join(',')).split(',');

for (const name of selected) {
  const make = backends[name];
  if (make === undefined) throw new Error(`unknown backend in STORE_BACKENDS: ${name}`);
  describeStoreConformance(name, make());
}
