/**
 * One process of the local cluster behind a handle (launcher.ts): started detached with its pid file when
 * not running (process.ts), waited for until ready, and stopped, killed, paused and resumed through its pid
 * and command-line marker, so any later process opening the cluster directory gets the same handle.
 */
import { exitOf, killPid, logTail, runningPid, signal, spawnDetached, stopPid } from './process.js';

export interface ClusterProcess {
  readonly name: string;
  readonly logFile: string;
  /** The pid while the process runs, else undefined. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Starts it when not running and waits until it is ready (etcd healthy, replica `/readyz` 200, haproxy up). */
  start(): Promise<void>;
  /** SIGTERM, SIGKILL after `graceMs` (default 20 s); resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** stop() then start(). */
  restart(): Promise<void>;
  /** SIGSTOP: the process freezes with its sockets open (a hung process, a partition of sorts). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

export interface ManagedSpec {
  readonly name: string;
  readonly pidFile: string;
  readonly logFile: string;
  readonly marker: string;
  readonly command: string;
  readonly args: () => readonly string[] | Promise<readonly string[]>;
  readonly ready: () => Promise<boolean>;
  readonly readyTimeoutMs: number;
  readonly log: (line: string) => void;
}

export function managed(spec: ManagedSpec): ClusterProcess {
  const pidNow = (): number | undefined => runningPid(spec.pidFile, spec.marker);
  const proc: ClusterProcess = {
    name: spec.name,
    logFile: spec.logFile,
    get pid() {
      return pidNow();
    },
    get running() {
      return pidNow() !== undefined;
    },
    async start() {
      let pid = pidNow();
      if (pid === undefined) {
        pid = spawnDetached({ name: spec.name, command: spec.command, args: await spec.args(), pidFile: spec.pidFile, logFile: spec.logFile, marker: spec.marker });
        spec.log(`started ${spec.name} (pid ${pid})`);
      }
      const deadline = Date.now() + spec.readyTimeoutMs;
      for (;;) {
        if (pidNow() === undefined) {
          // How it ended, once this process has reaped it (a loaded machine may take a while to).
          const how = await exitOf(pid, 5_000);
          throw new Error(`${spec.name} (pid ${pid}) exited during start-up (${how}); ${spec.logFile}:\n${logTail(spec.logFile)}`);
        }
        if (await spec.ready()) return;
        if (Date.now() >= deadline) {
          throw new Error(`${spec.name} not ready after ${spec.readyTimeoutMs} ms; ${spec.logFile}:\n${logTail(spec.logFile)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(graceMs = 20_000) {
      const pid = pidNow();
      if (pid === undefined) return;
      await stopPid(pid, spec.marker, spec.pidFile, graceMs);
      spec.log(`stopped ${spec.name} (pid ${pid})`);
    },
    async kill() {
      const pid = pidNow();
      if (pid !== undefined) await killPid(pid, spec.marker, spec.pidFile);
    },
    async restart() {
      await proc.stop();
      await proc.start();
    },
    pause() {
      const pid = pidNow();
      if (pid !== undefined) signal(pid, spec.marker, 'SIGSTOP');
    },
    resume() {
      const pid = pidNow();
      if (pid !== undefined) signal(pid, spec.marker, 'SIGCONT');
    },
  };
  return proc;
}
