/**
 * etcd's watch events as the contract's: a put's value in memory of its own (a slice of a shared gRPC
 * message buffer would keep the whole buffer alive in the watch cache), the previous value as it came, and a
 * delete without its previous state given a placeholder.
 */
import type { RawKeyValue } from './proto.js';
import { toWatchEvent } from './watch-events.js';

const raw = (key: string, value: Buffer, mod: number): RawKeyValue => ({ key: Buffer.from(key), value, create_revision: 3, mod_revision: mod });

test('a put\'s value sliced from a larger buffer is copied into a buffer of its own size; a value owning its buffer is kept', () => {
  const message = Buffer.alloc(8192, 0x20);
  message.write('{"kind":"ConfigMap"}', 100);
  const slice = message.subarray(100, 120);
  const prev = message.subarray(200, 210);
  const ev = toWatchEvent({ type: 'Put', kv: raw('/k', slice, 9), prev_kv: raw('/k', prev, 5) });
  expect(ev.type).toBe('put');
  expect(Buffer.from(ev.kv.value).toString()).toBe('{"kind":"ConfigMap"}');
  expect(ev.kv.value.buffer.byteLength).toBe(20);
  expect(ev.kv.value.buffer).not.toBe(message.buffer);
  expect(ev.kv).toMatchObject({ key: '/k', createRevision: 3, modRevision: 9 });
  // Writes to the message buffer afterwards (a reused buffer) do not reach the event.
  message.fill(0, 100, 120);
  expect(Buffer.from(ev.kv.value).toString()).toBe('{"kind":"ConfigMap"}');
  // The previous value is short-lived: passed through.
  expect(ev.prev?.value.buffer).toBe(message.buffer);
  const own = Buffer.from(new Uint8Array([1, 2, 3]).buffer);
  expect(toWatchEvent({ type: 'Put', kv: raw('/k', own, 10), prev_kv: null }).kv.value).toBe(own);
});

test('a delete without its previous state gets a placeholder', () => {
  const ev = toWatchEvent({ type: 'Delete', kv: raw('/k', Buffer.alloc(0), 11), prev_kv: null });
  expect(ev.type).toBe('delete');
  expect(ev.prev).toEqual({ key: '/k', value: new Uint8Array(0), createRevision: 0, modRevision: 0 });
});
