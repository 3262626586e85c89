/**
 * End to end, issue 4: stock kubectl (the dispatcher on PATH, which runs kubectl 1.32 here) against the
 * BUILT server (`bin/platform-apiserver`), on the embedded store and on a real etcd, for the commands that
 * live on watch:
 * - `kubectl get configmaps -w` prints a row for every change made while it runs; `--output-watch-events`
 *   adds the event type; `get <name> -w` prints only that object's changes;
 * - `kubectl wait --for=condition=Ready node/<n>` returns when a /status update sets the condition;
 *   `--for=delete` when the object is deleted; `--for=jsonpath='{.data.k}'=v` when the field gets the value;
 * - `kubectl delete` (which waits for the deletion) completes without error messages, also for a namespace,
 *   which the namespace controller finalizes after emptying it.
 * The changes are made over HTTPS by the test, with the generated admin credentials, AFTER kubectl is
 * watching: kubectl's long-running processes are read incrementally and killed at the end; a wait is changed
 * only once the server's log shows kubectl's list (its watch starts from that list's resourceVersion).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from '../http/helpers.js';
import { requireBuild, startApiserver, type RunningApiserver } from './kubectl-helpers.js';

let etcdStarting: Promise<EtcdCluster> | undefined;
beforeAll(() => requireBuild());
afterAll(async () => {
  await (await etcdStarting?.catch(() => undefined))?.stop();
});

/** A kubectl that keeps running (`get -w`, `wait`): its output is read as it comes. */
interface LiveKubectl {
  stdout(): string;
  stderr(): string;
  /** Resolves when `probe(stdout)` holds; rejects on timeout or if kubectl exits first. */
  until(probe: (stdout: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
  readonly running: boolean;
  /** Resolves with the exit status. */
  readonly exited: Promise<number | null>;
  /** SIGTERM (SIGKILL after 5 s) unless it already exited. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

function startKubectl(server: RunningApiserver, home: string, args: readonly string[]): LiveKubectl {
  const proc = spawn('kubectl', ['--kubeconfig', server.kubeconfig, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(proc);
  let out = '';
  let err = '';
  let status: number | null | undefined;
  const waiters: (() => void)[] = [];
  const wake = (): void => waiters.splice(0).forEach((w) => w());
  proc.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; wake(); });
  proc.stderr.setEncoding('utf8').on('data', (c: string) => { err += c; wake(); });
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => {
    status = code;
    live.delete(proc);
    wake();
    resolve(code);
  }));
  return {
    stdout: () => out,
    stderr: () => err,
    get running() {
      return status === undefined;
    },
    exited,
    async until(probe, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!probe(out)) {
        if (status !== undefined) throw new Error(`kubectl ${args.join(' ')} exited (${status}) before ${what}; stdout: ${out}; stderr: ${err}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}; stdout: ${out}; stderr: ${err}`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => { clearTimeout(t); r(); });
        });
      }
    },
    async stop() {
      if (status !== undefined) return;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** The complete rows of `kubectl get -w` output after the header, as whitespace-split cells. */
const rows = (text: string): string[][] => text.split('\n').slice(1, -1).filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s+/));

for (const backend of ['memory', 'etcd'] as const) {
  (backend === 'etcd' ? describeEtcd : describe)(`kubectl watch commands against bin/platform-apiserver (${backend})`, () => {
    let server: RunningApiserver;
    let home: string;
    let base: { url: string; ca: string; token: string };
    let ns: string;
    let counter = 0;
    const running: LiveKubectl[] = [];
    const kubectl = (...args: string[]): LiveKubectl => {
      const k = startKubectl(server, home, args);
      running.push(k);
      return k;
    };
    const api = async (method: string, path: string, o: ApiRequestOptions = {}, want = [200, 201]): Promise<ApiResponse> => {
      const res = await apiRequest(base, method, path, o);
      if (!want.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${res.text()}`);
      return res;
    };
    const cmPath = (name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name === '' ? '' : `/${name}`}`;
    const createCm = (name: string, data: Record<string, string> = { a: '1' }): Promise<ApiResponse> =>
      api('POST', cmPath(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data } });
    /** Resolves once the server has answered kubectl's list for `fieldSelector=metadata.name=<name>` on `path`. */
    const listedByName = async (k: LiveKubectl, path: string, name: string): Promise<void> => {
      const seen = (): boolean => server.log().split('\n').some((l) => {
        if (!l.includes('"msg":"request"')) return false;
        const r = JSON.parse(l);
        const q = new URLSearchParams(r.query ?? '');
        return r.path === path && r.method === 'GET' && r.status === 200 && q.get('watch') === null && q.get('fieldSelector') === `metadata.name=${name}`;
      });
      const deadline = Date.now() + 20_000;
      // The server log arrives on a pipe; wait for it without a fixed sleep between checks of a condition that
      // only changes when data arrives: poll at a short interval, bounded.
      while (!seen()) {
        if (!k.running) throw new Error(`kubectl exited before listing ${name}: ${k.stdout()} ${k.stderr()}`);
        if (Date.now() > deadline) throw new Error(`kubectl did not list ${name}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };

    beforeAll(async () => {
      const args: string[] = [];
      if (backend === 'etcd') {
        const cluster = await (etcdStarting ??= startEtcd());
        args.push(`--etcd-servers=${cluster.endpoints.join(',')}`, `--etcd-prefix=/e2e-watch-${process.pid}`);
      }
      server = await startApiserver(args);
      home = mkdtempSync(join(tmpdir(), 'e2e-kubectl-watch-home-'));
      const config = parseYaml(readFileSync(server.kubeconfig, 'utf8'));
      base = {
        url: server.url,
        ca: Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8'),
        token: config.users[0].user.token,
      };
    }, 60_000);
    beforeEach(async () => {
      ns = `watch-${++counter}`;
      await api('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
    });
    afterEach(async () => {
      await Promise.all(running.splice(0).map((k) => k.stop()));
    });
    afterAll(async () => {
      await server?.stop();
      if (home !== undefined) rmSync(home, { recursive: true, force: true });
    });

    it('get configmaps -w prints the existing rows, then one row per change made while it runs', async () => {
      await createCm('pre');
      const k = kubectl('get', 'configmaps', '-n', ns, '-w');
      await k.until((o) => rows(o).some((r) => r[0] === 'pre'), 'the initial row');
      expect(k.stdout().split('\n')[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
      await createCm('w1');
      await k.until((o) => rows(o).filter((r) => r[0] === 'w1').length === 1, 'the ADDED row');
      await api('PATCH', cmPath('w1'), { body: { data: { b: '2', c: '3' } } });
      await k.until((o) => rows(o).filter((r) => r[0] === 'w1').length === 2, 'the MODIFIED row');
      await api('DELETE', cmPath('w1'));
      await k.until((o) => rows(o).filter((r) => r[0] === 'w1').length === 3, 'the DELETED row');
      expect(rows(k.stdout()).map((r) => r.slice(0, 2))).toEqual([['pre', '1'], ['w1', '1'], ['w1', '3'], ['w1', '3']]);
      expect(k.running).toBe(true);
      expect(k.stderr()).toBe('');
    });

    it('get configmaps -w --output-watch-events prints the event type of each change', async () => {
      await createCm('pre');
      const k = kubectl('get', 'configmaps', '-n', ns, '-w', '--output-watch-events');
      await k.until((o) => rows(o).some((r) => r[1] === 'pre'), 'the initial row');
      expect(k.stdout().split('\n')[0]).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE$/);
      await createCm('w2');
      await api('PATCH', cmPath('w2'), { body: { data: { b: '2' } } });
      await api('DELETE', cmPath('w2'));
      await k.until((o) => rows(o).some((r) => r[0] === 'DELETED'), 'the DELETED event');
      expect(rows(k.stdout()).map((r) => r.slice(0, 3))).toEqual([
        ['ADDED', 'pre', '1'], ['ADDED', 'w2', '1'], ['MODIFIED', 'w2', '2'], ['DELETED', 'w2', '2'],
      ]);
      expect(k.stderr()).toBe('');
    });

    it('get configmap <name> -w prints only that object\'s changes', async () => {
      await createCm('mine');
      await createCm('other');
      const k = kubectl('get', 'configmap', 'mine', '-n', ns, '-w', '--output-watch-events');
      await k.until((o) => rows(o).some((r) => r[1] === 'mine'), 'the initial row');
      // The other object changes first: its event would come before mine's if the watch let it through.
      await api('PATCH', cmPath('other'), { body: { data: { x: '1' } } });
      await createCm('third');
      await api('PATCH', cmPath('mine'), { body: { data: { b: '2', c: '3' } } });
      await k.until((o) => rows(o).some((r) => r[0] === 'MODIFIED'), 'the MODIFIED row of mine');
      await api('DELETE', cmPath('mine'));
      await k.until((o) => rows(o).some((r) => r[0] === 'DELETED'), 'the DELETED row of mine');
      expect(rows(k.stdout()).map((r) => r.slice(0, 3))).toEqual([['ADDED', 'mine', '1'], ['MODIFIED', 'mine', '3'], ['DELETED', 'mine', '3']]);
      expect(k.stderr()).toBe('');
    });

    it('wait --for=condition=Ready node/<n> returns when a /status update sets the condition', async () => {
      const node = `node-${backend}-${counter}`;
      await api('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node } } });
      const k = kubectl('wait', '--for=condition=Ready', `node/${node}`, '--timeout=30s');
      await listedByName(k, '/api/v1/nodes', node);
      expect(k.running).toBe(true); // not met yet: it is watching
      const res = await api('PATCH', `/api/v1/nodes/${node}/status`, {
        body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }] } },
      });
      expect(res.json().status.conditions[0]).toMatchObject({ type: 'Ready', status: 'True' });
      expect(await k.exited).toBe(0);
      expect(k.stdout()).toBe(`node/${node} condition met\n`);
      expect(k.stderr()).toBe('');
      await api('DELETE', `/api/v1/nodes/${node}`);
    });

    it('wait --for=condition=Ready times out (exit 1) while the condition is False', async () => {
      const node = `node-false-${backend}-${counter}`;
      await api('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node } } });
      await api('PATCH', `/api/v1/nodes/${node}/status`, { body: { status: { conditions: [{ type: 'Ready', status: 'False' }] } } });
      const k = kubectl('wait', '--for=condition=Ready', `node/${node}`, '--timeout=2s');
      expect(await k.exited).toBe(1);
      expect(k.stderr()).toMatch(/timed out waiting for the condition on nodes\/node-false/);
      await api('DELETE', `/api/v1/nodes/${node}`);
    });

    it('wait --for=delete returns when the object is deleted', async () => {
      await createCm('doomed');
      const k = kubectl('wait', '--for=delete', 'configmap/doomed', '-n', ns, '--timeout=30s');
      await listedByName(k, cmPath(), 'doomed');
      expect(k.running).toBe(true);
      await api('DELETE', cmPath('doomed'));
      expect(await k.exited).toBe(0);
      expect(k.stdout()).toBe('configmap/doomed condition met\n');
      expect(k.stderr()).toBe('');
    });

    it('wait --for=jsonpath=\'{.data.k}\'=v returns when the field gets the value', async () => {
      await createCm('jp', { k: 'u' });
      const k = kubectl('wait', '--for=jsonpath={.data.k}=v', 'configmap/jp', '-n', ns, '--timeout=30s');
      await listedByName(k, cmPath(), 'jp');
      await api('PATCH', cmPath('jp'), { body: { data: { other: 'x' } } }); // a change that does not meet it
      expect(k.running).toBe(true);
      await api('PATCH', cmPath('jp'), { body: { data: { k: 'v' } } });
      expect(await k.exited).toBe(0);
      expect(k.stdout()).toBe('configmap/jp condition met\n');
      expect(k.stderr()).toBe('');
    });

    it('delete waits for the deletion and completes without error messages (a configmap, a namespace with objects)', async () => {
      await createCm('gone');
      const k = kubectl('delete', 'configmap', 'gone', '-n', ns);
      expect(await k.exited).toBe(0);
      expect(k.stdout()).toBe('configmap "gone" deleted\n');
      expect(k.stderr()).toBe('');
      await api('GET', cmPath('gone'), {}, [404]);

      await createCm('inside');
      const started = Date.now();
      const d = kubectl('delete', 'namespace', ns);
      expect(await d.exited).toBe(0);
      expect(d.stdout()).toBe(`namespace "${ns}" deleted\n`);
      expect(d.stderr()).toBe('');
      // It waited for the namespace controller to finish: the namespace is gone when kubectl returns.
      await api('GET', `/api/v1/namespaces/${ns}`, {}, [404]);
      expect(Date.now() - started).toBeLessThan(30_000);
    });
  });
}
