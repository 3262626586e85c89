import { LIST_CHUNK_BYTES } from './encoded-list.js';
import { lazyItemsList } from './lazy-list.js';
import { JSON_MEMO_KEY, listJson, listJsonBuffer, objectJson, shareEncodings, type ItemJson } from './shared-json.js';

const configMap = (name: string, value: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: '7', labels: { 'a/b': 'c"d' } },
  data: { value },
});

const shared = <T extends object>(o: T): { object: T; memo: Map<string, unknown> } => {
  const memo = new Map<string, unknown>();
  shareEncodings(o, memo);
  return { object: o, memo };
};

describe('listJsonBuffer', () => {
  it.each([
    ['empty', { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '1' }, items: [] }],
    ['ASCII items, some shared', {
      apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' },
      items: [shared(configMap('a', 'x'.repeat(1024))).object, configMap('b', 'y'), shared(configMap('c', '')).object],
    }],
    ['non-ASCII text (2, 3 and 4 UTF-8 bytes), escapes, control characters', {
      apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' },
      items: [shared(configMap('é', 'ünïcödé 日本語 🚀 \u2028 \n\t \\ "')).object, configMap('b', '\u0001\u00ff')],
    }],
    ['paged list metadata', {
      apiVersion: 'v1', kind: 'SecretList', metadata: { resourceVersion: '3', continue: 'tok/+=', remainingItemCount: 5 },
      items: [configMap('a', 'x')],
    }],
    ['items not last, undefined and function members dropped', {
      kind: 'List', items: [shared(configMap('a', 'b')).object, null, 3, 'str'], apiVersion: 'v1', skipped: undefined,
      fn: () => 1, metadata: { resourceVersion: '1', gone: undefined },
    }],
  ])('%s: the bytes of JSON.stringify', (_name, list) => {
    const want = Buffer.from(JSON.stringify(list));
    expect(listJsonBuffer(list).equals(want)).toBe(true);
    // Again, now from the memos.
    expect(listJsonBuffer(list).equals(want)).toBe(true);
  });

  it('takes shared items from their memo (the watch encoder\'s key) and stores it there', () => {
    const a = shared(configMap('a', 'one'));
    const list = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: {}, items: [a.object] };
    const first = listJsonBuffer(list).toString();
    expect(a.memo.get(JSON_MEMO_KEY)).toBe(JSON.stringify(a.object));
    // The memo is what is sent: an encoding already made (by a watch event) is reused as it is.
    a.memo.set(JSON_MEMO_KEY, '{"memo":true}');
    a.memo.delete('json:bytes');
    expect(listJsonBuffer(list).toString()).toBe('{"apiVersion":"v1","kind":"ConfigMapList","metadata":{},"items":[{"memo":true}]}');
    expect(first).toBe(JSON.stringify(list));
  });

  it('never memoizes objects that are not shared', () => {
    const o = configMap('fresh', 'v');
    const list = { items: [o] };
    expect(listJsonBuffer(list).toString()).toBe(JSON.stringify(list));
    o.data.value = 'changed';
    expect(listJsonBuffer(list).toString()).toBe(JSON.stringify(list));
  });
});

describe('listJson', () => {
  const items = (values: string[]) => ({
    apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '5' },
    items: values.map((v, i) => (i % 2 === 0 ? shared(configMap(`n${i}`, v)).object : configMap(`n${i}`, v))),
  });

  it.each([
    ['empty', items([])],
    ['one small item: one piece', items(['x'])],
    ['many ASCII items over several pieces', items(Array.from({ length: 200 }, (_, i) => 'x'.repeat(i * 13)))],
    ['an item larger than a piece, between small ones', items(['a', 'b'.repeat(3 * LIST_CHUNK_BYTES), 'c'])],
    ['multi-byte characters across the pieces\' edges', items(Array.from({ length: 40 }, (_, i) => 'é日🚀'.repeat(1000 + i)))],
    ['no items member', { kind: 'List', metadata: {} }],
  ])('%s: the pieces are the bytes of JSON.stringify, each at most a piece or one item', (_name, list) => {
    const want = Buffer.from(JSON.stringify(list));
    const lj = listJson(list as { items: unknown[] });
    expect(lj.bytes).toBe(want.length);
    const pieces = [...lj.chunks()];
    expect(Buffer.concat(pieces).equals(want)).toBe(true);
    expect(lj.buffer().equals(want)).toBe(true);
    const largestItem = Math.max(0, ...((list as { items?: unknown[] }).items ?? []).map((o) => Buffer.byteLength(JSON.stringify(o)) + 1));
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(Math.max(LIST_CHUNK_BYTES, largestItem));
    if (want.length > LIST_CHUNK_BYTES) expect(pieces.length).toBeGreaterThan(1);
  });
});

describe('lazyItemsList', () => {
  const objects = Array.from({ length: 300 }, (_, i) => configMap(`n${i}`, 'é日'.repeat(i * 7)));
  const head = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9' } };

  it('takes item JSON from its source (bytes or texts) until `items` is read, then from the items', () => {
    let made = 0;
    const source = (i: number): ItemJson => {
      const text = JSON.stringify(objects[i]);
      return i % 3 === 0 ? Buffer.from(text) : { text, bytes: Buffer.byteLength(text) };
    };
    const list = lazyItemsList<{ items: object[] }>(head, { count: objects.length, json: source }, () => (made++, objects.map((o) => ({ ...o }))));
    const want = Buffer.from(JSON.stringify({ ...head, items: objects }));
    const lj = listJson(list);
    expect(lj.bytes).toBe(want.length);
    const pieces = [...lj.chunks()];
    expect(pieces.length).toBeGreaterThan(1);
    expect(Buffer.concat(pieces).equals(want)).toBe(true);
    expect(lj.buffer().equals(want)).toBe(true);
    expect(made).toBe(0);
    // Read (and changed): the JSON follows the items.
    list.items[0] = { changed: true };
    expect(made).toBe(1);
    expect(listJson(list).buffer().toString()).toBe(JSON.stringify({ ...head, items: [{ changed: true }, ...objects.slice(1)] }));
    // Set: the same.
    list.items = [];
    expect(listJson(list).buffer().toString()).toBe(JSON.stringify({ ...head, items: [] }));
  });
});

describe('objectJson', () => {
  it('is JSON.stringify, memoized for shared objects only', () => {
    const s = shared(configMap('a', 'ü'));
    expect(objectJson(s.object)).toBe(JSON.stringify(s.object));
    expect(s.memo.get(JSON_MEMO_KEY)).toBe(JSON.stringify(s.object));
    const fresh = configMap('b', 'x');
    expect(objectJson(fresh)).toBe(JSON.stringify(fresh));
  });
});
