/**
 * End to end: the Job controller and ttl-after-finished in the BUILT server (`bin/platform-apiserver`,
 * embedded store) with stock kubectl 1.32, in both group-domain modes. The test plays the node agent: it
 * marks pods Succeeded or Failed through `kubectl patch --subresource=status`. Covered: `kubectl create
 * job` then `kubectl wait --for=condition=complete` returning once the pod is marked Succeeded (the
 * tracking finalizer gone, the events in `describe`), an Indexed job's pod names and index label through
 * `kubectl get pods -l`, a failing job reaching `--for=condition=failed`, and ttlSecondsAfterFinished
 * deleting a finished job.
 */
import { requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from '../kubectl-helpers.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** Polls `check` (kubectl calls) until it returns a value; at most `ms`. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface PodList {
  items: { metadata: { name: string; finalizers?: string[]; labels?: Record<string, string>; annotations?: Record<string, string> }; status: { phase: string } }[];
}

for (const domain of ['k8s.io', 'platform.io'] as const) {
  describe(`the Job controller with kubectl (--group-domain=${domain})`, () => {
    const legacy = domain === 'k8s.io' ? 'kubernetes.io' : domain;
    const ns = 'job-e2e';
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const podsOf = async (job: string): Promise<PodList['items']> =>
      (JSON.parse(ok(await kubectl('get', 'pods', '-n', ns, '-l', `batch.${legacy}/job-name=${job}`, '-o', 'json'))) as PodList).items;
    /** The node agent: writes a terminal phase through pods/status. */
    const finish = async (pod: string, phase: 'Succeeded' | 'Failed'): Promise<void> => {
      ok(await kubectl('patch', 'pod', pod, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase } })));
    };

    /** Creates a Job of one busybox container (restartPolicy Never) with `spec` lines added (YAML, two-space indented). */
    const createJob = async (name: string, spec: string): Promise<void> => {
      ok(await kubectl('create', '-n', ns, '-f', server.file(`${name}.yaml`, `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
`)));
    };
    /** The job's pods once there are `n`. */
    const podsOnce = (job: string, n: number): Promise<PodList['items']> =>
      eventually(`${n} pods of ${job}`, async () => {
        const p = await podsOf(job);
        return p.length === n ? p : undefined;
      });

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', 'namespace', ns));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('kubectl create job; the pod marked Succeeded; kubectl wait --for=condition=complete returns', async () => {
      expect(ok(await kubectl('create', 'job', 'hello', '-n', ns, '--image=busybox', '--', 'echo', 'hi'))).toBe('job.batch/hello created\n');
      const [pod] = await podsOnce('hello', 1);
      expect(pod!.metadata.name).toMatch(/^hello-[a-z0-9]{5}$/);
      expect(pod!.metadata.finalizers).toEqual([`batch.${legacy}/job-tracking`]);
      await finish(pod!.metadata.name, 'Succeeded');
      const wait = await kubectl('wait', '--for=condition=complete', 'job/hello', '-n', ns, '--timeout=60s');
      expect(wait.status).toBe(0);
      expect(wait.stdout).toBe('job.batch/hello condition met\n');

      const job = JSON.parse(ok(await kubectl('get', 'job', 'hello', '-n', ns, '-o', 'json')));
      expect(job.status).toEqual(expect.objectContaining({ succeeded: 1, active: 0, ready: 0, terminating: 0, uncountedTerminatedPods: {} }));
      expect(job.status.completionTime).toBeDefined();
      expect(job.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`)).toEqual(['SuccessCriteriaMet=True', 'Complete=True']);
      expect((await podsOf('hello'))[0]!.metadata.finalizers).toBeUndefined();
      const described = ok(await kubectl('describe', 'job', 'hello', '-n', ns));
      expect(described).toMatch(/^Pods Statuses: +0 Active \(0 Ready\) \/ 1 Succeeded \/ 0 Failed$/m);
      expect(described).toMatch(/Normal +SuccessfulCreate +\S+ +job-controller +Created pod: hello-[a-z0-9]{5}/);
      expect(described).toMatch(/Normal +Completed +\S+ +job-controller +Job completed/);
      const row = ok(await kubectl('get', 'job', 'hello', '-n', ns, '--no-headers'));
      expect(row).toMatch(/^hello +Complete +1\/1 /);
    }, 90_000);

    it('an Indexed job: pods named <job>-<index>-<random> with the index label; completedIndexes', async () => {
      await createJob('indexed', `  completionMode: Indexed
  completions: 3
  parallelism: 3
`);
      const pods = await podsOnce('indexed', 3);
      for (const p of pods) {
        const ix = p.metadata.labels?.[`batch.${legacy}/job-completion-index`];
        expect(p.metadata.annotations?.[`batch.${legacy}/job-completion-index`]).toBe(ix);
        expect(p.metadata.name).toMatch(new RegExp(`^indexed-${ix}-[a-z0-9]{5}$`));
      }
      const byLabel = ok(await kubectl('get', 'pods', '-n', ns, '-l', `batch.${legacy}/job-completion-index=1`, '-o', 'name'));
      expect(byLabel).toMatch(/^pod\/indexed-1-[a-z0-9]{5}\n$/);
      for (const p of pods) await finish(p.metadata.name, 'Succeeded');
      ok(await kubectl('wait', '--for=condition=complete', 'job/indexed', '-n', ns, '--timeout=60s'));
      expect(ok(await kubectl('get', 'job', 'indexed', '-n', ns, '-o', 'jsonpath={.status.completedIndexes}'))).toBe('0-2');
    }, 90_000);

    it('a failing job: backoffLimit 0, the pod marked Failed, kubectl wait --for=condition=failed', async () => {
      await createJob('failing', `  backoffLimit: 0
`);
      const [pod] = await podsOnce('failing', 1);
      await finish(pod!.metadata.name, 'Failed');
      ok(await kubectl('wait', '--for=condition=failed', 'job/failing', '-n', ns, '--timeout=60s'));
      const job = JSON.parse(ok(await kubectl('get', 'job', 'failing', '-n', ns, '-o', 'json')));
      const failed = job.status.conditions.find((c: { type: string }) => c.type === 'Failed');
      expect(failed).toEqual(expect.objectContaining({ status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }));
      expect(job.status.failed).toBe(1);
      expect(ok(await kubectl('get', 'job', 'failing', '-n', ns, '--no-headers'))).toMatch(/^failing +Failed +0\/1 /);
    }, 90_000);

    it('ttlSecondsAfterFinished: the finished job is deleted, and its pods with it', async () => {
      await createJob('short-lived', `  ttlSecondsAfterFinished: 0
`);
      const [pod] = await podsOnce('short-lived', 1);
      await finish(pod!.metadata.name, 'Succeeded');
      await eventually('the job deleted', async () => ((await kubectl('get', 'job', 'short-lived', '-n', ns)).status === 1 ? true : undefined));
      await eventually('its pod deleted', async () => ((await podsOf('short-lived')).length === 0 ? true : undefined));
    }, 90_000);
  });
}
