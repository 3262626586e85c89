/**
 * The API server as a process that can be SIGKILLed and started again on the same data directory and
 * port, for the crash tests and `bench/restart.ts`: the built `dist/apiserver/main.js` (or another build:
 * `CRASH_SERVER_DIST=/path/to/dist`, e.g. an older commit's, to show what a fix changed) on the embedded
 * store, optionally as PID 1 of its own pid namespace (`unshare --pid --fork --kill-child`, as in a
 * container; needs root). The log goes to `<dataDir>/server.log` (appended across restarts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join, resolve } from 'node:path';

// jest runs this as CommonJS (`__dirname`); the benchmarks load it as ESM from the repository root.
export const ROOT = typeof __dirname === 'string' ? resolve(__dirname, '..', '..', '..') : process.cwd();

/** The dist/ directory servers run from. */
export function serverDist(): string {
  return process.env.CRASH_SERVER_DIST ?? join(ROOT, 'dist');
}

export interface ServerRunOptions {
  readonly dataDir: string;
  readonly port: number;
  /** Run as PID 1 of a new pid namespace. */
  readonly pidNamespace?: boolean;
  readonly dist?: string;
  readonly extraArgs?: readonly string[];
  /** Start-up deadline. Default 60 s. */
  readonly timeoutMs?: number;
}

export interface RunningServer {
  readonly url: string;
  readonly token: string;
  readonly ca: string;
  readonly agent: Agent;
  /** The node process's pid as this process sees it (not unshare's). */
  readonly pid: number;
  /** Milliseconds from spawn until /readyz answered 200. */
  readonly readyMs: number;
  /** SIGKILLs the node process and waits for it (and its unshare) to be gone. Idempotent. */
  kill(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** Starts the server and resolves once `/readyz` answers 200; rejects with the log's tail on failure. */
export async function startServer(o: ServerRunOptions): Promise<RunningServer> {
  const started = Date.now();
  const main = join(o.dist ?? serverDist(), 'apiserver', 'main.js');
  const nodeArgs = [
    '--max-semi-space-size=32',
    main,
    `--data-dir=${o.dataDir}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${o.port}`,
    '--shutdown-delay-duration=0s',
    ...(o.extraArgs ?? []),
  ];
  const logFile = join(o.dataDir, 'server.log');
  const logFd = openSync(logFile, 'a');
  const child = o.pidNamespace
    ? spawn('unshare', ['--pid', '--fork', '--kill-child', process.execPath, ...nodeArgs], { cwd: ROOT, stdio: ['ignore', logFd, logFd] })
    : spawn(process.execPath, nodeArgs, { cwd: ROOT, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  live.add(child);
  let exitCode: string | undefined;
  const exited = new Promise<void>((r) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      exitCode = String(code ?? signal);
      r();
    }),
  );
  const logTail = (): string => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-12).join('\n');
    } catch {
      return '(no log)';
    }
  };
  const url = `https://127.0.0.1:${o.port}`;
  const deadline = started + (o.timeoutMs ?? 60_000);
  let agent: Agent | undefined;
  let pid = child.pid!;
  let killing: Promise<void> | undefined;
  const kill = (): Promise<void> => {
    killing ??= (async () => {
      if (exitCode === undefined) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
        await exited;
      }
      agent?.destroy();
    })();
    return killing;
  };
  try {
    if (o.pidNamespace) pid = await childOf(child.pid!, deadline, () => exitCode);
    // The admin token and CA exist once the server generated them (first start) or from before.
    let token = '';
    let ca = '';
    let readyMs = 0;
    for (;;) {
      if (exitCode !== undefined) throw new Error(`the server exited during start-up (${exitCode})`);
      if (Date.now() > deadline) throw new Error('the server did not become ready in time');
      if (ca === '') {
        try {
          token = readFileSync(join(o.dataDir, 'admin.token'), 'utf8').trim();
          ca = readFileSync(join(o.dataDir, 'pki', 'ca.crt'), 'utf8');
          agent = new Agent({ ca, keepAlive: true, maxSockets: 64 });
        } catch {
          token = '';
          ca = '';
        }
      }
      if (agent !== undefined && (await probe(url, agent)) === 200) {
        readyMs = Date.now() - started;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return { url, token, ca, agent: agent!, pid, readyMs, kill };
  } catch (err) {
    await kill();
    throw new Error(`${(err as Error).message}; server log:\n${logTail()}`);
  }
}

/** GET /readyz: its status, or 0 when nothing answers. */
function probe(url: string, agent: Agent): Promise<number> {
  return new Promise((res) => {
    const req = request(`${url}/readyz`, { agent, timeout: 2000 }, (r) => {
      r.resume();
      r.on('end', () => res(r.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => res(0));
    req.end();
  });
}

/** The pid of `parent`'s child (the node process unshare forked), found through /proc. */
async function childOf(parent: number, deadline: number, exited: () => string | undefined): Promise<number> {
  for (;;) {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === parent) return Number(name);
      } catch {
        // gone meanwhile
      }
    }
    if (exited() !== undefined) throw new Error(`unshare exited (${exited()})`);
    if (Date.now() > deadline) throw new Error('the server process under unshare did not appear');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One JSON request as the admin. Rejects when no answer arrives (reset connection: the server died). */
export function call(s: RunningServer, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((res, rej) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      `${s.url}${path}`,
      {
        method,
        agent: s.agent,
        timeout: 30_000,
        headers: {
          Authorization: `Bearer ${s.token}`,
          Accept: 'application/json',
          ...(data === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': data.length }),
        },
      },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            res({ status: r.statusCode ?? 0, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) });
          } catch {
            rej(new Error(`${method} ${path}: ${r.statusCode} with a body that is not JSON: ${text.slice(0, 200)}`));
          }
        });
        r.on('error', rej);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', rej);
    req.end(data);
  });
}
