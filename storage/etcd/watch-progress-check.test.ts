import { EventEmitter } from 'node:events';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { until } from '../../test/harness/until.js';
import type { WatchBatch } from '../interface.js';
import { CompactionTracker } from './compaction.js';
import { EtcdConnection, type RawWatchStream } from './etcd-connection.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';
import { prefixUnchanged, type PrefixCheck } from './prefix-unchanged.js';
import type { RawWatchRequest, RawWatchResponse } from './proto.js';
import { Watcher, type WatchHost } from './watcher.js';
import { WatchStream } from './watch-stream.js';

/**
 * The orders etcd < 3.4.25 can produce and a real etcd produces only by chance (etcd#15220): the answer to a
 * progress request sent on the stream ahead of events etcd already holds for the watcher. The stream is
 * scripted as etcd's messages, so each interleaving is certain; the writes are real, and the watcher's
 * checks read them from a real etcd.
 */
class ScriptedStream extends EventEmitter implements RawWatchStream {
  readonly written: RawWatchRequest[] = [];
  write(message: unknown): boolean {
    this.written.push(message as RawWatchRequest);
    return true;
  }
  end(): void {}
  cancel(): void {}
  answer(revision: number): void {
    this.emit('data', { watch_id: -1, header: { revision }, events: [] } as Partial<RawWatchResponse>);
  }
  created(revision: number): void {
    this.emit('data', { watch_id: 1, created: true, header: { revision }, events: [] } as Partial<RawWatchResponse>);
  }
  put(key: string, revision: number, createRevision = revision): void {
    const kv = { key: Buffer.from(key), value: Buffer.from('v'), create_revision: createRevision, mod_revision: revision };
    this.emit('data', { watch_id: 1, header: { revision }, events: [{ type: 'Put', kv, prev_kv: null }] } as Partial<RawWatchResponse>);
  }
  delete(key: string, revision: number): void {
    const kv = { key: Buffer.from(key), value: Buffer.alloc(0), create_revision: 0, mod_revision: revision };
    this.emit('data', { watch_id: 1, header: { revision }, events: [{ type: 'Delete', kv, prev_kv: null }] } as Partial<RawWatchResponse>);
  }
}

const summary = (batches: readonly WatchBatch[]): string[] =>
  batches.map((b) => (b.events.length === 0 ? `progress@${b.revision}` : `events@${b.revision}`));

describeEtcd('etcd watch: progress beyond the last event is passed on once etcd\'s state confirms it', () => {
  let cluster: EtcdCluster;
  let store: EtcdStore;
  let connection: EtcdConnection;
  let n = 0;
  const enc = (s: string): Buffer => Buffer.from(s);
  const elsewhere = async (): Promise<number> => (await store.create(`/elsewhere/${++n}`, enc('x'))).revision;

  beforeAll(async () => {
    cluster = await startEtcd();
    store = await openEtcdStore({ endpoints: cluster.endpoints });
    connection = new EtcdConnection({ endpoints: cluster.endpoints, callTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    connection?.close();
    await store?.close();
    await cluster?.stop();
  });

  /**
   * A fresh prefix holding `names` (written to etcd), and a watcher of it on a scripted stream from the
   * revision after them, created there; its checks read etcd.
   */
  async function setUp(...names: string[]) {
    const p = prefix();
    let r0 = 0;
    for (const n of names) r0 = (await store.create(`${p}${n}`, enc('1'))).revision;
    const raw = new ScriptedStream();
    const checks: { from: number; to: number; countBefore: number | undefined; result?: PrefixCheck }[] = [];
    let gate: Promise<void> = Promise.resolve();
    let wanted = true;
    let ordered = false;
    const host: WatchHost = {
      release: () => undefined,
      resume: () => undefined,
      progressOrdered: () => ordered,
      checkUnchanged: async (w, from, to, countBefore) => {
        const entry: (typeof checks)[number] = { from, to, countBefore };
        checks.push(entry);
        await gate;
        entry.result = await prefixUnchanged((req) => connection.kv('range', req, true), w.key, w.rangeEnd, from, to, countBefore);
        return entry.result;
      },
    };
    const watcher = new Watcher(p, r0 + 1, 100, host, new CompactionTracker(), undefined, () => wanted);
    const stream = new WatchStream(raw, () => undefined, () => undefined);
    stream.add(watcher);
    raw.created(r0);
    const batches: WatchBatch[] = [];
    void (async () => {
      for await (const b of watcher) batches.push(b);
    })();
    const settled = async (): Promise<void> => void await until('the checks to finish', () => checks.every((c) => c.result !== undefined));
    return {
      p, r0, raw, batches, checks, settled,
      want: (w: boolean) => { wanted = w; },
      order: (o: boolean) => { ordered = o; },
      hold: () => {
        let open!: () => void;
        gate = new Promise((r) => { open = r; });
        return open;
      },
    };
  }
  const prefix = (): string => `/progress/${++n}/`;

  test('an answer that overtook an event: no progress until the event came, then progress at it', async () => {
    const { p, raw, batches, checks, settled } = await setUp('a');
    const r1 = (await store.create(`${p}b`, enc('1'))).revision;
    raw.answer(r1); // etcd sent it ahead of the event at r1 it already held
    await settled();
    expect(checks).toHaveLength(1);
    expect(checks[0]!.result!.unchanged).toBe(false);
    expect(batches).toEqual([]);
    raw.put(`${p}b`, r1);
    raw.answer(r1); // at the last event: exact, no check
    await until('the event and the progress', () => batches.length === 2);
    expect(summary(batches)).toEqual([`events@${r1}`, `progress@${r1}`]);
    expect(checks).toHaveLength(1);
  });

  test('an answer that overtook a delete: the count at the answer differs, no progress', async () => {
    const { p, raw, batches, checks, settled } = await setUp('a', 'b');
    const r1 = (await store.delete(`${p}a`)).revision;
    const r2 = await elsewhere();
    raw.answer(r2);
    await settled();
    expect(checks.map((c) => c.result)).toEqual([{ unchanged: false, countBefore: 2 }]);
    expect(batches).toEqual([]);
    raw.delete(`${p}a`, r1);
    raw.answer(r2);
    await settled();
    await until('the event and the progress', () => batches.length === 2);
    expect(summary(batches)).toEqual([`events@${r1}`, `progress@${r2}`]);
    // The count came from the first check and was kept current by the delete: the second check read none.
    expect(checks[1]).toMatchObject({ from: r1 + 1, to: r2, countBefore: 1 });
  });

  test('a quiet prefix: progress at the answer, checked once; not checked while no one wants progress', async () => {
    const { raw, batches, checks, settled, want } = await setUp('a');
    want(false);
    const r1 = await elsewhere();
    raw.answer(r1);
    await new Promise((r) => setImmediate(r));
    expect(checks).toHaveLength(0);
    want(true);
    const r2 = await elsewhere();
    raw.answer(r2);
    await settled();
    await until('the progress', () => batches.length === 1);
    expect(summary(batches)).toEqual([`progress@${r2}`]);
    raw.answer(r2); // a repeat carries no news
    await new Promise((r) => setImmediate(r));
    expect(checks).toHaveLength(1);
  });

  test('answers during a check: only the newest is checked next; events during a check void its answer', async () => {
    const { p, r0, raw, batches, checks, settled, hold } = await setUp('a');
    let open = hold();
    const r1 = await elsewhere();
    raw.answer(r1);
    const r2 = await elsewhere();
    raw.answer(r2);
    const r3 = await elsewhere();
    raw.answer(r3);
    expect(checks.map((c) => c.to)).toEqual([r1]);
    open();
    await until('the second check', () => checks.length === 2 && checks[1]!.result !== undefined);
    expect(checks.map((c) => c.to)).toEqual([r1, r3]);
    await until('two progress batches', () => batches.length === 2);
    expect(summary(batches)).toEqual([`progress@${r1}`, `progress@${r3}`]);

    // A check in flight when an event arrives: its answer is checked again from after the event.
    open = hold();
    const r4 = (await store.create(`${p}b`, enc('1'))).revision;
    const r5 = await elsewhere();
    raw.answer(r5);
    raw.put(`${p}b`, r4);
    open();
    await settled();
    await until('the event and the progress', () => batches.length === 4);
    expect(summary(batches.slice(2))).toEqual([`events@${r4}`, `progress@${r5}`]);
    expect(checks.slice(2).map((c) => [c.from, c.to])).toEqual([[r0 + 1, r5], [r4 + 1, r5]]);
  });

  test('members that order progress: an answer beyond the last event is passed on at once, unchecked', async () => {
    const { raw, batches, checks, order, want } = await setUp('a');
    order(true);
    want(false); // wanted or not: it costs nothing
    const r1 = await elsewhere();
    raw.answer(r1);
    await until('the progress', () => batches.length === 1);
    expect(summary(batches)).toEqual([`progress@${r1}`]);
    expect(checks).toHaveLength(0);
  });
});
