/**
 * How the chaos suite cuts ONE replica off from etcd while the others keep their connections: a TCP
 * forwarder in front of each etcd member, shared by every replica (their `--etcd-servers` lists the
 * forwarders instead of the members), that knows which replica process owns each connection.
 *
 * The owner of a connection is found the way `ss -p` finds it: the client end's local port (the accepted
 * socket's remote port) names a socket inode in /proc/net/tcp, and the process holding that inode has it
 * among its /proc/<pid>/fd links. Only the given candidate pids are searched.
 *
 * `cut(pid)` destroys the process's forwarded connections and black-holes its new ones (accepted, never
 * forwarded, as packets dropped by a partition: the replica's etcd client sees its calls time out, not a
 * refusal); `heal()` drops the black-holed connections so the client reconnects, and forwards from then on.
 * Linux only (it reads /proc).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface EtcdPartition {
  /** The forwarders' URLs, one per member, in the members' order (for `--etcd-servers`). */
  readonly endpoints: readonly string[];
  /** Cuts process `pid` off from every member until `heal()`. */
  cut(pid: number): void;
  heal(): void;
  /** Forwarded connections per owner pid (unknown owners under 0), for the test's checks. */
  connectionsByPid(candidates: readonly number[]): Map<number, number>;
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
}

/** The pid among `candidates` holding the TCP socket bound to 127.0.0.1:`localPort`, if any. */
export function socketOwner(localPort: number, candidates: readonly number[]): number | undefined {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const port = parseInt(f[1]!.split(':')[1]!, 16);
      if (port === localPort) inodes.add(f[9]!);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of candidates) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m !== null && inodes.has(m[1]!)) return pid;
      } catch {
        // The fd closed meanwhile.
      }
    }
  }
  return undefined;
}

export async function startEtcdPartition(memberPorts: readonly number[]): Promise<EtcdPartition> {
  const pairs = new Set<Pair>();
  const held = new Set<Socket>();
  let cutPid: number | undefined;
  const servers: Server[] = [];
  const endpoints: string[] = [];

  for (const upstreamPort of memberPorts) {
    const server = createServer((client) => {
      client.on('error', () => client.destroy());
      if (cutPid !== undefined && socketOwner(client.remotePort ?? 0, [cutPid]) === cutPid) {
        client.pause();
        held.add(client);
        client.once('close', () => held.delete(client));
        return;
      }
      const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
      const pair: Pair = { client, upstream };
      pairs.add(pair);
      const end = (): void => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('error', end).on('close', end);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    servers.push(server);
    endpoints.push(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  }

  return {
    endpoints,
    cut(pid) {
      cutPid = pid;
      for (const pair of [...pairs]) {
        if (socketOwner(pair.client.remotePort ?? 0, [pid]) === pid) {
          pair.client.destroy();
          pair.upstream.destroy();
          pairs.delete(pair);
        }
      }
    },
    heal() {
      cutPid = undefined;
      for (const c of [...held]) c.destroy();
      held.clear();
    },
    connectionsByPid(candidates) {
      const out = new Map<number, number>();
      for (const pair of pairs) {
        const owner = socketOwner(pair.client.remotePort ?? 0, candidates) ?? 0;
        out.set(owner, (out.get(owner) ?? 0) + 1);
      }
      return out;
    },
    async close() {
      for (const c of held) c.destroy();
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
