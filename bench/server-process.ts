/**
 * The API server as a separate process for `make bench`: the built `dist/apiserver/main.js` (or the
 * sources through tsx) on 127.0.0.1, a free port and a temporary data dir, with the generated admin token
 * and CA read back from the data dir. Its log goes to a file in the data dir (not a pipe the bench must
 * drain); the tail is quoted when start-up fails.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');

/** How the server runs: the build in dist/ (as `bin/platform-apiserver` does) or the sources via tsx. */
export type ServerMode = 'dist' | 'tsx';

export interface ServerProcess {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  readonly token: string;
  readonly caPem: string;
  readonly pid: number;
  /** SIGTERM (graceful), SIGKILL after 10 s; removes the data dir. Idempotent. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Compiles the server into dist/ (`make build`); throws with the compiler's output on failure. */
export function buildServer(): void {
  const res = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (res.status !== 0 || !existsSync(join(root, 'dist', 'apiserver', 'main.js'))) {
    throw new Error(`building the server failed (tsc -p tsconfig.build.json): ${res.error?.message ?? ''}${res.stdout}${res.stderr}`);
  }
}

export interface StartServerProcessOptions {
  readonly mode: ServerMode;
  /** Extra flags, e.g. `--etcd-servers=...`. */
  readonly args?: readonly string[];
  /** Extra options for node itself, before the entry point (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
  /** Start-up deadline. Default 60 s. */
  readonly timeoutMs?: number;
  /** Variables added to this process's environment for the server's. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The admin's bearer token when `args` give the server its tokens (`--token-auth-file`: no admin token
   * is generated then, and the URL is read from the log's "serving" line). Default: the generated
   * `<data-dir>/admin.token`.
   */
  readonly token?: string;
}

/** Starts the server and resolves once it serves `/readyz` with 200. */
export async function startServerProcess(options: StartServerProcessOptions): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-apiserver-'));
  const logFile = join(dataDir, 'server.log');
  const logFd = openSync(logFile, 'a');
  // The young generation bin/platform-apiserver and `make run` give the server (see there).
  const entry = [
    '--max-semi-space-size=32',
    ...(options.nodeArgs ?? []),
    ...(options.mode === 'dist' ? [join(root, 'dist', 'apiserver', 'main.js')] : ['--import', 'tsx', join(root, 'apiserver', 'main.ts')]),
  ];
  const child = spawn(process.execPath, [
    ...entry,
    `--data-dir=${dataDir}`,
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    '--etcd-compaction-interval=0',
    '--shutdown-delay-duration=0s', // stopped with SIGTERM: no load balancer to wait for
    ...(options.args ?? []),
  ], { cwd: root, stdio: ['ignore', 'pipe', logFd], ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }) });
  closeSync(logFd);
  live.add(child);
  const exited = new Promise<void>((r) => child.once('exit', () => {
    live.delete(child);
    r();
  }));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    })();
    return stopping;
  };
  const logText = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const logTail = (): string => logText().split('\n').slice(-15).join('\n') || '(no log)';

  try {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    let stdout = '';
    const port = await new Promise<number>((resolvePort, reject) => {
      let poll: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        clearInterval(poll);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error('the server did not print its URL in time'));
      }, Math.max(0, deadline - Date.now()));
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const m = /Serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
        if (m !== null) {
          done();
          resolvePort(Number(m[1]));
        }
      });
      if (options.token !== undefined) {
        // With its own tokens the server prints no kubeconfig hint: its URL is in the "serving" log line.
        poll = setInterval(() => {
          const m = /"url":"https:\/\/127\.0\.0\.1:(\d+)"[^\n]*"msg":"serving"/.exec(logText());
          if (m !== null) {
            done();
            resolvePort(Number(m[1]));
          }
        }, 100);
      }
      child.once('exit', (code, signal) => {
        done();
        reject(new Error(`the server exited during start-up (${code ?? signal})`));
      });
    });
    child.stdout!.resume();
    const token = options.token ?? readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
    const caPem = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    const url = `https://127.0.0.1:${port}`;
    await waitReady(url, caPem, deadline, options.token);
    return { url, token, caPem, pid: child.pid!, stop };
  } catch (err) {
    const message = `${(err as Error).message}; server log:\n${logTail()}`;
    await stop();
    throw new Error(message);
  }
}

/**
 * Polls `/readyz` until it answers 200 or the deadline passes: anonymously (a public path), or with `token`
 * when given (anonymous requests are off under --authorization-mode=AlwaysAllow).
 */
async function waitReady(url: string, caPem: string, deadline: number, token?: string): Promise<void> {
  let last = '';
  while (Date.now() < deadline) {
    last = await new Promise<string>((res) => {
      const headers = token === undefined ? {} : { Authorization: `Bearer ${token}` };
      const req = request(`${url}/readyz`, { ca: caPem, timeout: 2000, headers }, (r) => {
        r.resume();
        r.on('end', () => res(`status ${r.statusCode}`));
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (e) => res(e.message));
      req.end();
    });
    if (last === 'status 200') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server did not become ready: ${last}`);
}
