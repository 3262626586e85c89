import { startEtcd } from './etcd.js';

test('a 3-member cluster forms, survives a member kill and restarts it', async () => {
  const cluster = await startEtcd({ members: 3 });
  try {
    expect(cluster.endpoints).toHaveLength(3);
    await cluster.members[0]!.kill();
    expect(cluster.members[0]!.running).toBe(false);
    await cluster.members[0]!.start();
    expect(cluster.members[0]!.running).toBe(true);
    const res = await fetch(`${cluster.endpoints[0]}/health`);
    expect(((await res.json()) as { health: string }).health).toBe('true');
  } finally {
    await cluster.stop();
  }
  expect(cluster.members.every((m) => !m.running)).toBe(true);
});
