/**
 * Benchmark part 1: Store throughput. The same operations through the raw etcd3 client, the etcd backend
 * (storage/etcd) and the embedded store (storage/memory), in one run against one etcd.
 *
 *   create  txn "create if absent", 1 KiB values, at concurrency 1 / 16 / 64
 *   get     linearizable single-key reads at concurrency 64
 *   list    a full prefix range of 10,000 x 1 KiB values
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import type { Store } from '../storage/interface.js';
import { openEtcdStore } from '../storage/etcd/etcd-store.js';
import { openMemoryStore } from '../storage/memory/memory-store.js';
import { startEtcd } from '../test/harness/etcd.js';
import { fmt, measure, medianMs, table } from './measure.js';

/** The three operations every target performs. */
interface Target {
  readonly name: string;
  create(key: string, value: Buffer): Promise<unknown>;
  get(key: string): Promise<unknown>;
  /** Returns the number of items listed, so the bench can check it read them all. */
  list(prefix: string): Promise<number>;
  close(): Promise<void>;
}

function rawEtcd(endpoints: readonly string[]): Target {
  const client = new Etcd3({
    hosts: [...endpoints],
    grpcOptions: { 'grpc.max_receive_message_length': -1 },
  });
  return {
    name: 'raw etcd3',
    create: (key, value) => client.if(key, 'Create', '==', 0).then(client.put(key).value(value)).else(client.get(key)).commit(),
    get: (key) => client.get(key).buffer(),
    list: async (prefix) => Object.keys(await client.getAll().prefix(prefix).buffers()).length,
    close: async () => client.close(),
  };
}

function storeTarget(name: string, store: Store, cleanup: () => Promise<void> = async () => undefined): Target {
  return {
    name,
    create: (key, value) => store.create(key, value),
    get: (key) => store.get(key),
    list: async (prefix) => (await store.list(prefix)).items.length,
    close: async () => {
      await store.close();
      await cleanup();
    },
  };
}

export interface StoreBenchOptions {
  readonly scale?: number;
}

/** Runs part 1 and returns its markdown section. */
export async function benchStores(options: StoreBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const n = (base: number): number => Math.max(10, Math.round(base * scale));
  const cluster = await startEtcd();
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const targets: Target[] = [
    rawEtcd(cluster.endpoints),
    storeTarget('etcd backend', await openEtcdStore({ endpoints: cluster.endpoints })),
    storeTarget('embedded', await openMemoryStore({ dataDir: dir }), async () => rmSync(dir, { recursive: true, force: true })),
  ];
  const value = Buffer.alloc(1024, 'x');
  const rows: string[][] = [];
  const row = (label: string, results: number[], unit: string): void => {
    const [raw, backend, embedded] = results as [number, number, number];
    rows.push([label, `${fmt(raw)} ${unit}`, `${fmt(backend)} ${unit}`, `${fmt((backend / raw) * 100)}%`, `${fmt(embedded)} ${unit}`, `${fmt(embedded / backend, 1)}x`]);
  };

  // Each workload runs ROUNDS times with the targets in rotating order (no target always goes first on a
  // cold etcd); the median round counts.
  const ROUNDS = 3;
  const rotated = (round: number): [number, Target][] =>
    targets.map((_, i) => (i + round) % targets.length).map((t) => [t, targets[t]!] as [number, Target]);
  const medianOf = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const workload = async (label: string, unit: string, run: (t: number, target: Target, round: number) => Promise<number>): Promise<void> => {
    const samples: number[][] = targets.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [t, target] of rotated(round)) samples[t]!.push(await run(t, target, round));
    }
    row(label, samples.map(medianOf), unit);
  };

  try {
    // Warm-up: connections, JIT, etcd's first allocations.
    for (const [t, target] of targets.entries()) await measure(n(2000), 16, (i) => target.create(`/bench/t${t}/warm/${i}`, value));

    for (const [concurrency, count] of [[1, n(1000)], [16, n(4000)], [64, n(4000)]] as const) {
      await workload(`create, c=${concurrency}`, 'ops/s', async (t, target, round) =>
        (await measure(count, concurrency, (i) => target.create(`/bench/t${t}/create-c${concurrency}-r${round}/${i}`, value))).opsPerSecond);
    }

    const getKeys = n(4000);
    await workload('get, c=64', 'ops/s', async (t, target) =>
      (await measure(n(4000), 64, (i) => target.get(`/bench/t${t}/create-c64-r0/${i % getKeys}`))).opsPerSecond);

    const listSize = n(10_000);
    for (const [t, target] of targets.entries()) {
      await measure(listSize, 64, (i) => target.create(`/bench/t${t}/list/${String(i).padStart(6, '0')}`, value));
    }
    await workload(`list ${fmt(listSize)} x 1 KiB`, 'lists/s', async (t, target) => {
      const ms = await medianMs(5, async () => {
        const got = await target.list(`/bench/t${t}/list/`);
        if (got !== listSize) throw new Error(`${target.name} listed ${got} of ${listSize}`);
      });
      return 1000 / ms;
    });
  } finally {
    for (const t of targets) await t.close();
    await cluster.stop();
  }

  return [
    '### Part 1: Store throughput',
    '',
    table(['operation', 'raw etcd3', 'etcd backend', 'backend / raw', 'embedded', 'embedded / etcd backend'], rows),
  ].join('\n');
}
