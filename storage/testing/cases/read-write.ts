import { type SuiteContext, enc, expectStorageError, watchFrom, valueOf } from '../helpers.js';

export function defineReadWriteCases(ctx: SuiteContext): void {
  describe('get, create, update, delete', () => {
    test('get of a missing key is undefined at the current revision', async () => {
      const s = ctx.store();
      const rev = await s.currentRevision();
      const res = await s.get(`${ctx.prefix()}missing`);
      expect(res.kv).toBeUndefined();
      expect(res.revision).toBeGreaterThanOrEqual(rev);
    });

    test('create returns the revision that get reports as create and mod revision', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const { revision } = await s.create(key, enc('one'));
      const { kv } = await s.get(key);
      expect(kv).toEqual({ key, value: expect.anything(), createRevision: revision, modRevision: revision });
      expect(valueOf(kv)).toBe('one');
      expect(await s.currentRevision()).toBeGreaterThanOrEqual(revision);
    });

    test('create of an existing key is AlreadyExists carrying the current value', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const { revision } = await s.create(key, enc('first'));
      const err = await expectStorageError(s.create(key, enc('second')), 'AlreadyExists');
      expect(err.current?.modRevision).toBe(revision);
      expect(valueOf(err.current)).toBe('first');
      expect(valueOf((await s.get(key)).kv)).toBe('first');
    });

    test('every write gets a strictly greater revision', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const revs: number[] = [];
      for (let i = 0; i < 5; i++) revs.push((await s.create(`${p}${i}`, enc('x'))).revision);
      revs.push((await s.update(`${p}0`, enc('y'), revs[0]!)).revision);
      revs.push((await s.delete(`${p}1`)).revision);
      for (let i = 1; i < revs.length; i++) expect(revs[i]!).toBeGreaterThan(revs[i - 1]!);
      expect(await s.currentRevision()).toBeGreaterThanOrEqual(revs.at(-1)!);
    });

    test('update with the current modRevision writes and keeps createRevision', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const created = await s.create(key, enc('v1'));
      const updated = await s.update(key, enc('v2'), created.revision);
      expect(updated.revision).toBeGreaterThan(created.revision);
      const { kv } = await s.get(key);
      expect(kv?.createRevision).toBe(created.revision);
      expect(kv?.modRevision).toBe(updated.revision);
      expect(valueOf(kv)).toBe('v2');
    });

    test('update with a stale modRevision is Conflict carrying the fresh value, and changes nothing', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const created = await s.create(key, enc('v1'));
      const updated = await s.update(key, enc('v2'), created.revision);
      const before = await s.currentRevision();
      const err = await expectStorageError(s.update(key, enc('v3'), created.revision), 'Conflict');
      expect(err.current?.modRevision).toBe(updated.revision);
      expect(valueOf(err.current)).toBe('v2');
      expect(valueOf((await s.get(key)).kv)).toBe('v2');
      expect(await s.currentRevision()).toBe(before);
    });

    test('update of a missing key is NotFound', async () => {
      const s = ctx.store();
      await expectStorageError(s.update(`${ctx.prefix()}nope`, enc('x'), 1), 'NotFound');
    });

    test('delete returns the previous value and the key is gone', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const created = await s.create(key, enc('bye'));
      const res = await s.delete(key);
      expect(res.revision).toBeGreaterThan(created.revision);
      expect(res.prev.modRevision).toBe(created.revision);
      expect(valueOf(res.prev)).toBe('bye');
      expect((await s.get(key)).kv).toBeUndefined();
    });

    test('delete of a missing key is NotFound and consumes no revision', async () => {
      const s = ctx.store();
      const before = await s.currentRevision();
      await expectStorageError(s.delete(`${ctx.prefix()}nope`), 'NotFound');
      await expectStorageError(s.delete(`${ctx.prefix()}nope`, 5), 'NotFound');
      expect(await s.currentRevision()).toBe(before);
    });

    test('delete with a stale expected revision is Conflict and keeps the key', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const created = await s.create(key, enc('v1'));
      const updated = await s.update(key, enc('v2'), created.revision);
      const err = await expectStorageError(s.delete(key, created.revision), 'Conflict');
      expect(err.current?.modRevision).toBe(updated.revision);
      expect(valueOf((await s.get(key)).kv)).toBe('v2');
    });

    test('delete with the matching expected revision deletes', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const created = await s.create(key, enc('v1'));
      const res = await s.delete(key, created.revision);
      expect(res.prev.modRevision).toBe(created.revision);
      expect((await s.get(key)).kv).toBeUndefined();
    });

    test('a key created again after a delete has a new createRevision', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const first = await s.create(key, enc('v1'));
      await s.delete(key);
      const second = await s.create(key, enc('v2'));
      const { kv } = await s.get(key);
      expect(kv?.createRevision).toBe(second.revision);
      expect(kv?.createRevision).not.toBe(first.revision);
    });

    test('get at an old revision returns the value of that revision', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}a`;
      const r1 = (await s.create(key, enc('v1'))).revision;
      const r2 = (await s.update(key, enc('v2'), r1)).revision;
      const r3 = (await s.delete(key)).revision;
      expect(valueOf((await s.get(key, { revision: r1 })).kv)).toBe('v1');
      expect(valueOf((await s.get(key, { revision: r2 })).kv)).toBe('v2');
      expect((await s.get(key, { revision: r2 })).revision).toBe(r2);
      expect((await s.get(key, { revision: r3 })).kv).toBeUndefined();
      expect((await s.get(key, { revision: r1 - 1 })).kv).toBeUndefined();
    });

    test('get at a future revision is FutureRevision', async () => {
      const s = ctx.store();
      const current = await s.currentRevision();
      await expectStorageError(s.get(`${ctx.prefix()}a`, { revision: current + 1000 }), 'FutureRevision');
    });

    test('an empty value round-trips', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}empty`;
      await s.create(key, new Uint8Array(0));
      const { kv } = await s.get(key);
      expect(kv).toBeDefined();
      expect(kv?.value.length).toBe(0);
    });

    test('a 1 MiB value round-trips through get, list and watch', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const big = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
      const w = watchFrom(s, p);
      try {
        const { revision } = await s.create(`${p}big`, big);
        expect(Buffer.from((await s.get(`${p}big`)).kv!.value).equals(big)).toBe(true);
        expect(Buffer.from((await s.list(p)).items[0]!.value).equals(big)).toBe(true);
        await w.untilEvents(1);
        expect(w.events[0]!.kv.modRevision).toBe(revision);
        expect(Buffer.from(w.events[0]!.kv.value).equals(big)).toBe(true);
      } finally {
        await w.stop();
      }
    });

    test('unicode keys round-trip and list in UTF-8 byte order', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      // UTF-16 order would put the astral emoji before U+FFFD; byte order (etcd's) puts it after.
      const names = ['zebra', 'Ärger', '日本語', 'a\uFFFD', 'a😀', 'ñandú', 'Z'];
      for (const n of names) await s.create(`${p}${n}`, enc(n));
      const listed = (await s.list(p)).items.map((kv) => kv.key.slice(p.length));
      const byteOrder = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      expect(listed).toEqual(byteOrder);
      for (const n of names) expect(valueOf((await s.get(`${p}${n}`)).kv)).toBe(n);
    });

    test('check() passes on a healthy store', async () => {
      await expect(ctx.store().check()).resolves.toBeUndefined();
    });
  });
}
