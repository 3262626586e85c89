/**
 * End to end: stock kubectl (the dispatcher on PATH, which runs kubectl 1.32 for this server) against the
 * BUILT server (`bin/platform-apiserver`, embedded store) for Jobs, in both group-domain modes:
 * `kubectl create job` (a PROTOBUF body, and protobuf back), `create -f`, `get jobs` (and `-o wide`, `get
 * all`), the status the job controller writes, the status sub-resource through `patch --subresource=status`
 * (on a job `managedBy` another controller, which the built-in one leaves alone), `describe job`, `explain
 * job.spec.podFailurePolicy`, immutability errors as kubectl prints them, and `delete`.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const INDEXED_JOB = `apiVersion: batch/v1
kind: Job
metadata:
  name: indexed
spec:
  completionMode: Indexed
  completions: 3
  parallelism: 3
  backoffLimitPerIndex: 1
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes:
        containerName: work
        operator: In
        values: [42]
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox:1.36
        command: ["sh", "-c", "echo $JOB_COMPLETION_INDEX"]
`;

/** Polls `check` (kubectl calls) until it returns a value; at most 30 s. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A job another controller manages: the built-in job controller never writes its status. */
const EXTERNAL_JOB = `apiVersion: batch/v1
kind: Job
metadata:
  name: external
spec:
  managedBy: example.com/batch-runner
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
`;

/** kubectl's human duration for a young object (seconds; minutes past 2 min on a slow machine). */
const AGE = /^(\d+s|\d+m(\d+s)?)$/;

for (const domain of ['platform.io', 'k8s.io'] as const) {
  const legacy = domain === 'k8s.io' ? 'kubernetes.io' : 'platform.io';

  describe(`kubectl and Jobs (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const ns = 'batch-e2e';

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', 'namespace', ns));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('create job sends protobuf; the server defaults it and generates the selector and labels', async () => {
      const res = await kubectl('create', 'job', 'hello', '-n', ns, '--image=busybox', '-v=9', '--', 'echo', 'hi');
      expect(res.status).toBe(0);
      expect(res.stdout).toBe('job.batch/hello created\n');
      const post = res.stderr.split('\n').find((l) => l.includes('curl -v -XPOST') && l.includes(`/apis/batch/v1/namespaces/${ns}/jobs?`));
      expect(post).toContain('-H "Content-Type: application/vnd.kubernetes.protobuf"');
      expect(res.stderr).toMatch(/"POST https:\/\/127\.0\.0\.1:\d+\/apis\/batch\/v1\/namespaces\/batch-e2e\/jobs\?fieldManager=kubectl-create.*" status="201 Created"|POST .*\/jobs\?fieldManager=kubectl-create\S* 201 Created/);

      const job = JSON.parse(ok(await kubectl('get', 'job', 'hello', '-n', ns, '-o', 'json')));
      const uid = job.metadata.uid;
      expect(job.apiVersion).toBe('batch/v1');
      expect(job.spec).toEqual(expect.objectContaining({
        completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, manualSelector: false,
        podReplacementPolicy: 'TerminatingOrFailed', selector: { matchLabels: { [`batch.${legacy}/controller-uid`]: uid } },
      }));
      expect(job.spec.template.spec.containers).toEqual([expect.objectContaining({ name: 'hello', image: 'busybox', command: ['echo', 'hi'], imagePullPolicy: 'Always' })]);
      expect(job.spec.template.spec.restartPolicy).toBe('Never');
      expect(job.spec.template.metadata.labels).toEqual({
        'controller-uid': uid, 'job-name': 'hello', [`batch.${legacy}/controller-uid`]: uid, [`batch.${legacy}/job-name`]: 'hello',
      });
      // The job controller starts it at once: startTime, one active pod (not ready: no node agent runs it).
      const status = await eventually('the controller-written status', async () => {
        const j = JSON.parse(ok(await kubectl('get', 'job', 'hello', '-n', ns, '-o', 'json')));
        return j.status.active === 1 ? j.status : undefined;
      });
      expect(status).toEqual({ startTime: expect.stringMatching(/Z$/), active: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
      const pods = ok(await kubectl('get', 'pods', '-n', ns, '-l', `batch.${legacy}/job-name=hello`, '-o', 'name'));
      expect(pods).toMatch(/^pod\/hello-[a-z0-9]{5}\n$/);
    });

    it('create -f an Indexed job with a pod failure policy; invalid ones are refused with Kubernetes\' causes', async () => {
      expect(ok(await kubectl('create', '-n', ns, '-f', server.file('indexed.yaml', INDEXED_JOB)))).toBe('job.batch/indexed created\n');
      const job = JSON.parse(ok(await kubectl('get', 'job', 'indexed', '-n', ns, '-o', 'json')));
      expect(job.spec.backoffLimit).toBe(2147483647);
      expect(job.spec.podReplacementPolicy).toBe('Failed');
      expect(job.spec.podFailurePolicy.rules[1].onPodConditions).toEqual([{ type: 'DisruptionTarget', status: 'True' }]);

      const bad = await kubectl('create', '-n', ns, '-f', server.file('bad.yaml', INDEXED_JOB.replace('name: indexed', 'name: bad').replace('values: [42]', 'values: [0, 2]').replace('restartPolicy: Never', 'restartPolicy: Always')));
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('The Job "bad" is invalid: \n');
      expect(bad.stderr).toContain('* spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator');
      expect(bad.stderr).toContain('* spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
    });

    it('status through patch --subresource=status; get jobs shows STATUS, COMPLETIONS and DURATION; -o wide and get all', async () => {
      ok(await kubectl('create', '-n', ns, '-f', server.file('external.yaml', EXTERNAL_JOB)));
      const start = new Date(Date.now() - 90_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const patch = JSON.stringify({ status: { startTime: start, active: 1, ready: 1 } });
      ok(await kubectl('patch', 'job', 'external', '-n', ns, '--subresource=status', '--type=merge', '-p', patch));
      const refused = await kubectl('patch', 'job', 'external', '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { ready: 2 } }));
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('status.ready: Invalid value: 2: cannot set more ready pods than active');
      // The job controller started the indexed job too (3 active).
      await eventually('indexed started', async () => {
        const j = JSON.parse(ok(await kubectl('get', 'job', 'indexed', '-n', ns, '-o', 'json')));
        return j.status.active === 3 ? true : undefined;
      });

      const res = await kubectl('get', 'jobs', '-n', ns);
      expect(res.status).toBe(0);
      expect(headerLine(res.stdout)).toMatch(/^NAME +STATUS +COMPLETIONS +DURATION +AGE$/);
      const rows = parseTable(res.stdout);
      expect(rows.map((r) => [r.NAME, r.STATUS, r.COMPLETIONS])).toEqual([
        ['external', 'Running', '0/1'],
        ['hello', 'Running', '0/1'],
        ['indexed', 'Running', '0/3'],
      ]);
      expect(rows[0]!.DURATION).toMatch(/^(9\d|1\d\d)s$/);
      // The controller's startTime: a young duration.
      expect(rows[1]!.DURATION).toMatch(/^\d+s$/);
      expect(rows[2]!.DURATION).toMatch(/^\d+s$/);
      expect(rows[1]!.AGE).toMatch(AGE);

      const wide = parseTable(ok(await kubectl('get', 'job', 'hello', '-n', ns, '-o', 'wide')));
      expect(wide[0]).toEqual(expect.objectContaining({ CONTAINERS: 'hello', IMAGES: 'busybox' }));
      expect(wide[0]!.SELECTOR).toMatch(new RegExp(`^batch\\.${legacy.replace('.', '\\.')}/controller-uid=[0-9a-f-]{36}$`));

      const everything = ok(await kubectl('get', 'all', '-n', ns, '-o', 'name'));
      expect(everything.split('\n').filter((l) => l.startsWith('job.batch/'))).toEqual(['job.batch/external', 'job.batch/hello', 'job.batch/indexed']);
      // The controller's pods are listed too: one for hello, three for indexed, none for the external job.
      expect(everything.split('\n').filter((l) => l.startsWith('pod/'))).toHaveLength(4);
    });

    it('describe job', async () => {
      const out = ok(await kubectl('describe', 'job', 'indexed', '-n', ns));
      expect(out).toMatch(/^Name: +indexed$/m);
      expect(out).toMatch(/^Namespace: +batch-e2e$/m);
      expect(out).toMatch(new RegExp(`^Selector: +batch\\.${legacy.replace('.', '\\.')}/controller-uid=[0-9a-f-]{36}$`, 'm'));
      expect(out).toMatch(/^Parallelism: +3$/m);
      expect(out).toMatch(/^Completions: +3$/m);
      expect(out).toMatch(/^Completion Mode: +Indexed$/m);
      expect(out).toMatch(/^Suspend: +false$/m);
      expect(out).toMatch(/^Backoff Limit: +2147483647$/m);
      // The job controller's status: three active pods, none ready (no node agent runs them).
      expect(out).toMatch(/^Pods Statuses: +3 Active \(0 Ready\) \/ 0 Succeeded \/ 0 Failed$/m);
      expect(out).toMatch(/^Completed Indexes: +<none>$/m);
      expect(out).toMatch(/^ {4}Image: +busybox:1\.36$/m);
      expect(out).toMatch(/Normal +SuccessfulCreate +\S+ +job-controller +Created pod: indexed-[0-2]-[a-z0-9]{5}/);
      const hello = ok(await kubectl('describe', 'job', 'hello', '-n', ns));
      expect(hello).toMatch(/^Start Time: +\S.*$/m);
      expect(hello).toMatch(/^Pods Statuses: +1 Active \(0 Ready\) \/ 0 Succeeded \/ 0 Failed$/m);
      expect(hello).toMatch(/^ {6}echo$/m);
      // The job whose status was written above (its own controller's numbers).
      const external = ok(await kubectl('describe', 'job', 'external', '-n', ns));
      expect(external).toMatch(/^Pods Statuses: +1 Active \(1 Ready\) \/ 0 Succeeded \/ 0 Failed$/m);
    });

    it('the template is immutable: kubectl shows the 422', async () => {
      const res = await kubectl('set', 'image', 'job/hello', 'hello=busybox:1.37', '-n', ns);
      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(/Job\.batch "hello" is invalid: spec\.template: Invalid value: .*: field is immutable/);
    });

    it('explain job.spec.podFailurePolicy', async () => {
      const out = ok(await kubectl('explain', 'job.spec.podFailurePolicy'));
      expect(out).toMatch(/^GROUP: +batch$/m);
      expect(out).toMatch(/^KIND: +Job$/m);
      expect(out).toMatch(/^VERSION: +v1$/m);
      expect(out).toMatch(/^FIELD: +podFailurePolicy </m);
      expect(out).toMatch(/^ {2}rules\s+<\[\]Object> -required-$/m);
      const rules = ok(await kubectl('explain', 'job.spec.podFailurePolicy.rules'));
      expect(rules).toMatch(/^ {2}action\s+<string> -required-$/m);
      expect(rules).toMatch(/^ {2}onExitCodes\s+<Object>$/m);
    });

    it('delete job', async () => {
      expect(ok(await kubectl('delete', 'job', 'hello', '-n', ns))).toBe('job.batch "hello" deleted\n');
      expect((await kubectl('get', 'job', 'hello', '-n', ns)).status).toBe(1);
      // Its pod goes with it: the garbage collector deletes it, the job controller drops its tracking finalizer.
      await eventually('the pod of hello gone', async () =>
        ok(await kubectl('get', 'pods', '-n', ns, '-l', `batch.${legacy}/job-name=hello`, '-o', 'name')) === '' ? true : undefined);
    });
  });
}
