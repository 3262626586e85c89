import { randomBytes } from 'node:crypto';
import { promises as fsp, readFileSync, readlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { unavailable } from '../errors.js';
import type { StoreLogger } from './store-logger.js';

/** What a lock file records about its holder. Fields after `startedAt` are absent in locks of older versions. */
export interface LockHolder {
  /** `process.pid`: the pid in the holder's own pid namespace (1 in a container). For people and messages. */
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: string;
  /** A random id drawn once per process: tells "this very process" from "another process with my pid". */
  readonly id?: string;
  /** The holder's pid as `/proc` shows it (`/proc/self`), which may differ from `pid` (see below). */
  readonly procPid?: number;
  /** Field 22 of `/proc/<procPid>/stat`: the process's start time in clock ticks since boot. */
  readonly startTime?: string;
  /** `/proc/sys/kernel/random/boot_id`: start times only compare within one boot. */
  readonly bootId?: string;
  /** `/proc/self/ns/pid` (e.g. `pid:[4026531836]`): for the message; which namespace the pid belongs to. */
  readonly pidNamespace?: string;
  /** The name (in the data directory) of the Unix socket the holder listens on while it holds the lock. */
  readonly socket?: string;
}

/** How a holder's lock socket answered a connection attempt. */
export type SocketProbe = 'alive' | 'dead' | 'unknown';

export const LOCK_FILE = 'LOCK';

/** Drawn once per process (per module instance): locks this process writes carry it. */
const PROCESS_ID = randomBytes(12).toString('hex');

/**
 * One process per data directory. The lock is a file created atomically with its full content (written to
 * a temporary name, then hard-linked to `LOCK`, which fails if it exists), so nobody ever sees a half
 * written lock. A second opener gets `Unavailable` naming the holder; a lock left by a process that is gone
 * is taken over (logged).
 *
 * Whether the holder is alive. First its lock socket: a holder listens on a Unix socket in the data
 * directory (`LOCK-<random>.sock`, listening BEFORE the lock file naming it exists) for as long as it holds
 * the lock, and the kernel closes it when the process dies, however it dies. A connection that is accepted
 * means alive; one refused (the socket file is there, nobody listens) means the holder is gone. This holds
 * across pid namespaces and /proc mounts (two containers sharing the directory). When the socket cannot
 * say (no socket recorded: an older version, or a path too long for a socket address; the file removed),
 * the holder's process identity decides. A pid alone does not say: a restarted container runs the server
 * as PID 1 again, and a crashed process's pid is often reused, by ourselves included, so "the pid is
 * running" would keep a dead holder's lock forever (the bug this replaces: our own pid was taken for
 * "opened twice"). A
 * process is identified by its pid AND its start time (field 22 of `/proc/<pid>/stat`, clock ticks since
 * boot) within one boot (`boot_id`): a reused pid has a later start time. The pid used for that is the one
 * `/proc` shows (`/proc/self`), not `process.pid`: in a pid namespace without its own /proc mount
 * (`unshare --pid --fork`), `process.pid` is 1 while `/proc/1` is the host's init; `/proc/self` and
 * `/proc/<procPid>/stat` always speak the same namespace, the one of the mounted /proc. So, on this host:
 *   - another boot id: stale (the holder died with the previous boot);
 *   - `/proc/<procPid>/stat` has the recorded start time: alive, and that includes this very process
 *     (opened twice: refused, as before);
 *   - otherwise (no such process, or a different start time): stale.
 * Without /proc (not Linux) or for a lock written by an older version (no start time): alive iff
 * `kill(pid, 0)` finds the pid and it is not our own pid with another process id (our pid running means
 * us; a lock naming our pid that we did not write was left by a dead process).
 *
 * Only without the socket, a live holder in a sibling pid namespace whose processes our /proc does not
 * show (another container sharing the directory, same host name) would look stale. Locks from another host
 * are never broken (its socket is not ours to ask): the directory may be on shared storage and that host
 * may be alive. An unreadable lock file is never broken either.
 *
 * Known limit: two processes breaking the same stale lock at the same moment could both succeed (the unlink
 * of the stale file is not atomic with the check); both must start within the same few microseconds.
 * (Node has no `flock`, and a helper process holding one would outlive a SIGKILLed server.)
 */
export class DataDirLock {
  private released = false;

  private constructor(
    private readonly path: string,
    private readonly content: string,
    private readonly socket: { server: Server; path: string } | undefined,
  ) {}

  static async acquire(dataDir: string, logger?: StoreLogger): Promise<DataDirLock> {
    const path = join(dataDir, LOCK_FILE);
    const socketName = `${LOCK_FILE}-${randomBytes(6).toString('hex')}.sock`;
    const socket = await listenOn(join(dataDir, socketName));
    const me: LockHolder = { ...currentHolder(), socket: socket === undefined ? undefined : socketName };
    const content = JSON.stringify(me) + '\n';
    let locked = false;
    const tmp = join(dataDir, `${LOCK_FILE}.${process.pid}.${PROCESS_ID}.${Date.now()}.tmp`);
    await fsp.writeFile(tmp, content, { flag: 'wx' });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await fsp.link(tmp, path);
          locked = true;
          // Sockets of processes that died holding or trying to take the lock: no live holder but us now.
          for (const name of await fsp.readdir(dataDir)) {
            if (SOCKET_NAME.test(name) && name !== me.socket) await fsp.unlink(join(dataDir, name)).catch(() => undefined);
          }
          return new DataDirLock(path, content, socket);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
        const existing = await fsp.readFile(path, 'utf8').catch(() => undefined);
        if (existing === undefined) continue; // removed meanwhile: try again
        const holder = parseHolder(existing);
        const verdict = holder === undefined ? undefined : judge(holder, me, await probeSocket(dataDir, holder));
        if (holder === undefined || verdict === undefined) {
          const who =
            holder === undefined
              ? `an unreadable lock file ${path}`
              : `pid ${holder.pid} on host ${holder.hostname} (since ${holder.startedAt})${holder.id === me.id ? ', this very process' : ''}`;
          throw unavailable(`data directory ${dataDir} is in use by ${who}; remove ${path} if that process is gone`);
        }
        // Stale: remove it only if it is still the file we judged.
        const again = await fsp.readFile(path, 'utf8').catch(() => undefined);
        if (again === existing) {
          if (holder.socket !== undefined && SOCKET_NAME.test(holder.socket)) await fsp.unlink(join(dataDir, holder.socket)).catch(() => undefined);
          await fsp.unlink(path).catch(() => undefined);
          logger?.warn(
            { lock: path, holderPid: holder.pid, holderHost: holder.hostname, holderSince: holder.startedAt, reason: verdict },
            'took over a stale data directory lock',
          );
        }
      }
      throw unavailable(`could not take the lock ${path}: it keeps changing`);
    } finally {
      await fsp.unlink(tmp).catch(() => undefined);
      if (!locked && socket !== undefined) await closeSocket(socket);
    }
  }

  /** Removes the lock file if it is still ours. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const current = await fsp.readFile(this.path, 'utf8').catch(() => undefined);
    if (current === this.content) await fsp.unlink(this.path).catch(() => undefined);
    if (this.socket !== undefined) await closeSocket(this.socket);
  }
}

const SOCKET_NAME = /^LOCK-[0-9a-f]+\.sock$/;

/** The address for a socket file: the path, or relative to the working directory when that fits and it does not. */
function socketAddress(path: string): string | undefined {
  const fits = (p: string): boolean => Buffer.byteLength(p) <= 100; // sun_path holds 108 bytes
  if (fits(path)) return path;
  const rel = relative(process.cwd(), path);
  return fits(rel) ? rel : undefined;
}

/** Listens on a Unix socket at `path` (unref'd: it keeps nobody alive); undefined when that is not possible. */
function listenOn(path: string): Promise<{ server: Server; path: string } | undefined> {
  const address = socketAddress(path);
  if (address === undefined) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const server = createServer((c) => c.destroy());
    server.once('error', () => resolve(undefined));
    server.listen(address, () => {
      server.unref();
      resolve({ server, path });
    });
  });
}

async function closeSocket(socket: { server: Server; path: string }): Promise<void> {
  await new Promise<void>((resolve) => socket.server.close(() => resolve()));
  await fsp.unlink(socket.path).catch(() => undefined);
}

/**
 * Asks the holder's lock socket: accepted is `alive`, refused (the file is there, nobody listens) is
 * `dead`, anything else (none recorded, the file missing, no answer in 2 s) is `unknown`.
 */
export function probeSocket(dataDir: string, holder: LockHolder): Promise<SocketProbe> {
  if (holder.socket === undefined || !SOCKET_NAME.test(holder.socket) || holder.hostname !== hostname()) return Promise.resolve('unknown');
  const address = socketAddress(join(dataDir, holder.socket));
  if (address === undefined) return Promise.resolve('unknown');
  return new Promise((resolve) => {
    const c = connect(address);
    const timer = setTimeout(() => {
      c.destroy();
      resolve('unknown');
    }, 2000);
    c.once('connect', () => {
      clearTimeout(timer);
      c.destroy();
      resolve('alive');
    });
    c.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(err.code === 'ECONNREFUSED' ? 'dead' : 'unknown');
    });
  });
}

/** This process as a lock holder. /proc fields are left out where /proc is missing. */
export function currentHolder(): LockHolder {
  const procPid = readProc(() => Number(readlinkSync('/proc/self')));
  return {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    id: PROCESS_ID,
    procPid: procPid !== undefined && Number.isInteger(procPid) ? procPid : undefined,
    startTime: readProc(() => startTimeOf('self')),
    bootId: readProc(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    pidNamespace: readProc(() => readlinkSync('/proc/self/ns/pid')),
  };
}

function readProc<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Field 22 (starttime) of `/proc/<pid>/stat`. Field 2 (comm) is in parentheses and may hold spaces. */
function startTimeOf(pid: number | 'self'): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const value = fields[22 - 3]; // fields after comm start with field 3 (state)
  if (value === undefined || !/^\d+$/.test(value)) throw new Error(`unexpected /proc/${pid}/stat`);
  return value;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v.pid !== 'number' || typeof v.hostname !== 'string') return undefined;
    const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
    return {
      pid: v.pid,
      hostname: v.hostname,
      startedAt: String(v.startedAt ?? 'unknown'),
      id: str(v.id),
      procPid: typeof v.procPid === 'number' ? v.procPid : undefined,
      startTime: str(v.startTime),
      bootId: str(v.bootId),
      pidNamespace: str(v.pidNamespace),
      socket: str(v.socket),
    };
  } catch {
    return undefined;
  }
}

/**
 * Why `holder` is stale, or undefined when it may be alive (see the class comment). `me` is this process
 * as `currentHolder` saw it; `socket` what the holder's lock socket answered.
 */
export function judge(holder: LockHolder, me: LockHolder, socket: SocketProbe = 'unknown'): string | undefined {
  if (holder.hostname !== me.hostname) return undefined;
  if (holder.id !== undefined && holder.id === me.id) return undefined; // this very process: opened twice
  if (socket === 'alive') return undefined;
  if (socket === 'dead') return `nobody listens on the holder's lock socket ${holder.socket}: the holder is gone`;
  if (holder.bootId !== undefined && me.bootId !== undefined && holder.bootId !== me.bootId) {
    return 'the holder ran before the last boot';
  }
  if (holder.procPid !== undefined && holder.startTime !== undefined && me.startTime !== undefined) {
    const now = readProc(() => startTimeOf(holder.procPid!));
    if (now === holder.startTime) return undefined;
    return now === undefined
      ? `no process ${holder.procPid} is running`
      : `process ${holder.procPid} is another process than the holder (started at tick ${now}, the holder at ${holder.startTime})`;
  }
  // No /proc here, or a lock from an older version: only the pid to go by.
  if (holder.pid === me.pid) return `the holder's pid ${holder.pid} is this process's pid: the holder is gone`;
  try {
    process.kill(holder.pid, 0);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? `no process ${holder.pid} is running` : undefined;
  }
}
