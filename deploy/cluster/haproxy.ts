/**
 * The load balancer of the local cluster: haproxy (Debian's, /usr/sbin/haproxy) in TCP mode with TLS
 * passthrough, so clients see the replicas' own serving certificate and authenticate to the replicas
 * themselves (bearer tokens, client certificates), exactly as behind a cloud TCP load balancer.
 *
 * Health checks: every second haproxy opens a TLS connection to each replica and sends `GET /readyz`
 * (`option httpchk`, `check-ssl verify none`: the check only needs the status, not the identity); 2
 * failures mark the replica down (no new connections), 2 successes up again. So a replica whose
 * `/readyz` fails (shutting down, or its store unreachable) stops getting connections within ~2-3 s, which
 * is why replicas keep serving for `--shutdown-delay-duration` (3 s) after SIGTERM. Open connections are
 * not cut when a replica is marked down (no `on-marked-down shutdown-sessions`): the draining replica
 * answers them with `Connection: close` and the clients reconnect through haproxy to another replica.
 *
 * `balance leastconn`: connections, not requests, are balanced (TCP mode), and long-lived ones (watches,
 * keep-alive clients) make round-robin uneven. Client and server timeouts are long (1 h) so idle watches
 * are not cut by haproxy; `timeout tunnel` is not needed in TCP mode.
 */
import { connect } from 'node:net';

export interface HaproxyBackend {
  readonly name: string;
  readonly address: string;
  readonly port: number;
}

/** Check cadence, exported for docs and tests: a not-ready replica is marked down within fall x inter. */
export const healthCheck = { interMs: 1000, fall: 2, rise: 2 } as const;

export function haproxyConfig(o: { readonly lbPort: number; readonly statsSocket: string; readonly backends: readonly HaproxyBackend[] }): string {
  const { interMs, fall, rise } = healthCheck;
  return [
    'global',
    '  maxconn 4000',
    `  stats socket ${o.statsSocket} mode 600 level admin`,
    // Server state changes (a replica marked down or up) go to haproxy's log file.
    '  log stderr format short local0 notice',
    '',
    'defaults',
    '  mode tcp',
    '  log global',
    '  timeout connect 2s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout check 2s',
    '',
    'frontend apiserver',
    `  bind 127.0.0.1:${o.lbPort}`,
    '  default_backend replicas',
    '',
    'backend replicas',
    '  balance leastconn',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    `  default-server inter ${interMs} fall ${fall} rise ${rise} check check-ssl verify none`,
    ...o.backends.map((b) => `  server ${b.name} ${b.address}:${b.port}`),
    '',
  ].join('\n');
}

export interface BackendState {
  /** haproxy's status: UP, DOWN, `UP 1/2` (going down), `DOWN 1/2` (going up), MAINT, ... */
  readonly status: string;
  /** The last check's result: L7OK, L7STS (wrong status), L4CON (refused), ... */
  readonly check: string;
}

/** Sends one command to the stats socket and returns haproxy's answer. */
export function statsCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => (out += d));
    s.on('end', () => resolve(out));
    s.on('error', reject);
    s.write(`${command}\n`);
  });
}

/** The state of each server of backend `replicas`, by server name, from `show stat`. */
export async function backendStates(socket: string): Promise<Map<string, BackendState>> {
  const csv = await statsCommand(socket, 'show stat');
  const lines = csv.split('\n').filter((l) => l !== '');
  const header = (lines[0] ?? '').replace(/^# /, '').split(',');
  const col = (n: string): number => header.indexOf(n);
  const states = new Map<string, BackendState>();
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    if (f[col('pxname')] !== 'replicas' || f[col('svname')] === 'BACKEND') continue;
    states.set(f[col('svname')]!, { status: f[col('status')] ?? '', check: f[col('check_status')] ?? '' });
  }
  return states;
}
