import { createServer } from 'node:net';

/**
 * Reserves `count` distinct free TCP ports on 127.0.0.1 by binding port 0 and releasing it. Another
 * process could take a port between release and use; the ports are kept open together so at least they
 * are distinct from each other.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server));
      }),
    ),
  );
  const ports = servers.map((s) => {
    const address = s.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected address');
    return address.port;
  });
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}
