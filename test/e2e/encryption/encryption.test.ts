/**
 * Encryption at rest end to end (docs/encryption.md), with servers started in process on real stores:
 * - embedded store: its files on disk hold no plaintext of a Secret (the same grep finds an unconfigured
 *   ConfigMap's value, so the grep works); a wrong key stops the start, naming the objects;
 * - etcd: `etcdctl get` shows the `k8s:enc:<provider>:v1:<key>:` prefix and ciphertext only;
 * - key rotation as Kubernetes documents it (add key2 second, restart; move it first, restart; migrate;
 *   remove key1, restart): every Secret stays readable, and removing key1 before migrating fails loudly;
 *   the migration by `kubectl get secrets -A -o json | kubectl replace -f -` and by scripts/migrate-storage.ts;
 * - automatic reload: a new file is used without a restart (metric, new writes under the new key), a bad
 *   one keeps the configuration in force (error log, failure metric), and a key removed by a reload makes
 *   reads of its objects fail with a 500 naming the key.
 */
import { exec, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminTokenPath } from '../../../apiserver/auth/admin-credentials.js';
import type { ServerConfig } from '../../../apiserver/config/server-config.js';
import type { RunningServer } from '../../../apiserver/server/start-server.js';
import { openMemoryStore } from '../../../storage/memory/memory-store.js';
import { startEtcd, type EtcdCluster } from '../../harness/etcd.js';
import { describeEtcd } from '../../harness/describe-etcd.js';
import { eventually, httpsRequest, memoryLogger, startTestServer, stopAll, tempDir } from '../../server/helpers.js';
import { connectionFromKubeconfig, migrateStorage } from '../../../scripts/migrate-storage.js';

const execAsync = promisify(exec);
const KEY1 = randomBytes(32).toString('base64');
const KEY2 = randomBytes(32).toString('base64');

type Provider = string;
const aescbc = (...keys: [string, string][]): Provider => `aescbc: {keys: [${keys.map(([n, s]) => `{name: ${n}, secret: "${s}"}`).join(', ')}]}`;
const aesgcm = (...keys: [string, string][]): Provider => `aesgcm: {keys: [${keys.map(([n, s]) => `{name: ${n}, secret: "${s}"}`).join(', ')}]}`;
const secretbox = (...keys: [string, string][]): Provider => `secretbox: {keys: [${keys.map(([n, s]) => `{name: ${n}, secret: "${s}"}`).join(', ')}]}`;

/** Writes the file as tools do (a new file renamed over the old one). */
function writeConfig(file: string, providers: Provider[], resources = ['secrets'], apiVersion = 'apiserver.config.k8s.io/v1'): void {
  const text = `apiVersion: ${apiVersion}\nkind: EncryptionConfiguration\nresources:\n  - resources: [${resources.join(', ')}]\n    providers:\n${providers.map((p) => `      - ${p}\n`).join('')}`;
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

interface Api {
  readonly server: RunningServer;
  readonly token: string;
  readonly dataDir: string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any; body: string }>;
}

async function start(dataDir: string, overrides: Partial<ServerConfig>, logger = memoryLogger().logger): Promise<Api> {
  const server = await startTestServer({ dataDir, ...overrides }, { logger });
  const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
  return {
    server,
    token,
    dataDir,
    async call(method, path, body) {
      const res = await httpsRequest(`${server.url}${path}`, {
        method,
        ca: server.caPem,
        token,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
      });
      let json: any;
      try {
        json = JSON.parse(res.body);
      } catch {
        json = undefined;
      }
      return { status: res.status, json, body: res.body };
    },
  };
}

const canary = (): string => `canary-${randomBytes(8).toString('hex')}`;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function createSecret(api: Api, name: string, value: string, ns = 'default'): Promise<void> {
  const res = await api.call('POST', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { password: b64(value) }, stringData: { token: value } });
  expect(res.status).toBe(201);
}

async function secretValue(api: Api, name: string, ns = 'default'): Promise<string> {
  const res = await api.call('GET', `/api/v1/namespaces/${ns}/secrets/${name}`);
  if (res.status !== 200) throw new Error(`GET secret ${name}: ${res.status} ${res.body}`);
  return Buffer.from(res.json.data.password, 'base64').toString('utf8');
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

function grepDir(dir: string, needle: string): string[] {
  const n = Buffer.from(needle);
  return filesUnder(dir).filter((f) => readFileSync(f).includes(n));
}

afterEach(() => stopAll());

describe('encryption at rest: embedded store', () => {
  it('keeps no plaintext of a Secret in the data dir; platform mode writes the platform:enc: prefix', async () => {
    const dataDir = tempDir('enc-embedded-');
    const file = join(tempDir('enc-cfg-'), 'enc.yaml');
    writeConfig(file, [secretbox(['key1', KEY1]), 'identity: {}'], ['secrets'], 'apiserver.config.platform.io/v1');
    const api = await start(dataDir, { encryption: { file, automaticReload: false } });
    const secret = canary();
    const plain = canary();
    await createSecret(api, 's1', secret);
    const cm = await api.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { v: plain } });
    expect(cm.status).toBe(201);
    expect(await secretValue(api, 's1')).toBe(secret);
    await api.server.close();

    const storeDir = join(dataDir, 'store');
    // The unconfigured ConfigMap is found by the same grep: the files are readable as they are.
    expect(grepDir(storeDir, plain).length).toBeGreaterThan(0);
    expect(grepDir(storeDir, secret)).toEqual([]);
    expect(grepDir(storeDir, b64(secret))).toEqual([]);
    const raw = await openMemoryStore({ dataDir: storeDir });
    try {
      const kv = (await raw.get('/registry/secrets/default/s1')).kv!;
      expect(Buffer.from(kv.value).subarray(0, 31).toString('latin1')).toBe('platform:enc:secretbox:v1:key1:');
    } finally {
      await raw.close();
    }
  });

  it('refuses to start with a wrong key, naming the objects it cannot read', async () => {
    const dataDir = tempDir('enc-wrongkey-');
    const file = join(tempDir('enc-cfg-'), 'enc.yaml');
    writeConfig(file, [aesgcm(['key1', KEY1])]);
    const api = await start(dataDir, { encryption: { file, automaticReload: false } });
    await createSecret(api, 'a', canary());
    await api.server.close();
    writeConfig(file, [aesgcm(['key1', KEY2])]);
    await expect(start(dataDir, { encryption: { file, automaticReload: false } })).rejects.toThrow(
      /1 of \d+ stored objects cannot be read with the configured providers .*\/registry\/secrets\/default\/a: cipher: message authentication failed/,
    );
    // aescbc (no integrity): the wrong key is caught too.
    const dir2 = tempDir('enc-wrongkey-cbc-');
    writeConfig(file, [aescbc(['key1', KEY1])]);
    const api2 = await start(dir2, { encryption: { file, automaticReload: false } });
    for (let i = 0; i < 5; i++) await createSecret(api2, `s${i}`, canary());
    await api2.server.close();
    writeConfig(file, [aescbc(['key1', KEY2])]);
    await expect(start(dir2, { encryption: { file, automaticReload: false } })).rejects.toThrow(/5 of \d+ stored objects cannot be read/);
    // Encrypted data with no provider for it at all (the file dropped the resource): refused as well.
    writeConfig(file, ['identity: {}'], ['configmaps']);
    await expect(start(dir2, { encryption: { file, automaticReload: false } })).rejects.toThrow(/identity transformer tried to read encrypted data/);
  });
});

describeEtcd('encryption at rest: etcd', () => {
  let etcd: EtcdCluster;
  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await etcd?.stop();
  });

  const etcdGet = (key: string): Buffer =>
    execFileSync('etcdctl', [`--endpoints=${etcd.endpoints.join(',')}`, 'get', key, '--print-value-only'], { env: { ...process.env, ETCDCTL_API: '3' } });
  const config = (file: string, automaticReload = false): Partial<ServerConfig> => ({
    storage: { backend: 'etcd', endpoints: [...etcd.endpoints] },
    storagePrefix: `/t${randomBytes(4).toString('hex')}`,
    groupDomain: 'k8s.io',
    encryption: { file, automaticReload },
  });

  it('etcdctl get shows the k8s:enc: prefix and no plaintext', async () => {
    const file = join(tempDir('enc-cfg-'), 'enc.yaml');
    writeConfig(file, [aesgcm(['key1', KEY1])]);
    const cfg = config(file);
    const api = await start(tempDir('enc-etcd-'), cfg);
    const secret = canary();
    await createSecret(api, 's1', secret);
    const raw = etcdGet(`${cfg.storagePrefix}/secrets/default/s1`);
    expect(raw.subarray(0, 23).toString('latin1')).toBe('k8s:enc:aesgcm:v1:key1:');
    expect(raw.includes(Buffer.from(secret))).toBe(false);
    expect(raw.includes(Buffer.from(b64(secret)))).toBe(false);
    expect(await secretValue(api, 's1')).toBe(secret);
    // Lists and watches (from the watch cache) see plaintext too.
    const list = await api.call('GET', '/api/v1/namespaces/default/secrets');
    expect(Buffer.from(list.json.items[0].data.password, 'base64').toString()).toBe(secret);
    // kube's transformation metrics count the writes and reads by provider prefix.
    const metrics = (await api.call('GET', '/metrics')).body;
    expect(metrics).toMatch(/^apiserver_storage_transformation_operations_total\{transformation_type="to_storage",transformer_prefix="k8s:enc:aesgcm:v1:",status="OK"\} [1-9]/m);
    expect(metrics).toMatch(/^apiserver_storage_transformation_duration_seconds_count\{transformation_type="from_storage",transformer_prefix="k8s:enc:aesgcm:v1:"\} [1-9]/m);
  });

  it('rotates keys: add key2, move it first, migrate, remove key1; every Secret stays readable', async () => {
    const file = join(tempDir('enc-cfg-'), 'enc.yaml');
    const cfg = config(file);
    const dataDir = tempDir('enc-rotate-');
    const rawPrefix = (name: string, ns = 'default'): string => etcdGet(`${cfg.storagePrefix}/secrets/${ns}/${name}`).subarray(0, 23).toString('latin1');
    const values = new Map<string, string>();

    writeConfig(file, [aescbc(['key1', KEY1]), 'identity: {}']);
    let api = await start(dataDir, cfg);
    for (let i = 0; i < 6; i++) {
      const v = canary();
      values.set(`s${i}`, v);
      await createSecret(api, `s${i}`, v);
    }
    expect(rawPrefix('s0')).toBe('k8s:enc:aescbc:v1:key1:');
    await api.server.close();

    // 1. key2 added second: every replica can read it before any writes with it.
    writeConfig(file, [aescbc(['key1', KEY1], ['key2', KEY2]), 'identity: {}']);
    api = await start(dataDir, cfg);
    await api.server.close();
    // 2. key2 first: new writes use it; old objects still read (stale).
    writeConfig(file, [aescbc(['key2', KEY2], ['key1', KEY1]), 'identity: {}']);
    api = await start(dataDir, cfg);
    await createSecret(api, 'fresh', canary());
    expect(rawPrefix('fresh')).toBe('k8s:enc:aescbc:v1:key2:');
    expect(rawPrefix('s0')).toBe('k8s:enc:aescbc:v1:key1:');
    // An unchanged PUT of an object already under key2 writes nothing (same resourceVersion).
    const fresh = await api.call('GET', '/api/v1/namespaces/default/secrets/fresh');
    const same = await api.call('PUT', '/api/v1/namespaces/default/secrets/fresh', fresh.json);
    expect(same.json.metadata.resourceVersion).toBe(fresh.json.metadata.resourceVersion);

    // 3. migrate: kube's documented kubectl pipeline for half, the script for the rest.
    const kubeconfig = api.server.kubeconfigPath!;
    // Asynchronously: the server runs in this process.
    const replaced = await execAsync(`kubectl --kubeconfig ${kubeconfig} get secret s0 s1 s2 -n default -o json | kubectl --kubeconfig ${kubeconfig} replace -f -`);
    expect(replaced.stdout.trim().split('\n')).toEqual(['secret/s0 replaced', 'secret/s1 replaced', 'secret/s2 replaced']);
    expect(['s0', 's1', 's2', 's3'].map((n) => rawPrefix(n))).toEqual(['k8s:enc:aescbc:v1:key2:', 'k8s:enc:aescbc:v1:key2:', 'k8s:enc:aescbc:v1:key2:', 'k8s:enc:aescbc:v1:key1:']);
    const result = await migrateStorage(connectionFromKubeconfig(kubeconfig), ['secrets']);
    expect(result.failed).toBe(0);
    expect(result.resources.secrets!.rewritten).toBe(3);
    for (const name of values.keys()) expect(rawPrefix(name)).toBe('k8s:enc:aescbc:v1:key2:');
    // Run again: nothing is stale any more, nothing is rewritten.
    expect((await migrateStorage(connectionFromKubeconfig(kubeconfig), ['secrets'])).rewritten).toBe(0);
    await api.server.close();

    // 4. key1 removed: everything still reads.
    writeConfig(file, [aescbc(['key2', KEY2]), 'identity: {}']);
    api = await start(dataDir, cfg);
    for (const [name, v] of values) expect(await secretValue(api, name)).toBe(v);
    await api.server.close();

    // key1 removed BEFORE migrating (an object still under key1): the start fails, naming it and only it.
    writeConfig(file, [aescbc(['key1', KEY1], ['key2', KEY2]), 'identity: {}']);
    api = await start(dataDir, cfg);
    await createSecret(api, 'late', canary());
    await api.server.close();
    writeConfig(file, [aescbc(['key2', KEY2]), 'identity: {}']);
    await expect(start(dataDir, cfg)).rejects.toThrow(/: 1 of \d+ stored objects cannot be read .*\/secrets\/default\/late: no matching key was found for the provided AES transformer$/);
  });

  it('turns encryption on for objects stored before (identity reads them, the migration encrypts them)', async () => {
    const file = join(tempDir('enc-cfg-'), 'enc.yaml');
    const cfg = config(file);
    const dataDir = tempDir('enc-on-');
    const { encryption: _none, ...plainCfg } = cfg;
    let api = await start(dataDir, plainCfg);
    const values = [canary(), canary()];
    for (const [i, v] of values.entries()) {
      const res = await api.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { v } });
      expect(res.status).toBe(201);
    }
    expect(etcdGet(`${cfg.storagePrefix}/configmaps/default/c0`).includes(Buffer.from(values[0]!))).toBe(true);
    await api.server.close();

    writeConfig(file, [secretbox(['key1', KEY1]), 'identity: {}'], ['configmaps']);
    api = await start(dataDir, cfg);
    const result = await migrateStorage(connectionFromKubeconfig(api.server.kubeconfigPath!), ['configmaps']);
    expect(result.failed).toBe(0);
    // Both of ours, and whatever the server itself keeps as ConfigMaps (kube-root-ca.crt ...).
    expect(result.rewritten).toBe(result.seen);
    for (const [i, v] of values.entries()) {
      const raw = etcdGet(`${cfg.storagePrefix}/configmaps/default/c${i}`);
      expect(raw.subarray(0, 26).toString('latin1')).toBe('k8s:enc:secretbox:v1:key1:');
      expect(raw.includes(Buffer.from(v))).toBe(false);
      const res = await api.call('GET', `/api/v1/namespaces/default/configmaps/c${i}`);
      expect(res.json.data.v).toBe(v);
    }
  });

  it('reloads the file without a restart; a bad file keeps the configuration in force', async () => {
    const file = join(tempDir('enc-cfg-'), 'enc.yaml');
    const cfg = config(file, true);
    writeConfig(file, [aesgcm(['key1', KEY1]), 'identity: {}']);
    const log = memoryLogger();
    const api = await start(tempDir('enc-reload-'), cfg, log.logger);
    const rawPrefix = (name: string): string => etcdGet(`${cfg.storagePrefix}/secrets/default/${name}`).subarray(0, 23).toString('latin1');
    const reloads = async (status: string): Promise<number> => {
      const m = await api.call('GET', '/metrics');
      const line = m.body.split('\n').find((l) => l.startsWith(`apiserver_encryption_config_controller_automatic_reloads_total{status="${status}"`));
      return line === undefined ? 0 : Number(line.split(' ').pop());
    };
    await createSecret(api, 'before', canary());
    expect(rawPrefix('before')).toBe('k8s:enc:aesgcm:v1:key1:');

    writeConfig(file, [aesgcm(['key2', KEY2], ['key1', KEY1]), 'identity: {}']);
    await eventually(async () => (await reloads('success')) === 1, 'a successful reload');
    await createSecret(api, 'after', canary());
    expect(rawPrefix('after')).toBe('k8s:enc:aesgcm:v1:key2:');

    // A bad file: logged, counted, and the configuration in force stays (key2 still writes).
    writeFileSync(file, 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: []\n');
    await eventually(async () => (await reloads('failure')) === 1, 'a failed reload');
    expect(log.lines().some((l) => l.includes('failed to process encryption config') && l.includes('at least one resources is required'))).toBe(true);
    await createSecret(api, 'still', canary());
    expect(rawPrefix('still')).toBe('k8s:enc:aesgcm:v1:key2:');

    // key1 removed by a reload before migrating: reading an object still under key1 fails, naming it.
    writeConfig(file, [aesgcm(['key2', KEY2]), 'identity: {}']);
    await eventually(async () => (await reloads('success')) === 2, 'the second successful reload');
    const res = await api.call('GET', '/api/v1/namespaces/default/secrets/before');
    expect(res.status).toBe(500);
    expect(res.json.reason).toBe('InternalError');
    expect(res.json.message).toMatch(/^Internal error occurred: unable to transform key ".*\/secrets\/default\/before": no matching key was found for the provided AES transformer$/);
    expect(await secretValue(api, 'after')).toBeDefined();
  });
});
