/**
 * Child process for durability.test.ts: opens the embedded store in `argv[2]` and writes until killed,
 * printing `<key> <revision>` for every write AFTER its promise resolved (i.e. acknowledged). Writes come
 * sequentially, in concurrent groups and as two-key transactions, with values of varied sizes.
 * Optional `argv[3]`: snapshotEveryRecords (small values force snapshots mid-stream).
 *
 * stdout to a pipe is synchronous on Linux, so a line the parent reads was written after the ack.
 */
import { openMemoryStore } from '../../storage/memory/memory-store.js';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (dataDir === undefined) throw new Error('usage: durability-writer <dataDir> [snapshotEveryRecords]');
  const every = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
  const store = await openMemoryStore({ dataDir, snapshotEveryRecords: every });
  const ack = (key: string, revision: number): void => {
    process.stdout.write(`${key} ${revision}\n`);
  };
  const value = (i: number): Uint8Array => {
    const size = i % 50 === 0 ? 64 * 1024 : 16 + (i % 200);
    const v = new Uint8Array(size);
    v.fill(i & 0xff);
    return v;
  };
  for (let i = 0; ; i++) {
    const mode = i % 3;
    if (mode === 0) {
      const key = `/registry/seq/k-${i}`;
      ack(key, (await store.create(key, value(i))).revision);
    } else if (mode === 1) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, j) => {
          const key = `/registry/conc/k-${i}-${j}`;
          ack(key, (await store.create(key, value(i + j))).revision);
        }),
      );
    } else {
      const keys = [`/registry/txn/k-${i}-a`, `/registry/txn/ü-${i}-b`];
      const r = await store.txn(
        keys.map((key) => ({ key, modRevision: 0 })),
        keys.map((key) => ({ type: 'put' as const, key, value: value(i) })),
      );
      if (!r.succeeded) throw new Error('txn failed');
      for (const key of keys) ack(key, r.revision);
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
