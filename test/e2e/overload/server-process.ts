/**
 * The API server as its own process for the overload tests: the built `dist/apiserver/main.js` (jest's
 * global set-up builds it) on the embedded store, so its memory is its own (`/proc/<pid>/status` VmRSS)
 * and a flood from the test process competes with it only for CPU. A keep-alive agent with room for every
 * concurrent client of a test; `stop()` SIGTERMs it (SIGKILL after 10 s) and removes its data directory.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..', '..');

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  readonly ms: number;
}

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly adminToken: string;
  readonly dataDir: string;
  /** One request; `token` undefined: anonymous. Network errors reject. */
  call(method: string, path: string, token: string | undefined, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** The server's resident set size now, in KiB (VmRSS). */
  rssKiB(): number;
  /** What the server wrote on stderr so far (JSON lines). */
  stderr(): string;
  stop(): Promise<void>;
}

/** The token of the `admin` user (group system:masters) every server here is given. */
const ADMIN_TOKEN = 'overload-admin-token-0123456789';

/**
 * Starts the server with `args` and a static token file holding `admin` (system:masters) and `users`
 * (`token,name,uid` lines); resolves once it serves.
 */
export async function startServerProcess(args: readonly string[], users: readonly string[] = []): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'overload-'));
  const tokenFile = join(dataDir, 'tokens.csv');
  writeFileSync(tokenFile, [`${ADMIN_TOKEN},admin,uid-admin,"system:masters"`, ...users, ''].join('\n'));
  const child = spawn(process.execPath, [
    join(root, 'dist', 'apiserver', 'main.js'),
    `--data-dir=${join(dataDir, 'data')}`,
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    '--etcd-compaction-interval=0',
    '--shutdown-delay-duration=0s',
    `--token-auth-file=${tokenFile}`,
    ...args,
  ], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: process.env });
  let stderr = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  // The JSON log line `{"msg":"serving","url":"https://127.0.0.1:<port>",...}` says where it listens.
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      const m = /"url":"(https:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"serving"/.exec(stderr);
      if (m !== null) resolveUrl(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before serving: ${stderr.slice(-2000)}`)));
  });
  const ca = readFileSync(join(dataDir, 'data', 'pki', 'ca.crt'), 'utf8');
  const adminToken = ADMIN_TOKEN;
  const agent = new Agent({ keepAlive: true, maxSockets: 1000, ca });
  return {
    url,
    pid: child.pid!,
    adminToken,
    dataDir,
    call(method, path, token, body, headers = {}) {
      const started = performance.now();
      return new Promise((resolveReply, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = request(`${url}${path}`, {
          method,
          agent,
          headers: {
            ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
            ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
            ...headers,
          },
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolveReply({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - started,
          }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(payload);
      });
    },
    rssKiB() {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      return m === null ? 0 : Number(m[1]);
    },
    stderr: () => stderr,
    async stop() {
      agent.destroy();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
