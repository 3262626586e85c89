/**
 * A TCP forwarder on 127.0.0.1 in front of a server (TLS passes through untouched, so the server's
 * certificate for 127.0.0.1 still verifies). It is how the client tests drop a client's connections for
 * real, the way a load balancer restart or a network cut does:
 *
 *   const proxy = await startTcpProxy(server.port);
 *   proxy.hold();      // new connections are accepted but not forwarded until release()
 *   proxy.cut();       // destroys every forwarded connection (the client sees its watch break)
 *   ... writes, compaction ...
 *   proxy.release();   // held connections are forwarded (the client's re-watch reaches the server)
 *   await proxy.close();
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `https://127.0.0.1:<proxy port>` */
  readonly url: string;
  /** Connections forwarded so far. */
  readonly accepted: number;
  hold(): void;
  release(): void;
  cut(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(upstreamPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const held: Socket[] = [];
  let holding = false;
  let accepted = 0;

  const forward = (client: Socket): void => {
    if (client.destroyed) return;
    accepted += 1;
    const upstream = connect({ host: '127.0.0.1', port: upstreamPort });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const server = createServer((client) => {
    if (holding) {
      // Buffer nothing ourselves: the socket stays paused until forwarded (its data waits in the kernel).
      client.pause();
      client.on('error', () => client.destroy());
      held.push(client);
    } else forward(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  return {
    url: `https://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const c of held.splice(0)) {
        forward(c);
        c.resume();
      }
    },
    cut() {
      for (const [a, b] of [...pairs]) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    async close() {
      holding = false;
      for (const c of held.splice(0)) c.destroy();
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
