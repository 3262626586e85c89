import { requestEntityTooLarge } from '../../errors/constructors.js';
import type { AppContext } from '../../request/request-state.js';

/**
 * Reads the request body, refusing more than `maxBytes` (413) whatever the Content-Length said (chunked
 * bodies declare none). An absent body is empty.
 *
 * Past the limit nothing more is read: the stream is paused (not destroyed, so the 413 Status can still be
 * written) and the response carries `Connection: close`, so Node closes the connection once the Status is
 * sent instead of reading the rest of an unbounded body (Go's server does the same after a MaxBytesReader
 * error).
 */
export function readBodyBytes(ctx: AppContext, maxBytes: number): Promise<Buffer> {
  const req = ctx.req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        req.pause();
        ctx.set('Connection', 'close');
        reject(requestEntityTooLarge(`limit is ${maxBytes}`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    const onAborted = (): void => {
      done();
      reject(new Error('the client closed the connection while sending the body'));
    };
    if (req.readableEnded) {
      resolve(Buffer.alloc(0));
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** The request body as UTF-8 text (JSON and YAML bodies). */
export async function readBody(ctx: AppContext, maxBytes: number): Promise<string> {
  return (await readBodyBytes(ctx, maxBytes)).toString('utf8');
}
