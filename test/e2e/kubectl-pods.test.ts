/**
 * End to end: stock kubectl (the dispatcher on PATH, which runs kubectl 1.32 for this server) against the
 * BUILT server (`bin/platform-apiserver`, embedded store) for Pods, in both group-domain modes: `kubectl run`,
 * `get pods` (and `-o wide`) with kubectl's columns, `describe pod`, `explain`, a binding through
 * `pods/<name>/binding` as a scheduler posts it, `describe node` listing the pods bound to the node (kubectl
 * asks for them with `spec.nodeName=<node>,status.phase!=Succeeded,status.phase!=Failed` in protobuf), a
 * refused update, the graceful delete of a bound pod (Terminating) and `delete --grace-period=0 --force`.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

/** Expects a successful kubectl run and returns its stdout. */
function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const NODE = `apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels: { role: worker }
status:
  capacity: { cpu: "4", memory: 8Gi, pods: "110" }
  allocatable: { cpu: "4", memory: 8Gi, pods: "110" }
`;

const binding = (pod: string, node: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: pod }, target: { kind: 'Node', name: node } });

for (const domain of ['platform.io', 'k8s.io'] as const) {
  describe(`kubectl and Pods (--group-domain=${domain})`, () => {
    let server: RunningApiserver;
    const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
    const ns = 'pods-e2e';

    beforeAll(async () => {
      server = await startApiserver([`--group-domain=${domain}`]);
      ok(await kubectl('create', 'namespace', ns));
      // The serviceaccount controller creates `default` moments after the namespace; pods need it.
      const deadline = Date.now() + 30_000;
      while ((await kubectl('get', 'serviceaccount', 'default', '-n', ns)).status !== 0) {
        if (Date.now() > deadline) throw new Error('no default service account');
        await new Promise((r) => setTimeout(r, 100));
      }
      ok(await kubectl('create', '-f', server.file('node.yaml', NODE)));
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('run a pod, get pods with kubectl\'s columns, describe it', async () => {
      expect(ok(await kubectl('run', 'web', '--image=nginx', '-n', ns, '--labels=app=web'))).toBe('pod/web created\n');
      const got = await kubectl('get', 'pods', '-n', ns);
      expect(got.stderr).toBe('');
      expect(headerLine(got.stdout)).toMatch(/^NAME +READY +STATUS +RESTARTS +AGE$/);
      const [row] = parseTable(got.stdout);
      expect([row!.NAME, row!.READY, row!.STATUS, row!.RESTARTS]).toEqual(['web', '0/1', 'Pending', '0']);
      expect(row!.AGE).toMatch(/^\d+s$/);
      expect(ok(await kubectl('get', 'po', 'web', '-n', ns, '-o', 'jsonpath={.spec.serviceAccountName} {.spec.restartPolicy} {.status.qosClass}'))).toBe('default Always BestEffort');
      expect(ok(await kubectl('get', 'all', '-n', ns, '-o', 'name'))).toBe('pod/web\n');

      const described = ok(await kubectl('describe', 'pod', 'web', '-n', ns));
      expect(described).toMatch(/^Name: +web$/m);
      expect(described).toMatch(/^Namespace: +pods-e2e$/m);
      expect(described).toMatch(/^Service Account: +default$/m);
      expect(described).toMatch(/^Node: +<none>$/m);
      expect(described).toMatch(/^Labels: +app=web$/m);
      expect(described).toMatch(/^Status: +Pending$/m);
      expect(described).toMatch(/^ {4}Image: +nginx$/m);
      expect(described).toMatch(/^QoS Class: +BestEffort$/m);
    });

    it('explain pod.status and pod.spec', async () => {
      const status = ok(await kubectl('explain', 'pod.status'));
      expect(status).toMatch(/^KIND: +Pod$/m);
      expect(status).toMatch(/^VERSION: +v1$/m);
      expect(status).toMatch(/^ {2}containerStatuses\s+<\[\]Object>$/m);
      expect(status).toMatch(/^ {2}qosClass\s+<string>$/m);
      expect(status).toMatch(/^ {2}podIPs\s+<\[\]Object>$/m);
      const state = ok(await kubectl('explain', 'pod.status.containerStatuses.state.terminated'));
      expect(state).toMatch(/^ {2}exitCode\s+<integer> -required-$/m);
      expect(ok(await kubectl('explain', 'po.spec'))).toMatch(/^ {2}containers\s+<\[\]Object> -required-$/m);
    });

    it('a binding puts the pod on the node; get -o wide and describe node list it', async () => {
      const bound = await server.kubectl(['create', '--raw', `/api/v1/namespaces/${ns}/pods/web/binding`, '-f', '-'], { stdin: binding('web', 'worker-1') });
      expect(ok(bound)).toContain('"status":"Success"');
      const again = await server.kubectl(['create', '--raw', `/api/v1/namespaces/${ns}/pods/web/binding`, '-f', '-'], { stdin: binding('web', 'worker-2') });
      expect(again.status).not.toBe(0);
      expect(again.stderr).toBe('Error from server (Conflict): Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "worker-1"\n');

      const wide = parseTable(ok(await kubectl('get', 'pods', '-n', ns, '-o', 'wide')));
      expect(wide[0]).toEqual(expect.objectContaining({ NAME: 'web', NODE: 'worker-1', IP: '<none>', 'NOMINATED NODE': '<none>', 'READINESS GATES': '<none>' }));
      expect(ok(await kubectl('get', 'pods', '-A', '--field-selector', 'spec.nodeName=worker-1', '-o', 'name'))).toBe('pod/web\n');

      const node = ok(await kubectl('describe', 'node', 'worker-1'));
      expect(node).toMatch(/^Non-terminated Pods: +\(1 in total\)$/m);
      expect(node).toMatch(/^ {2}Namespace +Name +CPU Requests +CPU Limits +Memory Requests +Memory Limits +Age$/m);
      expect(node).toMatch(/^ {2}pods-e2e +web +0 \(0%\) +0 \(0%\) +0 \(0%\) +0 \(0%\) +\d+s$/m);
      expect(ok(await kubectl('describe', 'pod', 'web', '-n', ns))).toMatch(/^Node: +worker-1\/?$/m);
    });

    it('the node agent\'s status write shows in get and describe (protobuf)', async () => {
      // The last termination 5 minutes ago: RESTARTS prints `2 (5m ago)`.
      const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
      const status = {
        status: {
          phase: 'Running', podIP: '10.244.1.5', hostIP: '192.168.0.10', hostIPs: [{ ip: '192.168.0.10' }], startTime: at(400),
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(290) }],
          containerStatuses: [{
            name: 'web', ready: true, started: true, restartCount: 2, image: 'nginx', imageID: 'docker.io/library/nginx@sha256:0000', containerID: 'containerd://abc',
            state: { running: { startedAt: at(295) } },
            lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: at(350), finishedAt: at(300) } },
          }],
        },
      };
      ok(await kubectl('patch', 'pod', 'web', '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)));
      const [row] = parseTable(ok(await kubectl('get', 'pods', '-n', ns, '-o', 'wide')));
      expect([row!.READY, row!.STATUS, row!.IP, row!.NODE]).toEqual(['1/1', 'Running', '10.244.1.5', 'worker-1']);
      expect(row!.RESTARTS).toMatch(/^2 \(5m(\d+s)? ago\)$/);
      const described = ok(await kubectl('describe', 'pod', 'web', '-n', ns));
      expect(described).toMatch(/^Status: +Running$/m);
      expect(described).toMatch(/^IP: +10\.244\.1\.5$/m);
      expect(described).toMatch(/^ {4}State: +Running$/m);
      expect(described).toMatch(/^ {4}Last State: +Terminated$/m);
      expect(described).toMatch(/^ {6}Reason: +OOMKilled$/m);
      expect(described).toMatch(/^ {6}Exit Code: +137$/m);
      expect(described).toMatch(/^ {4}Restart Count: +2$/m);
      expect(described).toMatch(/^ {4}Container ID: +containerd:\/\/abc$/m);
    });

    it('refuses updates of fields pods cannot change', async () => {
      const res = await kubectl('patch', 'pod', 'web', '-n', ns, '-p', '{"spec":{"restartPolicy":"Never"}}');
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('The Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
      expect(ok(await kubectl('set', 'image', 'pod/web', 'web=nginx:1.27', '-n', ns))).toBe('pod/web image updated\n');
    });

    it('delete of a bound pod is graceful (Terminating); --grace-period=0 --force removes it', async () => {
      expect(ok(await kubectl('delete', 'pod', 'web', '-n', ns, '--wait=false'))).toBe('pod "web" deleted\n');
      const [row] = parseTable(ok(await kubectl('get', 'pods', '-n', ns)));
      expect([row!.NAME, row!.STATUS]).toEqual(['web', 'Terminating']);
      expect(ok(await kubectl('get', 'pod', 'web', '-n', ns, '-o', 'jsonpath={.metadata.deletionGracePeriodSeconds}'))).toBe('30');
      // describe node still lists it: it is not terminal yet.
      expect(ok(await kubectl('describe', 'node', 'worker-1'))).toMatch(/^Non-terminated Pods: +\(1 in total\)$/m);

      const forced = await kubectl('delete', 'pod', 'web', '-n', ns, '--grace-period=0', '--force');
      expect(forced.status).toBe(0);
      expect(forced.stdout).toBe('pod "web" force deleted\n');
      expect(forced.stderr).toContain('Immediate deletion does not wait for confirmation that the running resource has been terminated');
      const gone = await kubectl('get', 'pod', 'web', '-n', ns);
      expect(gone.stderr).toContain('pods "web" not found');
      expect(ok(await kubectl('describe', 'node', 'worker-1'))).toMatch(/^Non-terminated Pods: +\(0 in total\)$/m);
    });
  });
}
