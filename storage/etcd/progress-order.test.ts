import { execFileSync } from 'node:child_process';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { until } from '../../test/harness/until.js';
import { CompactionTracker } from './compaction.js';
import { EtcdConnection } from './etcd-connection.js';
import { memberVersions, membersOrderProgress, ordersProgress } from './progress-order.js';
import { WatchHub } from './watch-hub.js';

describe('ordersProgress: the etcd releases whose progress broadcasts are exact', () => {
  test.each([
    ['3.4.23', false], ['3.4.30', false], ['3.4.31', true], ['v3.4.35', true],
    ['3.5.12', false], ['3.5.13', true], ['3.5.21', true],
    ['3.6.0-rc.1', true], ['3.6.4', true], ['4.0.0', true],
    ['3.3.27', false], ['2.3.8', false], ['', false], ['not a version', false],
  ])('%s: %s', (version, ordered) => {
    expect(ordersProgress(version)).toBe(ordered);
  });
});

describeEtcd('memberVersions, membersOrderProgress: every member asked for its version', () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await startEtcd();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test('the harness\'s etcd answers for its own release; an endpoint that does not answer makes it false', async () => {
    const release = /etcd Version: (\S+)/.exec(execFileSync('etcd', ['--version'], { encoding: 'utf8' }))![1]!;
    const unanswered = [...cluster.endpoints, 'http://127.0.0.1:1'];
    expect(await memberVersions(unanswered, 1_000, undefined)).toEqual([release, undefined]);
    expect(await membersOrderProgress(cluster.endpoints, 5_000, undefined)).toBe(ordersProgress(release));
    expect(await membersOrderProgress(unanswered, 1_000, undefined)).toBe(false);
  });

  test('the watch hub asks whenever a stream opens, and takes broadcasts as unordered until the answer', async () => {
    const connection = new EtcdConnection({ endpoints: cluster.endpoints, callTimeoutMs: 5_000 });
    const answers: ((ordered: boolean) => void)[] = [];
    const hub = new WatchHub(connection, new CompactionTracker(), {
      bufferEvents: 100,
      watchersPerStream: 1,
      askMembersOrderProgress: () => new Promise((resolve) => answers.push(resolve)),
    });
    try {
      const first = hub.watch('/asked/a/')[Symbol.asyncIterator]();
      await until('the first stream', () => answers.length === 1);
      expect(hub.progressOrdered()).toBe(false);
      answers[0]!(true);
      await until('the answer', () => hub.progressOrdered());
      // One watcher per stream: a second watch opens a second stream, which asks again.
      const second = hub.watch('/asked/b/')[Symbol.asyncIterator]();
      await until('the second stream', () => answers.length === 2);
      expect(hub.progressOrdered()).toBe(false);
      answers[1]!(true);
      await until('the second answer', () => hub.progressOrdered());
      await first.return!();
      await second.return!();
    } finally {
      hub.close();
      connection.close();
    }
  });
});
