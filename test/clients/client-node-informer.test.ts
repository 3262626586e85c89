/**
 * Issue 4 acceptance, real client: a `@kubernetes/client-node` 1.4 informer (client-node-informer.mjs, run
 * with node: the package is ESM only) on the ConfigMaps of a namespace, against a real server on each
 * backend, through a TCP proxy that can drop its connections.
 *
 * 1. 1,000 objects created, updated and (every third) deleted, 32 requests in flight: the informer sees
 *    every change of every object, in order, with the resourceVersion the write returned, and its cache
 *    ends equal to the server's list.
 * 2. Its watch is dropped (the proxy cuts it and holds the reconnection), objects change, the store is
 *    compacted to its current revision, the connection is let through: the informer's re-watch from its
 *    last resourceVersion gets 410, it relists ONCE (client-node 1.4 relists without backoff, so a list
 *    resourceVersion the next watch rejected would spin), watches from the list's resourceVersion, and
 *    after further writes its cache equals the server's list again; every object's last change matches its
 *    final state (the ones deleted while it was away are gone).
 */
import { join } from 'node:path';
import { memoryLogger } from '../server/helpers.js';
import { backends, createNamespace, describeBackends, stopBackends } from '../http/helpers.js';
import {
  applyOps, churnOps, clientRequests, ClientProcess, converge, kubeconfigFor, mismatchedLastEvents, tempDir, Writer,
  type Applied, type Expected, type Op,
} from './client-harness.js';
import { startTcpProxy } from './tcp-proxy.js';

const script = join(__dirname, 'client-node-informer.mjs');
const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  it('sees every event of 1,000 concurrent objects; after a compaction while its watch is down it relists once and converges', async () => {
    const log = memoryLogger('debug');
    const api = await b.start({}, { logger: log.logger });
    const ns = await createNamespace(api);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const proxy = await startTcpProxy(api.server.port);
    const dir = tempDir('client-node-informer-');
    const w = new Writer(api);
    const client = new ClientProcess(process.execPath, [script, kubeconfigFor(api.server.kubeconfigPath!, proxy.url, dir.path), ns]);
    const expected: Expected = new Map();
    const started = Date.now();
    try {
      await client.until(() => client.of('list').length === 1, 'the informer\'s first list');

      // 1. Every event of 1,000 objects written concurrently.
      const applied: Applied[] = [];
      const ops = churnOps('a', 1000);
      const t0 = Date.now();
      await applyOps(w, ns, ops, expected, applied, 32);
      const writeMs = Date.now() - t0;
      const changes = () => client.lines.filter((l) => l.t === 'ADDED' || l.t === 'MODIFIED' || l.t === 'DELETED').length;
      await client.until(() => changes() >= ops.length, `${ops.length} events`);
      const kindToType = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
      const want = new Map<string, string[]>();
      for (const a of applied) want.set(a.name, [...(want.get(a.name) ?? []), `${kindToType[a.kind]} ${a.kind === 'delete' ? '' : a.rv}`]);
      const got = new Map<string, string[]>();
      for (const l of client.lines) {
        if (l.t !== 'ADDED' && l.t !== 'MODIFIED' && l.t !== 'DELETED') continue;
        got.set(l.name!, [...(got.get(l.name!) ?? []), `${l.t} ${l.t === 'DELETED' ? '' : l.rv}`]);
      }
      expect(got.size).toBe(1000);
      expect(got).toEqual(want);
      expect(changes()).toBe(ops.length); // 1,000 ADDED + 1,000 MODIFIED + 334 DELETED, nothing more
      const first = await converge(client, w, ns);
      expect(first.client.size).toBe(666);
      expect(mismatchedLastEvents(client, expected)).toEqual([]);
      expect(client.of('list')).toHaveLength(1);
      expect(client.of('error')).toEqual([]);

      // 2. Drop the watch; while it is down, change objects and compact the store to its current revision.
      const errorsBefore = client.of('error').length;
      const watchesBefore = client.of('watch').length;
      proxy.hold();
      proxy.cut();
      await client.until(() => client.of('error').length > errorsBefore || client.of('watch').length > watchesBefore, 'the informer noticing the dropped watch');
      const lastSeen = Number(client.lines.filter((l) => l.rv !== undefined && l.t !== 'list').at(-1)!.rv);
      const gap: Op[] = [];
      for (let i = 0; i < 100; i++) gap.push({ kind: 'create', name: `b-${i}` });
      for (let i = 1; i < 300; i += 3) gap.push({ kind: 'update', name: `a-${i}`, value: 'gap' }); // alive (i % 3 === 1)
      for (let i = 2; i < 300; i += 3) gap.push({ kind: 'delete', name: `a-${i}` }); // alive (i % 3 === 2)
      await applyOps(w, ns, gap, expected);
      const compactTo = await api.server.store.currentRevision();
      expect(compactTo).toBeGreaterThan(lastSeen);
      await api.server.store.compact(compactTo);
      const listsBefore = client.of('list').length;
      proxy.release();
      await client.until(() => client.of('list').length > listsBefore, 'the relist after 410');

      // Further writes after the relist reach it through the new watch.
      const after: Op[] = [];
      for (let i = 0; i < 100; i++) after.push({ kind: 'create', name: `c-${i}` });
      for (let i = 0; i < 100; i += 2) after.push({ kind: 'update', name: `b-${i}`, value: 'after' });
      for (let i = 1; i < 100; i += 2) after.push({ kind: 'delete', name: `b-${i}` });
      await applyOps(w, ns, after, expected);
      const final = await converge(client, w, ns);
      expect(final.client.size).toBe(666 - 100 + 100 - 50 + 100);
      expect(mismatchedLastEvents(client, expected)).toEqual([]);
      // Deleted while it was away: gone, each announced to the informer's handlers by the relist.
      for (let i = 2; i < 300; i += 3) expect(final.client.has(`a-${i}`)).toBe(false);

      // One relist, no spin: on the server, 2 lists in all and exactly one watch answered 410.
      const requests = clientRequests(log.lines(), path);
      expect(client.of('list')).toHaveLength(2);
      expect(requests.lists).toBe(2);
      expect(requests.watch410).toBe(1);
      expect(Number(client.of('list')[1]!.rv)).toBeGreaterThanOrEqual(compactTo);
      // eslint-disable-next-line no-console
      console.log(`[${b.name}] client-node informer: ${ops.length} writes in ${writeMs} ms, ${client.lines.filter((l) => ['ADDED', 'MODIFIED', 'DELETED'].includes(l.t)).length} handler calls, `
        + `lists ${requests.lists}, watches ${requests.watches} (${requests.statuses.join(', ')}), errors ${client.of('error').map((e) => e.msg).join(' | ')}, total ${Date.now() - started} ms`);
    } finally {
      await client.stop();
      w.destroy();
      await proxy.close();
      dir.remove();
    }
  });
});
