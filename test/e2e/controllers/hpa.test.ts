/**
 * End to end: the HorizontalPodAutoscaler controller in a server started in process (it needs the
 * aggregator's service resolver to reach a loopback metrics server) with stock kubectl 1.32, in both
 * group-domain modes. A fake metrics server (HTTPS in the test process, checking the proxy client
 * certificate) is registered as the APIService `v1beta1.metrics.k8s.io` and becomes Available; the
 * replicationcontroller-controller makes the pods and the test plays the node agent (pods marked Running and
 * Ready through `kubectl patch --subresource=status`) and the metrics server (their CPU usage).
 *
 * `kubectl autoscale rc` creates the autoscaling/v1 HPA; at its first sync (15 s, kube's period) the
 * controller reads the metrics through the metrics API, scales the ReplicationController through `/scale`,
 * records SuccessfulRescale, and writes the status: `kubectl get hpa` shows TARGETS (`cpu: 100%/50%`) and
 * REPLICAS from it, and the conditions annotation is under the domain's name. The metrics server saw the
 * proxy client certificate and the controller's identity.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryLogger, stopAll, tempDir, testConfig } from '../../server/helpers.js';
import { generateCa, issueCert } from '../../server/proxy-certs.js';
import { startServer, type RunningServer } from '../../../apiserver/server/start-server.js';
import { startFakeMetricsServer, type FakeMetricsServer } from '../../../apiserver/controllers/podautoscaler/testing-metrics-server.js';
import { parseTable } from '../kubectl-helpers.js';

interface KubectlResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

/** Polls `check` until it returns a value; at most `ms`. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const RC = `apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
  replicas: 2
  selector: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: c
        image: nginx
        resources: { requests: { cpu: 100m } }
`;

for (const domain of ['k8s.io', 'platform.io'] as const) {
  describe(`the HPA controller with a metrics server and kubectl (--group-domain=${domain})`, () => {
    const legacy = domain === 'k8s.io' ? 'kubernetes.io' : domain;
    const ns = 'hpa-e2e';
    let metrics: FakeMetricsServer;
    let server: RunningServer;
    let home: string;
    const kubectl = (...args: string[]): Promise<KubectlResult> =>
      new Promise((resolve, reject) => {
        const proc = spawn('kubectl', ['--kubeconfig', server.kubeconfigPath!, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C' } });
        let stdout = '';
        let stderr = '';
        proc.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
        proc.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        proc.on('error', reject);
        proc.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const apply = async (yaml: string): Promise<string> => {
      const file = join(home, `manifest-${Date.now()}.yaml`);
      writeFileSync(file, yaml);
      return ok(await kubectl('apply', '-f', file));
    };

    beforeAll(async () => {
      const proxyCa = await generateCa('front-proxy-ca');
      const proxyClient = await issueCert(proxyCa, 'front-proxy-client');
      const dir = tempDir('hpa-e2e-');
      writeFileSync(join(dir, 'proxy.crt'), proxyClient.certPem);
      writeFileSync(join(dir, 'proxy.key'), proxyClient.keyPem);
      metrics = await startFakeMetricsServer({ service: 'metrics-server', namespace: 'kube-system', proxyClientCa: proxyCa.certPem });
      server = await startServer(testConfig({ dataDir: join(dir, 'data'), groupDomain: domain, proxyClient: { certFile: join(dir, 'proxy.crt'), keyFile: join(dir, 'proxy.key') } }), {
        logger: memoryLogger().logger,
        aggregation: {
          serviceResolver: (s) => {
            if (s.namespace !== 'kube-system' || s.name !== 'metrics-server') throw new Error(`unexpected service ${s.namespace}/${s.name}`);
            return { host: '127.0.0.1', port: metrics.port };
          },
          availabilityIntervalMs: 300,
        },
      });
      home = mkdtempSync(join(tmpdir(), 'hpa-e2e-kubectl-'));
      await apply(`apiVersion: apiregistration.${domain}/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  service: { namespace: kube-system, name: metrics-server, port: 443 }
  caBundle: ${metrics.caBundle}
`);
      await eventually('the metrics APIService Available', async () => {
        const res = await kubectl('get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}');
        return res.stdout === 'True' ? true : undefined;
      });
      ok(await kubectl('create', 'namespace', ns));
    }, 90_000);

    afterAll(async () => {
      await server?.close();
      await metrics?.stop();
      await stopAll();
      if (home !== undefined) rmSync(home, { recursive: true, force: true });
    });

    it('kubectl autoscale rc; the controller scales it from the metrics API and kubectl get hpa shows the status', async () => {
      await apply(RC.replace('name: web', `name: web\n  namespace: ${ns}`));
      // The replicationcontroller-controller makes the pods; the test is their node agent and their metrics server.
      const names = await eventually('the two pods', async () => {
        const pods = JSON.parse(ok(await kubectl('get', 'pods', '-n', ns, '-l', 'app=web', '-o', 'json'))) as { items: Array<{ metadata: { name: string } }> };
        return pods.items.length === 2 ? pods.items.map((p) => p.metadata.name) : undefined;
      });
      const longAgo = `${new Date(Date.now() - 3_600_000).toISOString().slice(0, 19)}Z`;
      for (const name of names) {
        const status = { status: { phase: 'Running', startTime: longAgo, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: longAgo }] } };
        ok(await kubectl('patch', 'pod', name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)));
        metrics.setPod(ns, name, { app: 'web' }, 100); // 100 % of the request against 50 %: 4 replicas
      }

      expect(ok(await kubectl('autoscale', 'rc', 'web', '-n', ns, '--min=1', '--max=5', '--cpu-percent=50'))).toBe('horizontalpodautoscaler.autoscaling/web autoscaled\n');
      const before = parseTable(ok(await kubectl('get', 'hpa', 'web', '-n', ns)));
      expect(before).toEqual([expect.objectContaining({ NAME: 'web', REFERENCE: 'ReplicationController/web', TARGETS: 'cpu: <unknown>/50%', MINPODS: '1', MAXPODS: '5', REPLICAS: '0' })]);

      // The first sync (kube's 15 s period after the HPA appeared) scales 2 -> 4.
      await eventually('the rescale', async () => (ok(await kubectl('get', 'rc', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}')) === '4' ? true : undefined));
      const rows = await eventually('the status in kubectl get hpa', async () => {
        const table = parseTable(ok(await kubectl('get', 'hpa', 'web', '-n', ns)));
        return table[0]?.TARGETS === 'cpu: 100%/50%' ? table : undefined;
      });
      expect(rows[0]).toEqual(expect.objectContaining({ REPLICAS: '2', MINPODS: '1', MAXPODS: '5' }));

      type Hpa = { status: Record<string, unknown>; metadata: { annotations?: Record<string, string> } };
      type Condition = { type: string; status: string; reason: string };
      const conditionsOf = (h: Hpa): Condition[] => JSON.parse(h.metadata.annotations?.[`autoscaling.alpha.${legacy}/conditions`] ?? '[]') as Condition[];
      // The conditions annotation is the second write of a sync (the main resource, after /status).
      const hpa = await eventually('the conditions of the scaling sync', async () => {
        const h = JSON.parse(ok(await kubectl('get', 'hpa', 'web', '-n', ns, '-o', 'json'))) as Hpa;
        return conditionsOf(h).some((c) => c.type === 'ScalingActive' && c.reason === 'ValidMetricFound') ? h : undefined;
      });
      expect(hpa.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 4, currentCPUUtilizationPercentage: 100 });
      expect(typeof hpa.status.lastScaleTime).toBe('string');
      // SucceededRescale after the sync that scaled; ReadyForNewScale once a later one found nothing to do.
      expect(conditionsOf(hpa).map((c) => [c.type, c.status, c.reason])).toEqual([
        ['AbleToScale', 'True', expect.stringMatching(/^(SucceededRescale|ReadyForNewScale)$/)],
        ['ScalingActive', 'True', 'ValidMetricFound'],
        ['ScalingLimited', 'False', 'DesiredWithinRange'],
      ]);
      expect(hpa.metadata.annotations?.[`autoscaling.alpha.${legacy}/current-metrics`]).toBe('[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":100,"currentAverageValue":"100m"}}]');

      const events = ok(await kubectl('get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=web,reason=SuccessfulRescale', '-o', 'jsonpath={.items[*].message}'));
      expect(events).toBe('New size: 4; reason: cpu resource utilization (percentage of request) above target');

      // Through the aggregator's transport: the proxy client certificate and the controller's identity.
      const seen = metrics.requests.filter((r) => r.path === `/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods`);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]).toMatchObject({ query: '?labelSelector=app%3Dweb', clientCN: 'front-proxy-client', clientAuthorized: true, remoteUser: `system:serviceaccount:${domain === 'k8s.io' ? 'kube' : 'platform'}-system:horizontal-pod-autoscaler` });

      // The two new pods have no status (Pending, unready): on the next syncs they count as 0 % and the count stays.
      await eventually('REPLICAS 4', async () => (parseTable(ok(await kubectl('get', 'hpa', 'web', '-n', ns)))[0]?.REPLICAS === '4' ? true : undefined));
      expect(ok(await kubectl('get', 'rc', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}'))).toBe('4');
    }, 120_000);
  });
}
