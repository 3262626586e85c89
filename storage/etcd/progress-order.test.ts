import { execFileSync } from 'node:child_process';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { memberVersions, membersOrderProgress, ordersProgress } from './progress-order.js';

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
});
