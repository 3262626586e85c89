/**
 * Shared parts of the real-client tests (test/clients): a concurrent write workload over HTTPS, the
 * driver of a client running in a child process, and the comparison of a client's cache with the server.
 *
 * The clients (client-node-informer.mjs, python-watch.py) speak one line protocol. On stdout, one JSON
 * object per line:
 *   {"t":"ADDED"|"MODIFIED"|"DELETED","name","rv","data","via":"watch"|"list"}   a change the client applied
 *   {"t":"list","rv","n"}        a list the client made (n items)
 *   {"t":"watch","rv"}           a watch the client starts from rv
 *   {"t":"error","code","msg"}   an error the client saw (it recovers by itself)
 *   {"t":"dump","rv","items":[{"name","rv","data"}]}   its cache, in answer to "dump" on stdin
 * Closing stdin stops the client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { TestApi } from '../http/helpers.js';

export interface ClientLine {
  readonly t: string;
  readonly name?: string;
  readonly rv?: string;
  readonly data?: Record<string, string>;
  readonly via?: string;
  readonly n?: number;
  readonly code?: number | string | null;
  readonly msg?: string;
  readonly items?: { name: string; rv: string; data?: Record<string, string> }[];
}

export interface ObjectState {
  readonly rv: string;
  readonly data: Record<string, string>;
}

/** The final state the test's own writes left: a name maps to its object, or to 'deleted'. */
export type Expected = Map<string, ObjectState | 'deleted'>;

// ---------------------------------------------------------------------------------------------------------
// Writes

/** HTTPS requests on a keep-alive pool (the workload makes thousands); `destroy()` closes it. */
export class Writer {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  constructor(private readonly api: Pick<TestApi, 'url' | 'ca' | 'token'>) {}

  request(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { Authorization: `Bearer ${this.api.token}`, 'User-Agent': 'acceptance-test' };
    if (payload !== undefined) {
      headers['Content-Type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(new URL(path, this.api.url), { method, ca: this.api.ca, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  destroy(): void {
    this.agent.destroy();
  }
}

/** Runs `fn` over `items` with at most `concurrency` in flight; rejects with the first failure. */
export async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export type Op = { readonly kind: 'create' | 'update' | 'delete'; readonly name: string; readonly value?: string };

/** Applies ops (each name's ops in order; names concurrently, `concurrency` in flight); records results. */
export interface Applied {
  readonly name: string;
  readonly kind: Op['kind'];
  /** The resourceVersion of the response's object. */
  readonly rv: string;
}

export async function applyOps(
  w: Writer, ns: string, ops: readonly Op[], expected: Expected, applied: Applied[] = [], concurrency = 32,
): Promise<number> {
  const byName = new Map<string, Op[]>();
  for (const op of ops) byName.set(op.name, [...(byName.get(op.name) ?? []), op]);
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let done = 0;
  await pool([...byName.values()], concurrency, async (seq) => {
    for (const op of seq) {
      let res: { status: number; json: any };
      if (op.kind === 'create') {
        res = await w.request('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: op.name }, data: { v: op.value ?? '1' } });
        if (res.status !== 201) throw new Error(`create ${op.name}: ${res.status} ${JSON.stringify(res.json)}`);
        expected.set(op.name, { rv: res.json.metadata.resourceVersion, data: res.json.data });
      } else if (op.kind === 'update') {
        res = await w.request('PATCH', `${base}/${op.name}`, { data: { v: op.value ?? '2' } });
        if (res.status !== 200) throw new Error(`update ${op.name}: ${res.status} ${JSON.stringify(res.json)}`);
        expected.set(op.name, { rv: res.json.metadata.resourceVersion, data: res.json.data });
      } else {
        res = await w.request('DELETE', `${base}/${op.name}`);
        if (res.status !== 200) throw new Error(`delete ${op.name}: ${res.status} ${JSON.stringify(res.json)}`);
        expected.set(op.name, 'deleted');
      }
      applied.push({ name: op.name, kind: op.kind, rv: res.json.metadata.resourceVersion });
      done += 1;
    }
  });
  return done;
}

/** 1,000 objects (by default): each created, then updated, and every third one deleted. */
export function churnOps(prefix: string, count = 1000): Op[] {
  const ops: Op[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${i}`;
    ops.push({ kind: 'create', name, value: '1' }, { kind: 'update', name, value: '2' });
    if (i % 3 === 0) ops.push({ kind: 'delete', name });
  }
  return ops;
}

/** Request log lines of a server (its memoryLogger) made by the clients, not by the test's own Writer. */
export function clientRequests(lines: readonly string[], path: string): { lists: number; watches: number; watch410: number; statuses: string[] } {
  let lists = 0;
  let watches = 0;
  let watch410 = 0;
  const statuses: string[] = [];
  for (const l of lines) {
    const r = JSON.parse(l);
    if (r.msg !== 'request' || r.path !== path || r.method !== 'GET' || r.userAgent === 'acceptance-test') continue;
    const watch = /(^|&)watch=(true|1|t|True|TRUE)(&|$)/.test(r.query ?? '');
    if (watch) {
      watches += 1;
      if (r.status === 410) watch410 += 1;
    } else lists += 1;
    statuses.push(`${watch ? 'watch' : 'list'} ${r.status}`);
  }
  return { lists, watches, watch410, statuses };
}

/** The server's list of ConfigMaps in `ns` (Most Recent), as name -> state, and its resourceVersion. */
export async function serverState(w: Writer, ns: string): Promise<{ rv: string; objects: Map<string, ObjectState> }> {
  const res = await w.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  if (res.status !== 200) throw new Error(`list: ${res.status} ${JSON.stringify(res.json)}`);
  const objects = new Map<string, ObjectState>();
  for (const item of res.json.items) objects.set(item.metadata.name, { rv: item.metadata.resourceVersion, data: item.data ?? {} });
  return { rv: res.json.metadata.resourceVersion, objects };
}

// ---------------------------------------------------------------------------------------------------------
// Kubeconfig and the client process

/** The server's generated admin kubeconfig with its server URL replaced (e.g. by a proxy's). */
export function kubeconfigFor(generatedPath: string, serverUrl: string, dir: string): string {
  const config = parseYaml(readFileSync(generatedPath, 'utf8'));
  for (const c of config.clusters) c.cluster.server = serverUrl;
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, stringifyYaml(config));
  return path;
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** A client in a child process speaking the line protocol above. */
export class ClientProcess {
  readonly lines: ClientLine[] = [];
  private stderrText = '';
  private partial = '';
  private waiters: (() => void)[] = [];
  private readonly exited: Promise<void>;
  private exitCode: number | null | undefined;

  constructor(command: string, args: readonly string[], env: Record<string, string> = {}) {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.child = child;
    children.add(child);
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      const parts = (this.partial + c).split('\n');
      this.partial = parts.pop()!;
      for (const p of parts) if (p.trim() !== '') this.lines.push(JSON.parse(p) as ClientLine);
      this.wake();
    });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      this.stderrText += c;
    });
    child.stdin!.on('error', () => undefined);
    this.exited = new Promise((resolve) => child.once('exit', (code) => {
      this.exitCode = code;
      children.delete(child);
      this.wake();
      resolve();
    }));
  }

  private readonly child: ChildProcess;

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Lines of type `t`. */
  of(t: string): ClientLine[] {
    return this.lines.filter((l) => l.t === t);
  }

  /** Waits until `probe()` holds (re-checked on every line the client prints). */
  async until(probe: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (this.exitCode !== undefined) throw new Error(`client exited (${this.exitCode}) while waiting for ${what}; stderr: ${this.stderrText}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what} (last lines: ${JSON.stringify(this.lines.slice(-3))}; stderr: ${this.stderrText.slice(-2000)})`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Sends one command line on the client's stdin (e.g. `start` to custom-object-informer.mjs). */
  send(command: string): void {
    this.child.stdin!.write(`${command}\n`);
  }

  /** Asks for the client's cache. */
  async dump(): Promise<{ rv: string; objects: Map<string, ObjectState> }> {
    const before = this.of('dump').length;
    this.child.stdin!.write('dump\n');
    await this.until(() => this.of('dump').length > before, 'a dump', 10_000);
    const d = this.of('dump')[before]!;
    const objects = new Map<string, ObjectState>();
    for (const i of d.items ?? []) objects.set(i.name, { rv: i.rv, data: i.data ?? {} });
    return { rv: d.rv ?? '', objects };
  }

  /** The last change the client applied for each name. */
  lastEvents(): Map<string, ClientLine> {
    const m = new Map<string, ClientLine>();
    for (const l of this.lines) if (l.t === 'ADDED' || l.t === 'MODIFIED' || l.t === 'DELETED') m.set(l.name!, l);
    return m;
  }

  /** Closes stdin (the client stops), then SIGKILL after 5 s. */
  async stop(): Promise<void> {
    if (this.exitCode === undefined) {
      this.child.stdin!.end();
      const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await this.exited;
      clearTimeout(t);
    }
  }
}

/** Whether the client's last change of every name matches what the writes left (deleted: DELETED). */
export function mismatchedLastEvents(client: ClientProcess, expected: Expected): string[] {
  const last = client.lastEvents();
  const bad: string[] = [];
  for (const [name, want] of expected) {
    const got = last.get(name);
    if (want === 'deleted') {
      if (got?.t !== 'DELETED') bad.push(`${name}: want DELETED, last ${got?.t ?? 'none'}`);
    } else if (got === undefined || got.t === 'DELETED' || got.rv !== want.rv || JSON.stringify(got.data) !== JSON.stringify(want.data)) {
      bad.push(`${name}: want rv ${want.rv} ${JSON.stringify(want.data)}, last ${got?.t ?? 'none'} ${got?.rv ?? ''} ${JSON.stringify(got?.data)}`);
    }
  }
  return bad;
}

/** Differences between two name -> state maps (empty when equal). */
export function diffStates(a: Map<string, ObjectState>, b: Map<string, ObjectState>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) {
    const o = b.get(k);
    if (o === undefined) out.push(`${k} only in first`);
    else if (o.rv !== v.rv || JSON.stringify(o.data) !== JSON.stringify(v.data)) out.push(`${k}: ${v.rv} vs ${o.rv}`);
  }
  for (const k of b.keys()) if (!a.has(k)) out.push(`${k} only in second`);
  return out;
}

/** Waits until the client's cache equals the server's list (polling dumps); returns the last comparison. */
export async function converge(client: ClientProcess, w: Writer, ns: string, timeoutMs = 30_000): Promise<{ server: Map<string, ObjectState>; client: Map<string, ObjectState> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const server = await serverState(w, ns);
    const mine = await client.dump();
    const diff = diffStates(server.objects, mine.objects);
    if (diff.length === 0) return { server: server.objects, client: mine.objects };
    if (Date.now() > deadline) throw new Error(`client did not converge: ${diff.length} differences, e.g. ${diff.slice(0, 5).join('; ')}`);
    // Wait for the client to print something new (an event) before comparing again.
    const seen = client.lines.length;
    await client.until(() => client.lines.length > seen, 'client progress', Math.max(100, deadline - Date.now())).catch(() => undefined);
  }
}
