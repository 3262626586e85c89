/**
 * A watching client of test/clients (client-node-informer.mjs, python-watch.py) run as a child process,
 * every line it prints stamped with the time it was read, for the history checker (test/history). The
 * line protocol is test/clients/client-harness.ts's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { ClientLine, ObjectState } from '../../history/history.js';

const clientsDir = resolve(__dirname, '..', '..', 'clients');
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

export class Watcher {
  readonly lines: ClientLine[] = [];
  private partial = '';
  private stderrText = '';
  private waiters: (() => void)[] = [];
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;
  private readonly child: ChildProcess;

  private constructor(readonly id: string, command: string, args: readonly string[]) {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    live.add(child);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const now = Date.now();
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop()!;
      for (const p of parts) if (p.trim() !== '') this.lines.push({ ...(JSON.parse(p) as object), time: now } as ClientLine);
      this.wake();
    });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      this.stderrText = (this.stderrText + c).slice(-20_000);
    });
    child.stdin!.on('error', () => undefined);
    this.exited = new Promise((done) => child.once('exit', (code) => {
      this.exitCode = code;
      live.delete(child);
      this.wake();
      done();
    }));
  }

  /** The client-node 1.4 informer on the ConfigMaps of `namespace`. */
  static informer(kubeconfig: string, namespace: string): Watcher {
    return new Watcher('client-node-informer', process.execPath, [resolve(clientsDir, 'client-node-informer.mjs'), kubeconfig, namespace]);
  }

  /** The python3-kubernetes watch (a reflector that re-lists on 410) on the ConfigMaps of `namespace`. */
  static python(kubeconfig: string, namespace: string): Watcher {
    return new Watcher('python-watch', '/usr/bin/python3', [resolve(clientsDir, 'python-watch.py'), kubeconfig, namespace]);
  }

  get stderr(): string {
    return this.stderrText;
  }

  of(t: string): ClientLine[] {
    return this.lines.filter((l) => l.t === t);
  }

  /** The highest resourceVersion among the changes it applied (0 before any). */
  lastRv(): number {
    let max = 0;
    for (const l of this.lines) if ((l.t === 'ADDED' || l.t === 'MODIFIED' || l.t === 'DELETED') && Number(l.rv) > max) max = Number(l.rv);
    return max;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `probe()` holds, re-checked on each line the client prints. */
  async until(probe: () => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!probe()) {
      if (this.exitCode !== undefined) throw new Error(`${this.id} exited (${this.exitCode}) while waiting for ${what}; stderr: ${this.stderrText}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.id}: timed out waiting for ${what}; last lines ${JSON.stringify(this.lines.slice(-3))}; stderr: ${this.stderrText.slice(-2000)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** The client's cache (name -> state). */
  async dump(): Promise<Map<string, ObjectState>> {
    const before = this.of('dump').length;
    this.child.stdin!.write('dump\n');
    await this.until(() => this.of('dump').length > before, 'a dump', 20_000);
    const d = this.of('dump')[before]! as unknown as { items: { name: string; rv: string; data?: Record<string, string> }[] };
    return new Map(d.items.map((i) => [i.name, { rv: i.rv, data: i.data ?? {} }]));
  }

  /** The lines without dumps (what the checker reads). */
  history(): ClientLine[] {
    return this.lines.filter((l) => l.t !== 'dump');
  }

  /** Closes stdin (the client stops), SIGKILL after 5 s. */
  async stop(): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}
