/**
 * The server under fuzz: `dist/apiserver/main.js` in its own Node process (so a crash, an unhandled
 * rejection or a stack trace shows as the process dying or in its stderr, never inside the fuzzer), on
 * 127.0.0.1, a free port, a fresh data dir, with the embedded store or a real etcd from the harness.
 *
 * dist/ is built once per jest run by the global set-up (test/harness/build-dist.cjs); outside jest run
 * `npx tsc -p tsconfig.build.json` first. Compaction is off (`--etcd-compaction-interval=0`) so the store
 * keeps every revision of the fuzz window for the store check (store-check.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import type { StoreConfig } from '../../storage/open-store.js';

const repoRoot = resolve(__dirname, '..', '..');

export type FuzzBackend = 'etcd' | 'memory';

export interface FuzzServer {
  readonly backend: FuzzBackend;
  readonly url: string;
  readonly token: string;
  readonly ca: string;
  readonly dataDir: string;
  /** The key prefix of everything the server stores. */
  readonly prefix: string;
  /** How to open the server's store in process once the server is stopped (memory) or any time (etcd). */
  readonly storeConfig: StoreConfig;
  /** True while the process runs. */
  alive(): boolean;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM and wait (SIGKILL after 15 s); the exit code, or the signal's name. */
  stopServer(): Promise<number | string>;
  /** Stops the server if running, etcd, and removes the data dir. Idempotent. */
  cleanup(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startFuzzServer(backend: FuzzBackend, extraArgs: readonly string[] = []): Promise<FuzzServer> {
  const main = join(repoRoot, 'dist', 'apiserver', 'main.js');
  if (!existsSync(main)) throw new Error('dist/ is missing: jest global set-up builds it (or npx tsc -p tsconfig.build.json)');
  const dataDir = mkdtempSync(join(tmpdir(), `fuzz-${backend}-`));
  const prefix = '/registry';
  let etcd: EtcdCluster | undefined;
  let storeConfig: StoreConfig = { backend: 'memory', dataDir: join(dataDir, 'store') };
  const storageArgs: string[] = [];
  if (backend === 'etcd') {
    etcd = await startEtcd();
    storeConfig = { backend: 'etcd', endpoints: [...etcd.endpoints] };
    storageArgs.push('--storage=etcd', `--etcd-servers=${etcd.endpoints.join(',')}`, `--etcd-prefix=${prefix}`);
  }
  const child = spawn(process.execPath, ['--max-semi-space-size=32', main, '--data-dir', dataDir, '--secure-port=0',
    '--bind-address=127.0.0.1', '--etcd-compaction-interval=0', '--shutdown-delay-duration=0s', ...storageArgs, ...extraArgs],
  { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const notify = (): void => waiters.splice(0).forEach((w) => w());
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; notify(); });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; notify(); });
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => {
    running.delete(child);
    notify();
    r(code ?? signal ?? 'unknown');
  }));
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const stopServer = async (): Promise<number | string> => {
    if (alive()) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    }
    return exited;
  };
  let cleaned = false;
  const cleanup = async (): Promise<void> => {
    if (cleaned) return;
    cleaned = true;
    await stopServer();
    await etcd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  let match: RegExpMatchArray | null;
  while ((match = stdout.match(/Serving on (https:\/\/127\.0\.0\.1:\d+)\./)) === null) {
    if (!alive()) {
      await cleanup();
      throw new Error(`platform-apiserver exited before serving: ${stderr.slice(-4000)}`);
    }
    await new Promise<void>((r) => waiters.push(r));
  }
  return {
    backend,
    url: match[1]!,
    token: readFileSync(join(dataDir, 'admin.token'), 'utf8').trim(),
    ca: readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'),
    dataDir,
    prefix,
    storeConfig,
    alive,
    stderr: () => stderr,
    stopServer,
    cleanup,
  };
}
