/**
 * Helpers for the kubectl end-to-end test: build and run `bin/platform-apiserver` as users do, and drive the
 * stock kubectl on PATH against it through the generated `<data-dir>/admin.kubeconfig`.
 *
 * kubectl runs asynchronously (never spawnSync): the server writes its log to a pipe this process must keep
 * draining, and each kubectl gets its own HOME so discovery and openapi caches never leak between servers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const repoRoot = resolve(__dirname, '..', '..');
const bin = join(repoRoot, 'bin', 'platform-apiserver');

/**
 * Throws unless dist/ holds the build. Jest's global set-up (`test/harness/build-dist.cjs`) builds it once per
 * run; a test file never rebuilds it, since another file's server may be loading it at that moment.
 */
export function requireBuild(): void {
  if (!existsSync(join(repoRoot, 'dist', 'apiserver', 'main.js'))) throw new Error('dist/ is missing: jest global set-up builds it');
}

/** The kubectl on PATH: a dispatcher that runs `kubectl.1.<server minor>` from its own directory. */
export function kubectlDispatcher(): string {
  const which = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  if (which.status !== 0) throw new Error('kubectl is not on PATH');
  return realpathSync(which.stdout.trim());
}

/** A specific kubectl minor shipped next to the dispatcher (`kubectl.1.31`). */
export function kubectlMinor(minor: number): string {
  const path = join(dirname(kubectlDispatcher()), `kubectl.1.${minor}`);
  if (!existsSync(path)) throw new Error(`${path} is missing`);
  return path;
}

export interface KubectlResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KubectlOptions {
  /** Written to kubectl's standard input. */
  readonly stdin?: string;
  /** The kubectl binary (default: `kubectl` from PATH, the dispatcher). */
  readonly binary?: string;
}

export interface RunningApiserver {
  readonly dataDir: string;
  readonly kubeconfig: string;
  readonly url: string;
  /** Runs kubectl with this server's kubeconfig and a private HOME. */
  kubectl(args: readonly string[], options?: KubectlOptions): Promise<KubectlResult>;
  /** Writes `content` to a file in a private directory and returns its path. */
  file(name: string, content: string): string;
  /** Everything the server wrote to stderr so far (its JSON log). */
  log(): string;
  /** SIGTERM, then SIGKILL after 10 s; removes the temporary directories. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts `bin/platform-apiserver` on 127.0.0.1, a free port, in a fresh data dir; resolves once it serves. */
export async function startApiserver(extraArgs: readonly string[]): Promise<RunningApiserver> {
  const dataDir = mkdtempSync(join(tmpdir(), 'e2e-apiserver-'));
  const home = mkdtempSync(join(tmpdir(), 'e2e-kubectl-home-'));
  const child = spawn(bin, ['--data-dir', dataDir, '--secure-port=0', '--bind-address=127.0.0.1',
    // Teardown stops the server with SIGTERM: no load balancer to wait for.
    '--etcd-compaction-interval=0', '--shutdown-delay-duration=0s', ...extraArgs], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const notify = (): void => waiters.splice(0).forEach((w) => w());
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; notify(); });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; notify(); });
  const exited = new Promise<void>((r) => child.once('exit', () => { running.delete(child); notify(); r(); }));

  const cleanup = (): void => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  };
  // main.ts prints the URL and the kubeconfig path once the server listens.
  let match: RegExpMatchArray | null;
  while ((match = stdout.match(/Serving on (https:\/\/127\.0\.0\.1:\d+)\.[\s\S]*export KUBECONFIG=(\S+)/)) === null) {
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanup();
      throw new Error(`platform-apiserver exited (${child.exitCode ?? child.signalCode}) before serving: ${stderr}`);
    }
    await new Promise<void>((r) => waiters.push(r));
  }
  const [, url, kubeconfig] = match as unknown as [string, string, string];

  let files = 0;
  return {
    dataDir,
    kubeconfig,
    url,
    kubectl(args, options = {}) {
      return new Promise((resolvePromise, reject) => {
        const proc = spawn(options.binary ?? 'kubectl', ['--kubeconfig', kubeconfig, ...args], {
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C' },
          // No stdin pipe unless there is something to send: a command that exits without reading it would
          // race our write (EPIPE).
          stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        proc.stdout!.setEncoding('utf8').on('data', (c: string) => { out += c; });
        proc.stderr!.setEncoding('utf8').on('data', (c: string) => { err += c; });
        proc.once('error', reject);
        proc.once('close', (status) => resolvePromise({ status, stdout: out, stderr: err }));
        if (options.stdin !== undefined) proc.stdin!.end(options.stdin);
      });
    },
    file(name, content) {
      const path = join(home, `${++files}-${name}`);
      writeFileSync(path, content);
      return path;
    },
    log: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      cleanup();
    },
  };
}

/**
 * Parses kubectl's table output: columns start where the header's words (separated by two or more spaces)
 * start, so empty cells and headers with one space (`POD LABELS`) are read correctly. Returns one record per
 * row, keyed by header.
 */
export function parseTable(text: string): Record<string, string>[] {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  const header = lines[0]!;
  const columns: { name: string; start: number }[] = [];
  const re = /\S+(?: \S+)*/g;
  for (let m = re.exec(header); m !== null; m = re.exec(header)) columns.push({ name: m[0], start: m.index });
  return lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    columns.forEach((c, i) => {
      const end = i + 1 < columns.length ? columns[i + 1]!.start : undefined;
      row[c.name] = line.slice(c.start, end).trim();
    });
    return row;
  });
}

/** The header line of kubectl's table output, with its exact spacing. */
export function headerLine(text: string): string {
  return text.split('\n')[0] ?? '';
}
