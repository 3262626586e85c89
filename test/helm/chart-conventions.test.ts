/**
 * The conventions a platform team checks in a chart (issue 17, item 4), for every value set:
 * - every object carries the app.kubernetes.io/* labels of its release;
 * - every workload's selector matches its pod labels, holds no label that changes on upgrade, and is the
 *   same in every value set (a selector is immutable: a changed one fails `helm upgrade`);
 * - every Service, PodDisruptionBudget and ServiceMonitor selects exactly one workload (or Service), by
 *   ports that exist;
 * - every probe points at a path the container serves and a port it declares; the server's paths answer
 *   200 to an unauthenticated client (a kubelet) on a real server started with the rendered flags;
 * - the PodDisruptionBudgets allow a rolling update (and keep etcd's quorum);
 * - terminationGracePeriodSeconds outlasts --shutdown-delay-duration plus --shutdown-timeout, and the
 *   delay outlasts the readiness probe's detection time;
 * - the pod template's checksum annotation changes with the configuration and only with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderChart, repoRoot } from './render.js';
import {
  durationSeconds, flagValue, objectsOf, optionsFor, ref, RELEASE, renderSet, selects, VALUE_SETS, workloadsOf,
  type Json, type ValueSet,
} from './value-sets.js';

const externalEtcd = VALUE_SETS.find((s) => s.name === 'external etcd')!;

function podSpec(workload: Json): Json {
  return workload.spec.template.spec as Json;
}

function podLabels(workload: Json): Record<string, string> {
  return workload.spec.template.metadata.labels as Record<string, string>;
}

function serverDeployment(set: ValueSet, values: unknown[] = []): Json {
  const objects = values.length === 0 ? objectsOf(renderSet(set)) : objectsOf(renderChart(optionsFor(set, ...values)));
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  expect(deployments).toHaveLength(1);
  return deployments[0]!;
}

function serverContainer(deployment: Json): Json {
  return (podSpec(deployment).containers as Json[]).find((c) => c.name === 'apiserver')!;
}

/** Paths each container's program serves without credentials, by image: the server's and etcd's health endpoints. */
function servedPaths(container: Json): string[] {
  if (/(^|\/)etcd:/.test(container.image)) return ['/health', '/livez', '/readyz'];
  return ['/livez', '/readyz'];
}

/** Labels that change from one chart or app version to the next: never in a selector. */
const VOLATILE_LABELS = ['app.kubernetes.io/version', 'helm.sh/chart'];

describe.each(VALUE_SETS)('the chart with values "$name"', (set) => {
  const objects = () => objectsOf(renderSet(set));

  it('labels every object with the release\'s app.kubernetes.io/* labels', () => {
    const missing: string[] = [];
    for (const o of objects()) {
      const labels = (o.metadata.labels ?? {}) as Record<string, string>;
      const want: Record<string, string | RegExp> = {
        'app.kubernetes.io/name': 'platform-apiserver',
        'app.kubernetes.io/instance': RELEASE,
        'app.kubernetes.io/managed-by': 'Helm',
        'app.kubernetes.io/version': /^\S+$/,
        'app.kubernetes.io/component': /^[a-z]+$/,
        'helm.sh/chart': /^platform-apiserver-\S+$/,
      };
      for (const [k, v] of Object.entries(want)) {
        const got = labels[k];
        if (got === undefined || (typeof v === 'string' ? got !== v : !v.test(got))) missing.push(`${ref(o)} ${k}=${got}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every workload a selector that matches its pods and holds no version label', () => {
    const workloads = workloadsOf(renderSet(set));
    expect(workloads.length).toBeGreaterThan(0);
    for (const w of workloads) {
      const selector = w.spec.selector as Json;
      expect([ref(w), selects(selector, podLabels(w))]).toEqual([ref(w), true]);
      expect([ref(w), Object.keys(selector.matchLabels ?? {}).filter((k) => VOLATILE_LABELS.includes(k))]).toEqual([ref(w), []]);
      expect(Object.keys(selector.matchLabels ?? {})).toEqual(expect.arrayContaining(['app.kubernetes.io/name', 'app.kubernetes.io/instance']));
    }
    // The server and etcd pods are told apart: no workload's selector picks another's pods.
    for (const w of workloads) {
      for (const other of workloads.filter((x) => x !== w)) {
        expect([ref(w), ref(other), selects(w.spec.selector, podLabels(other))]).toEqual([ref(w), ref(other), false]);
      }
    }
  });

  it('has every Service select one workload\'s pods by ports they declare', () => {
    const workloads = workloadsOf(renderSet(set));
    for (const service of objects().filter((o) => o.kind === 'Service')) {
      const matched = workloads.filter((w) => selects(service.spec.selector, podLabels(w)));
      expect([ref(service), matched.map(ref)]).toEqual([ref(service), [expect.any(String)]]);
      const ports = (podSpec(matched[0]!).containers as Json[]).flatMap((c) => (c.ports ?? []) as Json[]);
      for (const p of service.spec.ports as Json[]) {
        const target = p.targetPort ?? p.port;
        const found = ports.some((cp) => (typeof target === 'string' ? cp.name === target : cp.containerPort === target));
        expect([ref(service), target, found]).toEqual([ref(service), target, true]);
      }
    }
  });

  it('has every PodDisruptionBudget select one workload and still allow a rolling update', () => {
    const workloads = workloadsOf(renderSet(set));
    const pdbs = objects().filter((o) => o.kind === 'PodDisruptionBudget');
    // One per replicated workload: the server, and the bundled etcd when there is one.
    expect(pdbs).toHaveLength(workloads.length);
    for (const pdb of pdbs) {
      const matched = workloads.filter((w) => selects(pdb.spec.selector, podLabels(w)));
      expect([ref(pdb), matched.length]).toEqual([ref(pdb), 1]);
      const replicas = matched[0]!.spec.replicas as number;
      const { maxUnavailable, minAvailable } = pdb.spec as { maxUnavailable?: number | string; minAvailable?: number | string };
      // Percentages are rounded up by the disruption controller: any positive one allows one pod.
      const allowed = maxUnavailable !== undefined
        ? (typeof maxUnavailable === 'number' ? maxUnavailable : Math.ceil(replicas * parseFloat(maxUnavailable) / 100))
        : replicas - (typeof minAvailable === 'number' ? minAvailable! : Math.ceil(replicas * parseFloat(String(minAvailable)) / 100));
      expect([ref(pdb), allowed >= 1]).toEqual([ref(pdb), true]);
      if (matched[0]!.kind === 'StatefulSet' && /etcd/.test(matched[0]!.metadata.name)) {
        // etcd keeps quorum: at most (n-1)/2 members down at once.
        expect([ref(pdb), allowed <= Math.floor((replicas - 1) / 2)]).toEqual([ref(pdb), true]);
      }
    }
  });

  it('has every ServiceMonitor select one Service and scrape a port it has', () => {
    const services = objects().filter((o) => o.kind === 'Service');
    for (const sm of objects().filter((o) => o.kind === 'ServiceMonitor')) {
      const matched = services.filter((s) => selects(sm.spec.selector, s.metadata.labels ?? {}));
      expect([ref(sm), matched.length]).toEqual([ref(sm), 1]);
      for (const ep of sm.spec.endpoints as Json[]) {
        expect((matched[0]!.spec.ports as Json[]).map((p) => p.name)).toContain(ep.port);
      }
      const ns = sm.spec.namespaceSelector as Json | undefined;
      if (ns !== undefined && ns.any !== true) expect(ns.matchNames).toContain(sm.metadata.namespace);
    }
  });

  it('points every probe at a path the container serves and a port it declares', () => {
    let probes = 0;
    for (const w of workloadsOf(renderSet(set))) {
      for (const c of podSpec(w).containers as Json[]) {
        const ports = (c.ports ?? []) as Json[];
        for (const kind of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
          const probe = c[kind] as Json | undefined;
          if (probe === undefined) continue;
          probes++;
          const where = `${ref(w)} ${c.name} ${kind}`;
          expect([where, probe.httpGet !== undefined]).toEqual([where, true]);
          // The path without its query (etcd's `/health?serializable=true` answers from the local member).
          const path = String(probe.httpGet.path).replace(/\?.*$/, '');
          expect([where, servedPaths(c)]).toEqual([where, expect.arrayContaining([path])]);
          const port = probe.httpGet.port as number | string;
          const declared = ports.find((p) => (typeof port === 'string' ? p.name === port : p.containerPort === port));
          expect([where, declared !== undefined]).toEqual([where, true]);
        }
      }
    }
    expect(probes).toBeGreaterThan(0);
    // The server: readiness on /readyz, liveness on /livez, over HTTPS on the port it listens on.
    const server = serverContainer(serverDeployment(set));
    expect(server.readinessProbe.httpGet.path).toBe('/readyz');
    expect(server.livenessProbe.httpGet.path).toBe('/livez');
    expect(server.readinessProbe.httpGet.scheme).toBe('HTTPS');
    const https = (server.ports as Json[]).find((p) => p.name === server.readinessProbe.httpGet.port || p.containerPort === server.readinessProbe.httpGet.port);
    expect(String(https!.containerPort)).toBe(flagValue(server.args, 'secure-port'));
  });

  it('gives replicas a grace period longer than the shutdown delay and drain, and a delay longer than readiness detection', () => {
    const deployment = serverDeployment(set);
    const server = serverContainer(deployment);
    const delay = durationSeconds(flagValue(server.args, 'shutdown-delay-duration')!);
    const timeout = durationSeconds(flagValue(server.args, 'shutdown-timeout')!);
    const grace = podSpec(deployment).terminationGracePeriodSeconds as number;
    expect(delay).toBeGreaterThan(0);
    expect(grace).toBeGreaterThan(delay);
    expect(grace).toBeGreaterThanOrEqual(delay + timeout);
    const readiness = server.readinessProbe as Json;
    expect(delay).toBeGreaterThan((readiness.periodSeconds ?? 10) * (readiness.failureThreshold ?? 3));
  });
});

describe('selectors across value sets', () => {
  it('are the same for each workload in every value set', () => {
    const byWorkload = new Map<string, Set<string>>();
    for (const set of VALUE_SETS) {
      for (const w of workloadsOf(renderSet(set))) {
        const key = ref(w);
        const seen = byWorkload.get(key) ?? new Set<string>();
        seen.add(JSON.stringify(w.spec.selector));
        byWorkload.set(key, seen);
      }
    }
    expect(byWorkload.size).toBeGreaterThanOrEqual(2);
    for (const [key, selectors] of byWorkload) expect([key, selectors.size]).toEqual([key, 1]);
  });

  it('are the same for another image and chart-independent pod labels', () => {
    const before = serverDeployment(externalEtcd);
    const after = serverDeployment(externalEtcd, [{ image: { tag: '9.9.9' }, podLabels: { team: 'platform' } }]);
    expect(after.spec.selector).toEqual(before.spec.selector);
    expect(podLabels(after).team).toBe('platform');
  });
});

describe('the checksum annotation', () => {
  // external etcd names every credential Secret, so nothing is generated and a render is deterministic.
  const checksums = (values: unknown[] = []): Record<string, string> => Object.fromEntries(
    Object.entries((serverDeployment(externalEtcd, values).spec.template.metadata.annotations ?? {}) as Record<string, string>)
      .filter(([k]) => k.startsWith('checksum/')),
  );

  it('is stable for the same values and changes with a server flag, the etcd endpoints or the shutdown delay', () => {
    const base = checksums();
    expect(Object.keys(base).length).toBeGreaterThan(0);
    expect(checksums([{}])).toEqual(base);
    for (const change of [
      { server: { flags: { 'log-level': 'debug' } } },
      { etcd: { external: { endpoints: ['https://etcd-9.etcd.example.com:2379'] } } },
      { server: { shutdownDelaySeconds: 25 } },
    ]) {
      expect([change, checksums([change])]).not.toEqual([change, base]);
    }
  });

  it('does not change with the replica count (scaling does not restart replicas)', () => {
    expect(checksums([{ replicaCount: 7 }])).toEqual(checksums());
  });
});

describe('the Dockerfile and the chart', () => {
  it('run the server as the same numeric non-root user', () => {
    const user = /^USER (\d+):(\d+)$/m.exec(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'));
    expect(user).not.toBeNull();
    const pod = podSpec(serverDeployment(VALUE_SETS[0]!)).securityContext as Json;
    expect(pod.runAsNonRoot).toBe(true);
    expect([pod.runAsUser, pod.runAsGroup]).toEqual([Number(user![1]), Number(user![2])]);
  });

  it('start the server through the image\'s ENTRYPOINT: the chart gives args, never a command', () => {
    const server = serverContainer(serverDeployment(VALUE_SETS[0]!));
    expect(server.command).toBeUndefined();
    expect(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8')).toMatch(/^ENTRYPOINT \["node", .*"dist\/apiserver\/main\.js"\]$/m);
    // The Dockerfile's default --data-dir is replaced by the chart's, on a writable volume.
    const dataDir = flagValue(server.args, 'data-dir');
    expect((server.volumeMounts as Json[]).map((m) => m.mountPath)).toContain(dataDir);
  });
});

describe('the server\'s probe paths, served for real', () => {
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;

  afterAll(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it('answer 200 without credentials, as the kubelet probes them, on a server with the rendered flags', async () => {
    const main = join(repoRoot, 'dist', 'apiserver', 'main.js');
    if (!existsSync(main)) throw new Error('dist/ is missing: jest\'s global set-up builds it');
    const server = serverContainer(serverDeployment(VALUE_SETS[0]!));
    // The rendered flags, but those naming the pod's files, addresses and etcd: a loopback server on the
    // embedded store keeps the authentication and authorization the chart configures.
    const local = /^--(bind-address|secure-port|advertise-address|data-dir|etcd-|tls-|token-auth-file|service-account-key-file|service-account-signing-key-file|cluster-signing-|client-ca-file|shutdown-delay-duration)/;
    const args = (server.args as string[]).filter((a) => !local.test(a));
    expect(args).toContain('--authorization-mode=RBAC');
    dataDir = mkdtempSync(join(tmpdir(), 'chart-probes-'));
    child = spawn(process.execPath, [main, ...args, `--data-dir=${dataDir}`, '--secure-port=0', '--bind-address=127.0.0.1',
      '--shutdown-delay-duration=0s', '--etcd-compaction-interval=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const port = await new Promise<number>((resolvePort, reject) => {
      let stdout = '';
      child!.stdout!.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
        const m = /Serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
        if (m !== null) resolvePort(Number(m[1]));
      });
      child!.once('exit', (code) => reject(new Error(`the server exited (${code}) before serving: ${stderr}`)));
    });
    // The kubelet neither authenticates nor verifies the serving certificate.
    const get = (path: string): Promise<number> => new Promise((res, rej) => {
      request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (r) => { r.resume(); r.on('end', () => res(r.statusCode ?? 0)); })
        .on('error', rej).end();
    });
    const paths = [...new Set(['startupProbe', 'livenessProbe', 'readinessProbe'].map((k) => server[k]?.httpGet?.path as string))];
    expect(paths.sort()).toEqual(['/livez', '/readyz']);
    for (const path of paths) {
      // /readyz may follow "Serving on" by the store's first check: wait for it, bounded.
      const deadline = Date.now() + 30_000;
      let status = await get(path);
      while (status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        status = await get(path);
      }
      expect([path, status]).toEqual([path, 200]);
    }
    // And a path no probe may use instead: the API itself refuses anonymous requests.
    expect(await get('/api/v1/namespaces')).toBe(403);
  }, 60_000);
});
