/**
 * The floor of part 3 (`make bench`, `--only=cache`): a bare Koa app over node:https, run as its own process
 * (as the API server is), that answers every GET with the bytes last PUT to it, as `application/json`. Its
 * certificate is made by the server's own generator (`apiserver/tls`: an ECDSA P-256 CA and serving
 * certificate) and it listens with the server's TLS settings, so the two differ only by what the API server
 * does per request.
 *
 * Prints one JSON line `{"port":..., "caFile":...}` when listening; SIGTERM closes it and removes its
 * temporary directory.
 */
import { createServer } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { ensureGeneratedCerts, pkiPaths } from '../apiserver/tls/serving-certs.js';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bare-koa-'));
  const certs = await ensureGeneratedCerts(dir, []);
  let body: Buffer = Buffer.from('{}');

  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.method === 'PUT') {
      const chunks: Buffer[] = [];
      for await (const c of ctx.req) chunks.push(c as Buffer);
      body = Buffer.concat(chunks);
      ctx.status = 204;
      return;
    }
    ctx.type = 'application/json';
    ctx.body = body;
  });

  const server = createServer({ cert: certs.certPem, key: certs.keyPem, minVersion: 'TLSv1.2' }, app.callback());
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ port, caFile: pkiPaths(dir).caCert })}\n`);
  });
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`bare-koa: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
