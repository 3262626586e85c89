/**
 * The local HA cluster launcher (deploy/cluster/): 3 etcd members, 3 replicas of dist/ (with the Helm
 * chart's rendered flags) and haproxy start, stock kubectl works through the load balancer, haproxy drains
 * a replica whose /readyz fails, a second start resumes the same directory (same token, CA and etcd data),
 * and stop leaves no process behind.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster } from '../../deploy/cluster/index.js';

jest.setTimeout(120_000);

/** Runs kubectl with the cluster's kubeconfig; resolves with its exit code and output. */
function kubectl(kubeconfig: string, args: readonly string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, KUBECONFIG: '' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Pids of live processes whose command line mentions `dir`. */
function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

describe('local HA cluster launcher', () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-ha-'));
  let cluster: Cluster | undefined;

  afterAll(async () => {
    await cluster?.stop();
    for (const pid of processesUnder(dir)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts 3 etcd members, 3 replicas and haproxy; kubectl works through the load balancer', async () => {
    cluster = await startCluster({ dir, replicas: 3, etcdMembers: 3 });
    expect(cluster.etcd.every((m) => m.running)).toBe(true);
    expect(cluster.replicas.map((r) => r.address)).toEqual(['127.0.1.1', '127.0.1.2', '127.0.1.3']);
    const states = await cluster.haproxy.backendStates();
    expect([...states].map(([n, s]) => `${n}=${s.status}/${s.check}`).sort()).toEqual(['r0=UP/L7OK', 'r1=UP/L7OK', 'r2=UP/L7OK']);

    // The replicas run the chart's rendered flags, with the Secret mounts mapped to the shared credentials.
    const args = readFileSync(join(dir, 'replicas', 'r0.args'), 'utf8').trim().split('\n');
    expect(args).toEqual(expect.arrayContaining([
      '--bind-address=127.0.1.1',
      `--secure-port=${cluster.replicas[0]!.port}`,
      '--advertise-address=127.0.1.1',
      `--etcd-servers=${cluster.etcdEndpoints.join(',')}`,
      `--tls-cert-file=${join(dir, 'shared', 'pki', 'apiserver.crt')}`,
      `--token-auth-file=${join(dir, 'shared', 'tokens.csv')}`,
      '--shutdown-delay-duration=3s',
    ]));
    expect(args.filter((a) => a.includes('/etc/platform-apiserver') || a.includes('$('))).toEqual([]);

    const ns = await kubectl(cluster.kubeconfigPath, ['get', 'ns', '-o', 'name']);
    expect(ns).toEqual({ code: 0, out: expect.stringContaining('namespace/default') });
    const created = await kubectl(cluster.kubeconfigPath, ['create', 'namespace', 'survives-restart']);
    expect(created.code).toBe(0);
  });

  it('haproxy marks a stopping replica down and the load balancer keeps serving', async () => {
    const c = cluster!;
    const r1 = c.replicas[1]!;
    // SIGTERM: /readyz fails for the shutdown delay, then the replica exits; haproxy sees both as DOWN.
    await r1.stop();
    await c.haproxy.waitBackends({ up: ['r0', 'r2'], down: ['r1'] });
    for (let i = 0; i < 6; i++) {
      expect((await kubectl(c.kubeconfigPath, ['get', 'ns', 'survives-restart', '-o', 'name'])).code).toBe(0);
    }
    await r1.start();
    await c.haproxy.waitBackends({ up: ['r0', 'r1', 'r2'] });
  });

  it('stops everything, leaving no process, and a second start resumes the same data and credentials', async () => {
    const c = cluster!;
    const { token, caPem, url } = c;
    await c.stop();
    expect(processesUnder(dir)).toEqual([]);
    expect([...c.etcd, ...c.replicas, c.haproxy].filter((p) => p.running).map((p) => p.name)).toEqual([]);

    cluster = await startCluster({ dir, replicas: 3, etcdMembers: 3 });
    expect({ token: cluster.token, caPem: cluster.caPem, url: cluster.url }).toEqual({ token, caPem, url });
    const got = await kubectl(cluster.kubeconfigPath, ['get', 'ns', 'survives-restart', '-o', 'name']);
    expect(got).toEqual({ code: 0, out: 'namespace/survives-restart\n' });

    await cluster.stop();
    expect(processesUnder(dir)).toEqual([]);
  });
});
