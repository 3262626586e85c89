/** The work queue's client-go semantics: dedup, one sync per key at a time, re-sync when added meanwhile, back-off, stop. */
import { startWorkQueue, keyOf, splitKey } from './work-queue.js';

const deferred = (): { promise: Promise<void>; resolve: () => void } => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

test('a key waits once however often it is added, and is synced again when added while syncing', async () => {
  const synced: string[] = [];
  const gate = deferred();
  const done = deferred();
  let calls = 0;
  const q = startWorkQueue(async (key) => {
    synced.push(key);
    calls++;
    if (calls === 1) await gate.promise;
    if (calls === 2) done.resolve();
  });
  q.add('a'); // syncing, blocked on the gate
  q.add('a');
  q.add('a');
  expect(q.length).toBe(1);
  gate.resolve();
  await done.promise;
  expect(synced).toEqual(['a', 'a']);
  await q.stop();
});

test('workers sync different keys at once, never the same key twice at once', async () => {
  let inFlight = 0;
  let most = 0;
  const perKey = new Map<string, number>();
  const all = deferred();
  let count = 0;
  const q = startWorkQueue(
    async (key) => {
      inFlight++;
      perKey.set(key, (perKey.get(key) ?? 0) + 1);
      expect(perKey.get(key)).toBe(1);
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      perKey.set(key, perKey.get(key)! - 1);
      inFlight--;
      if (++count === 4) all.resolve();
    },
    { workers: 3 },
  );
  for (const k of ['a', 'b', 'c', 'd']) q.add(k);
  await all.promise;
  expect(most).toBe(3);
  await q.stop();
});

test('a failing sync is reported and retried with growing delays, then forgotten on success', async () => {
  const errors: string[] = [];
  const done = deferred();
  let calls = 0;
  const q = startWorkQueue(
    async () => {
      calls++;
      if (calls < 4) throw new Error(`fail ${calls}`);
      done.resolve();
    },
    { baseDelayMs: 1, onError: (err, key) => errors.push(`${key}: ${(err as Error).message}`) },
  );
  q.add('k');
  await done.promise;
  expect(errors).toEqual(['k: fail 1', 'k: fail 2', 'k: fail 3']);
  await new Promise((r) => setImmediate(r));
  expect(q.retries('k')).toBe(0);
  await q.stop();
});

test('addAfter keeps the earliest delay; stop drops waiting keys', async () => {
  const synced: string[] = [];
  const done = deferred();
  const q = startWorkQueue(async (key) => {
    synced.push(key);
    done.resolve();
  });
  q.addAfter('late', 60_000);
  q.addAfter('late', 1);
  await done.promise;
  expect(synced).toEqual(['late']);
  q.addAfter('never', 5);
  await q.stop();
  q.add('after-stop');
  await new Promise((r) => setTimeout(r, 20));
  expect(synced).toEqual(['late']);
});

test('keys', () => {
  expect(keyOf({ metadata: { namespace: 'ns', name: 'x' } })).toBe('ns/x');
  expect(keyOf({ metadata: { name: 'node-1' } })).toBe('node-1');
  expect(splitKey('ns/x')).toEqual({ namespace: 'ns', name: 'x' });
  expect(splitKey('node-1')).toEqual({ namespace: '', name: 'node-1' });
});
