/**
 * `make bench` part `controllers` (issue 19): the garbage collector and the Job controller, through a server
 * process on etcd as a user sees them, each next to the cost of the same controller idle.
 *
 * - Garbage collection: one owner ConfigMap with 10,000 dependent ConfigMaps (ownerReferences to it); the
 *   owner is deleted with Background propagation, and the time is taken until a list of the dependents
 *   is empty (polled every 50 ms). Then the same with Foreground: until the owner itself is gone.
 * - Job: a 1,000-completion Job with parallelism 1,000 (the time until the controller has created every pod);
 *   then one with parallelism 100 where the bench plays the node agent (polling the Job's pods, each new pod
 *   marked Succeeded through its status): the pods created per second and the time until the Job is
 *   Complete. The node agent shares the 2 cores with the server.
 * - Idle cost: the server's CPU (from /proc) over 10 s while nothing changes, with the objects above in
 *   place, once with every controller and once with `--controllers=*,-<these controllers>`: the
 *   difference is what the idle controllers cost.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEtcd } from '../test/harness/etcd.js';
import { benchClient, type BenchClient } from './http-client.js';
import { cpuSeconds, fmt, measure, table } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';

const CM = '/api/v1/namespaces/default/configmaps';
const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const PODS = '/api/v1/namespaces/default/pods';
const NEW_CONTROLLERS = ['garbage-collector-controller', 'job-controller', 'ttl-after-finished-controller', 'statefulset-controller',
  'replicationcontroller-controller', 'endpointslice-controller', 'horizontal-pod-autoscaler-controller'];
const IDLE_SECONDS = 10;

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const parse = <T>(b: Buffer): T => JSON.parse(b.toString('utf8')) as T;

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The server's CPU use (% of one core) over `IDLE_SECONDS` of nothing happening. */
async function idleCpu(server: ServerProcess): Promise<number> {
  await sleep(2000); // let the last events settle
  const c0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  return ((cpuSeconds(server.pid) - c0) / ((performance.now() - t0) / 1000)) * 100;
}

const count = async (client: BenchClient, path: string): Promise<number> =>
  parse<{ items: unknown[] }>((await client.call('GET', path, 200)).body).items.length;

async function createDependents(client: BenchClient, n: number, label: string): Promise<{ uid: string }> {
  const owner = parse<{ metadata: { uid: string } }>((await client.call('POST', CM, 201, json({ metadata: { name: `owner-${label}` } }))).body);
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: `owner-${label}`, uid: owner.metadata.uid };
  await measure(n, 64, (i) =>
    client.call('POST', CM, 201, json({ metadata: { name: `dep-${label}-${i}`, labels: { set: label }, ownerReferences: [ref] } })));
  return { uid: owner.metadata.uid };
}

async function gcCase(client: BenchClient, n: number, policy: 'Background' | 'Foreground'): Promise<number> {
  const label = policy.toLowerCase();
  await createDependents(client, n, label);
  const t0 = performance.now();
  await client.call('DELETE', `${CM}/owner-${label}`, 200, json({ propagationPolicy: policy }));
  if (policy === 'Background') {
    await until('the dependents to be collected', 600_000, async () => (await count(client, `${CM}?labelSelector=set%3D${label}&limit=1`)) === 0);
  } else {
    await until('the owner to be deleted', 600_000, () => client.call('GET', `${CM}/owner-${label}`, 404).then(() => true, () => false));
  }
  return (performance.now() - t0) / 1000;
}

/** A Job whose `n` pods may all run at once: the time until the controller has created every pod (no node agent in the loop). */
async function jobBurst(client: BenchClient, n: number): Promise<number> {
  const name = 'bench-burst';
  const t0 = performance.now();
  await client.call('POST', JOBS, 201, json({
    metadata: { name },
    spec: { completions: n, parallelism: n, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
  }));
  await until('every pod created', 600_000, async () =>
    (await count(client, `${PODS}?labelSelector=job-name%3D${name}`)) === n);
  const seconds = (performance.now() - t0) / 1000;
  await client.call('DELETE', `${JOBS}/${name}`, 200, json({ propagationPolicy: 'Background' }));
  return seconds;
}

interface JobResult {
  readonly podsPerSecond: number;
  readonly completeSeconds: number;
}

/** A Job of `completions` pods, with the bench as node agent marking every pod Succeeded. */
async function jobCase(client: BenchClient, completions: number): Promise<JobResult> {
  const name = 'bench-job';
  const t0 = performance.now();
  await client.call('POST', JOBS, 201, json({
    metadata: { name },
    spec: {
      completions,
      parallelism: 100,
      backoffLimit: 0,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
    },
  }));
  const marked = new Set<string>();
  let lastCreated = t0;
  let complete = false;
  const agent = async (): Promise<void> => {
    while (!complete) {
      const pods = parse<{ items: { metadata: { name: string }; status?: { phase?: string } }[] }>(
        (await client.call('GET', `${PODS}?labelSelector=job-name%3D${name}`, 200)).body).items;
      const fresh = pods.filter((p) => !marked.has(p.metadata.name) && p.status?.phase !== 'Succeeded');
      if (fresh.length > 0) lastCreated = performance.now();
      await Promise.all(fresh.map(async (p) => {
        marked.add(p.metadata.name);
        await client.call('PATCH', `${PODS}/${p.metadata.name}/status`, 200, json({
          status: {
            phase: 'Succeeded',
            containerStatuses: [{ name: 'c', image: 'busybox', imageID: '', ready: false, restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: new Date().toISOString(), finishedAt: new Date().toISOString() } } }],
          },
        }), { 'Content-Type': 'application/merge-patch+json' });
      }));
      if (fresh.length === 0) await sleep(20);
    }
  };
  const running = agent();
  await until('the Job to complete', 900_000, async () => {
    const job = parse<{ status?: { conditions?: { type: string; status: string }[] } }>((await client.call('GET', `${JOBS}/${name}`, 200)).body);
    return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false;
  });
  const completeSeconds = (performance.now() - t0) / 1000;
  complete = true;
  await running;
  return { podsPerSecond: marked.size / ((lastCreated - t0) / 1000), completeSeconds };
}

export async function benchControllers(options: { readonly scale: number; readonly server: ServerMode }): Promise<string> {
  const n = Math.max(100, Math.round(10_000 * options.scale));
  const completions = Math.max(100, Math.round(1_000 * options.scale));
  if (options.server === 'dist') buildServer();
  const rows: string[][] = [];
  const idle: string[][] = [];
  for (const [label, args] of [
    ['every controller', []],
    ['without issue 19\'s controllers', [`--controllers=*,${NEW_CONTROLLERS.map((c) => `-${c}`).join(',')}`]],
  ] as const) {
    const etcd = await startEtcd();
    const server = await startServerProcess({ mode: options.server, args: [`--etcd-servers=${etcd.endpoints.join(',')}`, ...args] });
    const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 128, timeoutMs: 120_000 });
    try {
      const empty = await idleCpu(server);
      await createDependents(client, n, 'idle');
      const loaded = await idleCpu(server);
      idle.push([label, `${fmt(empty, 2)} %`, `${fmt(loaded, 2)} %`]);
      if (label !== 'every controller') continue;
      const background = await gcCase(client, n, 'Background');
      rows.push([`GC: delete ${fmt(n)} dependents of one owner (Background)`, `${fmt(background, 1)} s`, `${fmt(n / background)} objects/s`]);
      const foreground = await gcCase(client, n, 'Foreground');
      rows.push([`GC: delete ${fmt(n)} dependents, then the owner (Foreground)`, `${fmt(foreground, 1)} s`, `${fmt(n / foreground)} objects/s`]);
      const burst = await jobBurst(client, completions);
      rows.push([`Job: ${fmt(completions)} completions, parallelism ${fmt(completions)} (every pod created, no node agent)`, `${fmt(burst, 1)} s`, `${fmt(completions / burst)} pods/s`]);
      const job = await jobCase(client, completions);
      rows.push([`Job: ${fmt(completions)} completions, parallelism 100 (pods created)`, `${fmt(completions / job.podsPerSecond, 1)} s`, `${fmt(job.podsPerSecond)} pods/s`]);
      rows.push([`Job: ${fmt(completions)} completions, until Complete`, `${fmt(job.completeSeconds, 1)} s`, `${fmt(completions / job.completeSeconds)} pods/s`]);
    } finally {
      client.close();
      await server.stop();
      await etcd.stop();
    }
  }
  return [
    '### Part controllers: garbage collection and the Job controller',
    '',
    'A server process on etcd (default flags); the bench creates the objects over keep-alive HTTPS (64 in flight) and plays',
    'the node agent for the Job (its pods marked Succeeded as they appear).',
    '',
    table(['Case', 'Time', 'Rate'], rows),
    '',
    `Idle cost: the server's CPU over ${IDLE_SECONDS} s while nothing changes (% of one core), on an empty store and with`,
    `${fmt(n)} ConfigMaps that all name one owner; the second server runs without the garbage collector, Job, ttl-after-finished,`,
    'StatefulSet, ReplicationController, EndpointSlice and HPA controllers.',
    '',
    table(['Server', 'idle, empty', `idle, ${fmt(n)} dependents`], idle),
  ].join('\n');
}
