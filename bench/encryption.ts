/**
 * Benchmark part `encryption` (`--only=encryption`): what encryption at rest costs
 * (`--encryption-provider-config`, docs/encryption.md), for each provider against none and identity:
 *
 *   transform   one Secret of ~1 KiB of JSON through the provider alone (apiserver/encryption/providers.ts
 *               as the server builds it, prefixes included): microseconds per write (toStorage) and per read
 *               (fromStorage), median of rounds
 *   API         one server per provider in this process on the embedded store (temporary data dirs) with
 *               `secrets` configured; rounds visit every server in turn: Secret creates at concurrency 16,
 *               then GETs without resourceVersion (read from the store, so decrypted each time) at
 *               concurrency 16; requests per second, p50 and p99 of the median round. The load generator
 *               shares the process (and its event loop) with the servers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { adminTokenPath } from '../apiserver/auth/admin-credentials.js';
import { defaultConfig } from '../apiserver/config/server-config.js';
import { parseEncryptionConfig } from '../apiserver/encryption/encryption-config.js';
import { compileConfig } from '../apiserver/encryption/resource-transformers.js';
import { createLogger } from '../apiserver/log/logger.js';
import { startServer } from '../apiserver/server/start-server.js';
import { benchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';

export interface EncryptionBenchOptions {
  readonly scale?: number;
}

const PROVIDERS: readonly { readonly name: string; readonly provider: string | undefined }[] = [
  { name: 'none (no flag)', provider: undefined },
  { name: 'identity', provider: 'identity: {}' },
  { name: 'aescbc (32-byte key)', provider: `aescbc: {keys: [{name: key1, secret: "${randomBytes(32).toString('base64')}"}]}` },
  { name: 'aesgcm (32-byte key)', provider: `aesgcm: {keys: [{name: key1, secret: "${randomBytes(32).toString('base64')}"}]}` },
  { name: 'secretbox', provider: `secretbox: {keys: [{name: key1, secret: "${randomBytes(32).toString('base64')}"}]}` },
];

const configText = (provider: string): string =>
  `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - ${provider}\n`;

/** A Secret of ~1 KiB of JSON as stored. */
function secret(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'default', labels: { app: 'bench' } },
    type: 'Opaque',
    data: { password: randomBytes(24).toString('base64'), 'tls.key': randomBytes(600).toString('base64') },
  };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function transformRows(scale: number): string[][] {
  const plain = new Uint8Array(Buffer.from(JSON.stringify(secret('bench'))));
  const key = '/registry/secrets/default/bench';
  const n = Math.max(200, Math.round(20_000 * scale));
  const rows: string[][] = [];
  for (const p of PROVIDERS) {
    if (p.provider === undefined) continue;
    const t = compileConfig(parseEncryptionConfig(configText(p.provider), 'k8s.io'), 'k8s:enc:').forResource('secrets');
    const stored = t.toStorage(plain, key);
    const writes: number[] = [];
    const reads: number[] = [];
    for (let round = 0; round < 7; round++) {
      let t0 = performance.now();
      for (let i = 0; i < n; i++) t.toStorage(plain, key);
      writes.push(((performance.now() - t0) * 1000) / n);
      t0 = performance.now();
      for (let i = 0; i < n; i++) t.fromStorage(stored, key);
      reads.push(((performance.now() - t0) * 1000) / n);
    }
    rows.push([p.name, String(plain.length), String(stored.length), fmt(median(writes), 2), fmt(median(reads), 2)]);
  }
  return rows;
}

const API_ROUNDS = 5;

/**
 * One server per provider, all started first; then rounds that visit every server in turn (creates, then
 * GETs), so a load change on the shared machine hits every provider alike; the median round is reported.
 */
async function apiRows(scale: number): Promise<string[][]> {
  const creates = Math.max(20, Math.round(400 * scale));
  const gets = Math.max(40, Math.round(800 * scale));
  const started: { name: string; dir: string; close: () => Promise<void>; client: ReturnType<typeof benchClient> }[] = [];
  try {
    for (const p of PROVIDERS) {
      const dir = mkdtempSync(join(tmpdir(), 'bench-encryption-'));
      const file = join(dir, 'encryption.yaml');
      if (p.provider !== undefined) writeFileSync(file, configText(p.provider));
      const server = await startServer(
        {
          ...defaultConfig(join(dir, 'data')),
          bindAddress: '127.0.0.1',
          securePort: 0,
          compactionIntervalMs: 0,
          shutdownDelayMs: 0,
          ...(p.provider === undefined ? {} : { encryption: { file, automaticReload: false } }),
        },
        { logger: createLogger({ level: 'error' }) },
      );
      const client = benchClient({ url: server.url, token: readFileSync(adminTokenPath(join(dir, 'data')), 'utf8').trim(), caPem: server.caPem!, maxSockets: 16 });
      started.push({ name: p.name, dir, close: () => server.close(), client });
    }
    const results = started.map(() => ({ c: [] as Measurement[], g: [] as Measurement[] }));
    for (let round = 0; round < API_ROUNDS; round++) {
      for (const [i, s] of started.entries()) {
        const bodies = Array.from({ length: creates }, (_, j) => Buffer.from(JSON.stringify(secret(`s-${round}-${j}`))));
        results[i]!.c.push(await measure(creates, 16, (j) => s.client.call('POST', '/api/v1/namespaces/default/secrets', 201, bodies[j])));
        results[i]!.g.push(await measure(gets, 16, (j) => s.client.call('GET', `/api/v1/namespaces/default/secrets/s-${round}-${j % creates}`, 200)));
      }
    }
    const mid = (ms: Measurement[]): Measurement => [...ms].sort((a, b) => a.opsPerSecond - b.opsPerSecond)[Math.floor(ms.length / 2)]!;
    return started.map((s, i) => {
      const c = mid(results[i]!.c);
      const g = mid(results[i]!.g);
      return [s.name, fmt(c.opsPerSecond), fmt(c.p50Ms, 1), fmt(c.p99Ms, 1), fmt(g.opsPerSecond), fmt(g.p50Ms, 1), fmt(g.p99Ms, 1)];
    });
  } finally {
    for (const s of started) {
      s.client.close();
      await s.close();
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
}

export async function benchEncryption(options: EncryptionBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const transform = transformRows(scale);
  const api = await apiRows(scale);
  return [
    '### Encryption at rest (`--only=encryption`)',
    '',
    'One Secret of ~1 KiB of JSON through each provider alone (µs per operation, median of 7 rounds):',
    '',
    table(['provider', 'plaintext bytes', 'stored bytes', 'write µs', 'read µs'], transform),
    '',
    `Through the API (servers in this process, embedded store, \`secrets\` configured; ${API_ROUNDS} rounds visiting every server in turn, each round creates then GETs without resourceVersion, which read and decrypt from the store; concurrency 16; the median round; load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}):`,
    '',
    table(['provider', 'create/s', 'create p50 ms', 'create p99 ms', 'GET/s', 'GET p50 ms', 'GET p99 ms'], api),
  ].join('\n');
}
