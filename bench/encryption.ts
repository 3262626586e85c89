/**
 * Benchmark part `encryption` (`--only=encryption`): what encryption at rest costs
 * (`--encryption-provider-config`, docs/encryption.md), for each provider against none and identity:
 *
 *   transform   one Secret of ~1 KiB of JSON through the provider alone (apiserver/encryption/providers.ts
 *               as the server builds it, prefixes included): microseconds per write (toStorage) and per read
 *               (fromStorage), median of rounds
 *   API         a server in this process on the embedded store (in a temporary data dir) with `secrets`
 *               configured: Secret creates at concurrency 16, then GETs without resourceVersion (read from
 *               the store, so decrypted each time) at concurrency 16; requests per second, p50 and p99.
 *               The load generator shares the process (and its event loop) with the server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { adminTokenPath } from '../apiserver/auth/admin-credentials.js';
import { defaultConfig } from '../apiserver/config/server-config.js';
import { parseEncryptionConfig } from '../apiserver/encryption/encryption-config.js';
import { compileConfig } from '../apiserver/encryption/resource-transformers.js';
import { createLogger } from '../apiserver/log/logger.js';
import { startServer } from '../apiserver/server/start-server.js';
import { benchClient } from './http-client.js';
import { fmt, measure, table } from './measure.js';

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

async function apiRows(scale: number): Promise<string[][]> {
  const creates = Math.max(100, Math.round(2000 * scale));
  const gets = Math.max(200, Math.round(4000 * scale));
  const rows: string[][] = [];
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
    try {
      const bodies = Array.from({ length: creates }, (_, i) => Buffer.from(JSON.stringify(secret(`s-${i}`))));
      const c = await measure(creates, 16, (i) => client.call('POST', '/api/v1/namespaces/default/secrets', 201, bodies[i]));
      const g = await measure(gets, 16, (i) => client.call('GET', `/api/v1/namespaces/default/secrets/s-${i % creates}`, 200));
      rows.push([p.name, fmt(c.opsPerSecond), fmt(c.p50Ms, 1), fmt(c.p99Ms, 1), fmt(g.opsPerSecond), fmt(g.p50Ms, 1), fmt(g.p99Ms, 1)]);
    } finally {
      client.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
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
    'Through the API (server in this process, embedded store, `secrets` configured; creates then GETs without resourceVersion, which read and decrypt from the store; concurrency 16):',
    '',
    table(['provider', 'create/s', 'create p50 ms', 'create p99 ms', 'GET/s', 'GET p50 ms', 'GET p99 ms'], api),
  ].join('\n');
}
