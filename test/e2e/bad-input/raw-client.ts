/**
 * Raw clients for the bad-input suites: bytes written as they are over TLS (so malformed HTTP reaches the
 * server's parser), and requests whose body is streamed in chunks or only declared.
 */
import { connect, type TLSSocket } from 'node:tls';
import { request } from 'node:https';

export interface Target {
  readonly url: string;
  readonly ca: string;
  readonly token: string;
}

export interface RawExchange {
  /** Everything the server sent, as latin1 text. */
  readonly text: string;
  /** The status code of the first response, 0 when none came. */
  readonly status: number;
  /** How long the connection stayed open, from the first write to its close. */
  readonly openMs: number;
}

/** A TLS connection to the server, resolved once the handshake is done. */
export function openTls(target: Target): Promise<TLSSocket> {
  const { hostname, port } = new URL(target.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca: target.ca, servername: 'localhost', rejectUnauthorized: false }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Writes `parts` (each written as is, in order) on a fresh TLS connection, then waits until the server
 * closes it (the test's timeout bounds the wait: a server that keeps it open fails the test).
 */
export async function rawExchange(target: Target, ...parts: (string | Buffer)[]): Promise<RawExchange> {
  const socket = await openTls(target);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  const t0 = performance.now();
  const closed = new Promise<void>((resolve) => {
    socket.on('close', () => resolve());
    socket.on('error', () => undefined);
  });
  for (const p of parts) socket.write(p);
  await closed;
  const text = Buffer.concat(chunks).toString('latin1');
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return { text, status: m === null ? 0 : Number(m[1]), openMs: performance.now() - t0 };
}

/** The JSON body of the first response of a raw exchange (after the blank line; chunked bodies unwrapped). */
export function rawJson(text: string): any {
  const [head, ...rest] = text.split('\r\n\r\n');
  let body = rest.join('\r\n\r\n');
  if (/transfer-encoding: chunked/i.test(head ?? '')) {
    let out = '';
    for (;;) {
      const nl = body.indexOf('\r\n');
      const size = parseInt(body.slice(0, nl), 16);
      if (!(size > 0)) break;
      out += body.slice(nl + 2, nl + 2 + size);
      body = body.slice(nl + 2 + size + 2);
    }
    body = out;
  }
  return JSON.parse(body);
}

export interface StreamedResponse {
  readonly status: number;
  readonly body: any;
}

/**
 * A request whose body is `size` bytes (`fill` repeated after `prefix`), sent chunked without a
 * Content-Length (`declared: false`), or announced by Content-Length with only the headers sent
 * (`declared: true`: the server must refuse by the header alone). Resolves with the first response; write
 * errors after the server answered (it may stop reading) are ignored.
 */
export function sendLargeBody(
  target: Target,
  method: string,
  path: string,
  contentType: string,
  size: number,
  o: { readonly declared: boolean; readonly prefix?: string },
): Promise<StreamedResponse> {
  const url = new URL(path, target.url);
  const headers: Record<string, string> = { Authorization: `Bearer ${target.token}`, 'Content-Type': contentType, Accept: 'application/json' };
  // Node's client frames DELETE bodies only when told to (no chunking by default for DELETE).
  if (o.declared) headers['Content-Length'] = String(size);
  else headers['Transfer-Encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca: target.ca, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text
        }
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    if (o.declared) {
      req.flushHeaders();
      return;
    }
    const prefix = Buffer.from(o.prefix ?? '');
    req.write(prefix);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let left = size - prefix.length;
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!req.write(chunk.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}
