import { EventEmitter } from 'node:events';
import type { WatchBatch } from '../interface.js';
import { CompactionTracker } from './compaction.js';
import type { RawWatchStream } from './etcd-connection.js';
import type { RawWatchRequest, RawWatchResponse } from './proto.js';
import { Watcher, type WatchHost } from './watcher.js';
import { WatchStream } from './watch-stream.js';

/**
 * The order etcd < 3.4.25 can produce and a real etcd produces only by chance (etcd#15220): the answer to a
 * progress request sent on the stream ahead of an event etcd already held for the watcher. Scripted here as
 * etcd's messages, so each interleaving is certain.
 */
class ScriptedStream extends EventEmitter implements RawWatchStream {
  readonly written: RawWatchRequest[] = [];
  write(message: unknown): boolean {
    this.written.push(message as RawWatchRequest);
    return true;
  }
  end(): void {}
  cancel(): void {}
  progressRequests(): number {
    return this.written.filter((m) => 'progress_request' in m).length;
  }
  answer(revision: number): void {
    this.emit('data', { watch_id: '-1', header: { revision: String(revision) }, events: [] } as unknown as RawWatchResponse);
  }
  created(id: number, revision: number): void {
    this.emit('data', { watch_id: String(id), created: true, header: { revision: String(revision) }, events: [] } as unknown as RawWatchResponse);
  }
  event(id: number, key: string, revision: number): void {
    const kv = { key: Buffer.from(key), value: Buffer.from('v'), create_revision: String(revision), mod_revision: String(revision) };
    this.emit('data', { watch_id: String(id), header: { revision: String(revision) }, events: [{ type: 'PUT', kv }] } as unknown as RawWatchResponse);
  }
}

function setUp(fromRevision: number): { raw: ScriptedStream; stream: WatchStream; batches: WatchBatch[]; watcher: Watcher } {
  const raw = new ScriptedStream();
  const host: WatchHost = { release: () => undefined, resume: () => undefined };
  const watcher = new Watcher('/p/', fromRevision, 100, host, new CompactionTracker(), undefined);
  const stream = new WatchStream(raw, () => undefined, () => undefined);
  stream.add(watcher);
  const batches: WatchBatch[] = [];
  void (async () => {
    for await (const b of watcher) batches.push(b);
  })();
  return { raw, stream, batches, watcher };
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));
const summary = (batches: readonly WatchBatch[]): string[] =>
  batches.map((b) => (b.events.length === 0 ? `progress@${b.revision}` : `events@${b.revision}`));

describe('etcd watch: a progress broadcast is passed on only once a later answer confirms it', () => {
  test('an answer that overtook an event: the event first, then the progress, after one confirming request', async () => {
    const { raw, stream, batches } = setUp(11);
    raw.created(1, 10);
    stream.requestProgress();
    expect(raw.progressRequests()).toBe(1);
    raw.answer(12); // etcd sent it ahead of the event at 12 it already held
    await flush();
    expect(batches).toEqual([]);
    expect(raw.progressRequests()).toBe(2); // the confirming request, sent after the answer arrived
    raw.event(1, '/p/a', 12);
    raw.answer(12);
    await flush();
    expect(summary(batches)).toEqual(['events@12', 'progress@12']);
  });

  test('a quiet prefix: the revision is passed on at the confirming answer, and the confirmation asks no more', async () => {
    const { raw, stream, batches } = setUp(11);
    raw.created(1, 10);
    stream.requestProgress();
    raw.answer(15);
    await flush();
    expect(batches).toEqual([]);
    raw.answer(17); // the confirmation: 15 is now safe, 17 becomes the next candidate
    await flush();
    expect(summary(batches)).toEqual(['progress@15']);
    expect(raw.progressRequests()).toBe(2);
    stream.requestProgress();
    raw.answer(17);
    await flush();
    expect(summary(batches)).toEqual(['progress@15', 'progress@17']);
  });

  test('two requests sent before the first answer: the second answer does not confirm the first', async () => {
    const { raw, stream, batches } = setUp(11);
    raw.created(1, 10);
    stream.requestProgress();
    stream.requestProgress();
    raw.answer(12);
    raw.answer(12); // its request left before answer 1 arrived: it may have overtaken the event too
    await flush();
    expect(batches).toEqual([]);
    raw.event(1, '/p/a', 12);
    raw.answer(13);
    await flush();
    expect(summary(batches)).toEqual(['events@12']);
  });

  test('an answer at the last delivered event needs no confirmation; a watcher still catching up takes none', async () => {
    const { raw, stream, batches } = setUp(5);
    raw.created(1, 10); // started below the current revision: etcd syncs it later
    stream.requestProgress();
    raw.answer(10);
    await flush();
    expect(batches).toEqual([]);
    expect(raw.progressRequests()).toBe(1);
    raw.event(1, '/p/a', 10); // caught up: an event at its creation revision
    stream.requestProgress();
    raw.answer(10);
    await flush();
    expect(summary(batches)).toEqual(['events@10', 'progress@10']);
  });
});
