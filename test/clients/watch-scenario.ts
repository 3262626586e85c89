/**
 * The scenario both real-client tests run (issue 4, "Real clients"), against a real server on one backend,
 * with the client (a child process speaking client-harness.ts's protocol) connected through a TCP proxy:
 *
 * 1. 1,000 objects created, updated and (every third) deleted, 32 requests in flight: the client sees every
 *    change of every object, in order, each with the resourceVersion the write returned, nothing more, and
 *    its cache ends equal to the server's list.
 * 2. Its watch is dropped (the proxy cuts it and holds reconnections), objects change (100 created, 100
 *    updated, 100 deleted), the store is compacted to its current revision, connections are let through:
 *    the re-watch from the client's last resourceVersion gets 410, the client lists again ONCE (a list
 *    resourceVersion that the next watch refused would make client-node 1.4 spin), and after further writes
 *    (100 created, 50 updated, 50 deleted) its cache equals the server's list; every object's last change
 *    matches its final state (the ones deleted while it was away are gone).
 * Lists and watches are counted in the server's own request log, not only by the client.
 */
import { memoryLogger } from '../server/helpers.js';
import { createNamespace, type Backend } from '../http/helpers.js';
import {
  applyOps, churnOps, clientRequests, ClientProcess, converge, kubeconfigFor, mismatchedLastEvents, tempDir, Writer,
  type Applied, type Expected, type Op,
} from './client-harness.js';
import { startTcpProxy } from './tcp-proxy.js';

const isChange = (t: string): boolean => t === 'ADDED' || t === 'MODIFIED' || t === 'DELETED';

export async function relistScenario(b: Backend, label: string, startClient: (kubeconfig: string, namespace: string) => ClientProcess): Promise<void> {
  const log = memoryLogger('debug');
  const api = await b.start({}, { logger: log.logger });
  const ns = await createNamespace(api);
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const proxy = await startTcpProxy(api.server.port);
  const dir = tempDir('client-watch-');
  const w = new Writer(api);
  const client = startClient(kubeconfigFor(api.server.kubeconfigPath!, proxy.url, dir.path), ns);
  const expected: Expected = new Map();
  const started = Date.now();
  try {
    await client.until(() => client.of('list').length === 1, 'the client\'s first list');

    // 1. Every event of 1,000 objects written concurrently.
    const applied: Applied[] = [];
    const ops = churnOps('a', 1000);
    const t0 = Date.now();
    await applyOps(w, ns, ops, expected, applied, 32);
    const writeMs = Date.now() - t0;
    const changes = (): number => client.lines.filter((l) => isChange(l.t)).length;
    await client.until(() => changes() >= ops.length, `${ops.length} events`, 45_000);
    const deliveredMs = Date.now() - t0;
    const kindToType = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;
    const want = new Map<string, string[]>();
    for (const a of applied) want.set(a.name, [...(want.get(a.name) ?? []), `${kindToType[a.kind]} ${a.kind === 'delete' ? '' : a.rv}`]);
    const got = new Map<string, string[]>();
    for (const l of client.lines) {
      if (!isChange(l.t)) continue;
      got.set(l.name!, [...(got.get(l.name!) ?? []), `${l.t} ${l.t === 'DELETED' ? '' : l.rv}`]);
    }
    expect(got.size).toBe(1000);
    expect(got).toEqual(want);
    const first = await converge(client, w, ns);
    expect(changes()).toBe(ops.length); // 1,000 ADDED + 1,000 MODIFIED + 334 DELETED, nothing more
    expect(first.client.size).toBe(666);
    expect(mismatchedLastEvents(client, expected)).toEqual([]);
    expect(client.of('list')).toHaveLength(1);
    expect(client.of('error')).toEqual([]);

    // 2. Drop the watch; while it is down, change objects and compact the store to its current revision.
    const errorsBefore = client.of('error').length;
    const watchesBefore = client.of('watch').length;
    const changesBefore = changes();
    proxy.hold();
    proxy.cut();
    await client.until(() => client.of('error').length > errorsBefore || client.of('watch').length > watchesBefore, 'the client noticing the dropped watch');
    const lastSeen = Number(client.lines.filter((l) => isChange(l.t)).at(-1)!.rv);
    const gap: Op[] = [];
    for (let i = 0; i < 100; i++) gap.push({ kind: 'create', name: `b-${i}` });
    for (let i = 1; i < 300; i += 3) gap.push({ kind: 'update', name: `a-${i}`, value: 'gap' }); // alive: i % 3 === 1
    for (let i = 2; i < 300; i += 3) gap.push({ kind: 'delete', name: `a-${i}` }); // alive: i % 3 === 2
    await applyOps(w, ns, gap, expected);
    const compactTo = await api.server.store.currentRevision();
    expect(compactTo).toBeGreaterThan(lastSeen);
    await api.server.store.compact(compactTo);
    expect(changes()).toBe(changesBefore); // it really was cut off
    const listsBefore = client.of('list').length;
    proxy.release();
    await client.until(() => client.of('list').length > listsBefore, 'the re-list after 410');

    // Further writes after the re-list reach it through its new watch.
    const after: Op[] = [];
    for (let i = 0; i < 100; i++) after.push({ kind: 'create', name: `c-${i}` });
    for (let i = 0; i < 100; i += 2) after.push({ kind: 'update', name: `b-${i}`, value: 'after' });
    for (let i = 1; i < 100; i += 2) after.push({ kind: 'delete', name: `b-${i}` });
    await applyOps(w, ns, after, expected);
    const final = await converge(client, w, ns);
    expect(final.client.size).toBe(666 - 100 + 100 + 100 - 50);
    expect(mismatchedLastEvents(client, expected)).toEqual([]);
    for (let i = 2; i < 300; i += 3) expect(final.client.has(`a-${i}`)).toBe(false);
    // The further writes arrived as watch events (not through yet another list).
    for (const op of after) expect(client.lastEvents().get(op.name)?.t).toBe(kindToType[op.kind]);

    // One re-list, no spin: on the server, 2 lists in all and exactly one watch answered 410.
    const requests = clientRequests(log.lines(), path);
    expect(client.of('list')).toHaveLength(2);
    expect(requests.lists).toBe(2);
    expect(requests.watch410).toBe(1);
    expect(Number(client.of('list')[1]!.rv)).toBeGreaterThanOrEqual(compactTo);
    // eslint-disable-next-line no-console
    console.log(`[${label}, ${b.name}] ${ops.length} writes in ${writeMs} ms, all delivered after ${deliveredMs} ms; `
      + `${changes()} changes applied by the client in all; server saw ${requests.lists} lists, ${requests.watches} finished watches `
      + `(${requests.statuses.join(', ')}); client errors: ${client.of('error').map((e) => `${e.code ?? ''} ${e.msg}`).join(' | ')}; `
      + `total ${Date.now() - started} ms`);
  } finally {
    await client.stop();
    w.destroy();
    await proxy.close();
    dir.remove();
  }
}
