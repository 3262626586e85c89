/**
 * Calls against real etcd members: answers decoded, a Status, a watch stream, failover between members,
 * circuits that open on a member whose calls fail and skip it, and a hung member (SIGSTOP) found out by the
 * keepalive ping.
 */
import { startEtcd, type EtcdCluster } from '../../../test/harness/etcd.js';
import { describeEtcd } from '../../../test/harness/describe-etcd.js';
import { EtcdConnection } from '../etcd-connection.js';
import type { RawRangeResponse, RawStatusResponse, RawTxnResponse, RawWatchResponse } from '../proto.js';
import { neverSent } from '../translate-error.js';
import { until } from '../../testing/helpers.js';
import { EtcdMembers, callOn, singleMember } from './members.js';

const closedPort = async (): Promise<string> => {
  const net = await import('node:net');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
};

describeEtcd('etcd members (real etcd)', () => {
  let cluster: EtcdCluster;
  const closers: { close(): void }[] = [];
  const client = (endpoints: readonly string[], keepalive = { keepaliveMs: 10_000, keepaliveTimeoutMs: 5_000 }): EtcdMembers => {
    const c = new EtcdMembers({ endpoints, maxReceiveBytes: Infinity, ...keepalive });
    closers.push(c);
    return c;
  };

  beforeAll(async () => {
    cluster = await startEtcd();
  });
  afterEach(() => {
    for (const c of closers.splice(0)) c.close();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test('a create-if-absent transaction, then the same one failing with the Else read of what is there', async () => {
    const c = client(cluster.endpoints);
    const key = Buffer.from(`/unary/${Date.now()}`);
    const txn = { compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }], success: [{ request_put: { key, value: Buffer.from('v1') } }], failure: [{ request_range: { key } }] };
    const created = await c.call<RawTxnResponse>('txn', txn, Date.now() + 5_000);
    expect(created.succeeded).toBe(true);
    expect(typeof created.header.revision).toBe('number');
    const again = await c.call<RawTxnResponse>('txn', txn, Date.now() + 5_000);
    expect(again.succeeded).toBe(false);
    const kv = again.responses[0]!.response_range!.kvs[0]!;
    expect(kv.key.equals(key)).toBe(true);
    expect(kv.value.toString()).toBe('v1');
    expect(kv.mod_revision).toBe(created.header.revision);
    expect(kv.create_revision).toBe(created.header.revision);
  });

  test('a Status names the member\'s version and database size', async () => {
    const channel = singleMember(cluster.endpoints[0]!, undefined);
    closers.push(channel);
    const status = await callOn<RawStatusResponse>(channel, 'status', {}, Date.now() + 5_000);
    expect(status.version).toMatch(/^3\.\d+\.\d+/);
    expect(status.dbSize).toBeGreaterThan(0);
    expect(status.header.revision).toBeGreaterThan(0);
  });

  test('a watch stream: created, then the events of writes made after it, with previous values; cancelled on request', async () => {
    const c = client(cluster.endpoints);
    const { stream } = await c.openWatch(Date.now() + 5_000);
    const messages: RawWatchResponse[] = [];
    stream.on('data', (m) => messages.push(m as RawWatchResponse));
    const prefix = `/unary-watch/${Date.now()}/`;
    const key = Buffer.from(`${prefix}a`);
    const put = (value: string) =>
      c.call<RawTxnResponse>('txn', { compare: [], success: [{ request_put: { key, value: Buffer.from(value) } }], failure: [] }, Date.now() + 5_000);
    stream.write({ create_request: { key: Buffer.from(prefix), range_end: Buffer.from(`${prefix.slice(0, -1)}0`), start_revision: 0, progress_notify: false, prev_kv: true, watch_id: 9 } });
    await until(() => messages.some((m) => m.created), 'the watch created');
    const first = await put('one');
    const second = await put('two');
    await until(() => messages.flatMap((m) => m.events).length === 2, 'two events');
    const events = messages.flatMap((m) => m.events);
    expect(messages.every((m) => m.watch_id === 9)).toBe(true);
    expect(events.map((e) => [e.type, e.kv.value.toString(), e.kv.mod_revision, e.prev_kv?.value.toString()])).toEqual([
      ['Put', 'one', first.header.revision, undefined],
      ['Put', 'two', second.header.revision, 'one'],
    ]);
    stream.write({ cancel_request: { watch_id: 9 } });
    await until(() => messages.some((m) => m.canceled), 'the watch cancelled');
    stream.cancel();
  });

  test('a member nobody answers on: its circuit opens after three failures and calls skip it, one trial call after 5 s; with every circuit open a call fails at once, not sent', async () => {
    const dead = await closedPort();
    const c = client([dead, cluster.endpoints[0]!]);
    let refused = 0;
    for (let i = 0; i < 40; i++) {
      try {
        await c.call<RawRangeResponse>('range', { key: Buffer.from([0]), count_only: true }, Date.now() + 5_000);
      } catch (err) {
        expect(neverSent(err)).toBe(true);
        refused++;
      }
    }
    // Random members: the dead one is picked about half the time until its circuit opens after three.
    expect(refused).toBe(3);
    // Five seconds on, the dead member gets one trial call; its failure opens the circuit again at once.
    const reopenAt = Date.now() + 5_000;
    await until(() => Date.now() > reopenAt, 'the circuit\'s open period to pass');
    let refusedAfter = 0;
    for (let i = 0; i < 40; i++) {
      await c.call('range', { key: Buffer.from([0]), count_only: true }, Date.now() + 5_000).catch(() => refusedAfter++);
    }
    expect(refusedAfter).toBe(1);

    const allDead = client([dead, await closedPort()]);
    const messages = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const err = (await allDead.call('range', { key: Buffer.from([0]) }, Date.now() + 5_000).catch((e: Error) => e)) as Error;
      expect(neverSent(err)).toBe(true);
      messages.add(err.message.replace(/ECONNREFUSED .*/, 'ECONNREFUSED'));
    }
    expect([...messages].sort()).toEqual([
      '14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED',
      '14 UNAVAILABLE: every etcd member failed its last calls (circuits open); none was tried',
    ]);
  });

  test('writes through the connection go on while a listed member is down: calls that never left are sent again', async () => {
    const connection = new EtcdConnection({ endpoints: [await closedPort(), cluster.endpoints[0]!], callTimeoutMs: 5_000 });
    closers.push(connection);
    for (let i = 0; i < 20; i++) {
      const key = Buffer.from(`/unary-failover/${Date.now()}/${i}`);
      const res = await connection.kv<RawTxnResponse>('txn', { compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }], success: [{ request_put: { key, value: key } }], failure: [] }, false);
      expect(res.succeeded).toBe(true);
    }
  });

  test('a hung member (SIGSTOP): the keepalive ping drops its connection and the call in flight fails long before its deadline; after SIGCONT calls work again', async () => {
    const c = client(cluster.endpoints, { keepaliveMs: 200, keepaliveTimeoutMs: 300 });
    await c.call('range', { key: Buffer.from([0]), count_only: true }, Date.now() + 5_000);
    const member = cluster.members[0]!;
    await member.pause();
    try {
      const err = (await c.call('range', { key: Buffer.from([0]) }, Date.now() + 60_000).catch((e: Error) => e)) as Error;
      expect(err.message).toBe('14 UNAVAILABLE: keepalive ping not answered');
      // The request went out before the member stopped answering: it may have been applied.
      expect(neverSent(err)).toBe(false);
    } finally {
      member.resume();
    }
    const res = await c.call<RawRangeResponse>('range', { key: Buffer.from([0]), count_only: true }, Date.now() + 10_000);
    expect(res.header.revision).toBeGreaterThan(0);
  }, 30_000);
});
