/**
 * Detached processes with pid files: what `make cluster` leaves running after it exits, and what
 * `make cluster-down` (another process) finds and stops again. Each process runs in its own process group
 * (so a Ctrl-C in the shell that ran `make cluster` does not reach it), writes its output to a log file
 * next to its pid file, and is identified by pid AND by its command line containing a marker (the cluster
 * directory), so a recycled pid is never signalled.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DetachedSpec {
  /** Short name for messages: `etcd-0`, `replica-1`, `haproxy`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly pidFile: string;
  readonly logFile: string;
  /** A string the process's command line contains (the cluster directory): guards against pid reuse. */
  readonly marker: string;
  readonly cwd?: string;
}

/** Whether `pid` is a live (not zombie) process whose command line contains `marker`. */
export function aliveWithMarker(pid: number, marker: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state letter follows the command name in parentheses; Z (zombie) and X (dead) are gone.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return false;
  }
}

/** The pid in `pidFile` when that process still runs (with `marker`), else undefined. */
export function runningPid(pidFile: string, marker: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return undefined;
  }
  return Number.isInteger(pid) && pid > 0 && aliveWithMarker(pid, marker) ? pid : undefined;
}

/** How each process this one started ended (`code N` or `signal S`), once it has reaped it. */
const exits = new Map<number, string>();

/**
 * How the process `pid` started here ended, waiting up to `waitMs` for this process to reap it; else what
 * /proc shows of it (alive, with its command line: then it is not the process its pid file names).
 */
export async function exitOf(pid: number, waitMs: number): Promise<string> {
  const deadline = Date.now() + waitMs;
  while (!exits.has(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const exit = exits.get(pid);
  if (exit !== undefined) return `exited: ${exit}`;
  try {
    return `not reaped; /proc: ${readFileSync(`/proc/${pid}/stat`, 'utf8').trim()}; command line: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')}`;
  } catch {
    return 'not reaped, and gone from /proc';
  }
}

/** Starts the process detached (own process group, not waited for) and records its pid. */
export function spawnDetached(spec: DetachedSpec): number {
  mkdirSync(dirname(spec.logFile), { recursive: true });
  mkdirSync(dirname(spec.pidFile), { recursive: true });
  const fd = openSync(spec.logFile, 'a');
  try {
    const child = spawn(spec.command, [...spec.args], {
      detached: true,
      stdio: ['ignore', fd, fd],
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    });
    if (child.pid === undefined) throw new Error(`${spec.name}: could not start ${spec.command}`);
    // Node reaps the child should it exit while this process still runs; unref lets this process exit first.
    child.on('error', () => undefined);
    // How it ended goes to its log while this process still runs (a silent exit is otherwise a mystery).
    child.on('exit', (code, sig) => {
      const how = sig === null ? `code ${code}` : `signal ${sig}`;
      exits.set(child.pid!, how);
      try {
        appendFileSync(spec.logFile, `[launcher] ${spec.name} (pid ${child.pid}) exited: ${how}\n`);
      } catch {
        // the directory is gone: nothing to tell
      }
    });
    child.unref();
    writeFileSync(spec.pidFile, `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** Resolves once `pid` is gone (polled every 25 ms); false when `timeoutMs` passed first. */
export async function waitGone(pid: number, marker: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (aliveWithMarker(pid, marker)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/** Sends `signal` when the process still runs; false when it was gone. */
export function signal(pid: number, marker: string, sig: NodeJS.Signals): boolean {
  if (!aliveWithMarker(pid, marker)) return false;
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone and removes its pid file. A
 * stopped (SIGSTOP) process is continued first, or it could not act on SIGTERM.
 */
export async function stopPid(pid: number, marker: string, pidFile: string, graceMs: number): Promise<void> {
  if (signal(pid, marker, 'SIGTERM')) {
    signal(pid, marker, 'SIGCONT');
    if (!(await waitGone(pid, marker, graceMs))) {
      signal(pid, marker, 'SIGKILL');
      await waitGone(pid, marker, 10_000);
    }
  }
  rmSync(pidFile, { force: true });
}

/** SIGKILL; resolves once the process is gone and removes its pid file. */
export async function killPid(pid: number, marker: string, pidFile: string): Promise<void> {
  if (signal(pid, marker, 'SIGKILL')) await waitGone(pid, marker, 10_000);
  rmSync(pidFile, { force: true });
}

/** The last `lines` lines of a log file, for error messages. */
export function logTail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
