import { requestEntityTooLarge } from '../../errors/constructors.js';
import type { AppContext } from '../../request/request-state.js';

/**
 * Reads the request body, refusing more than `maxBytes` (413) whatever the Content-Length said (chunked
 * bodies declare none). An absent body is empty.
 */
export async function readBodyBytes(ctx: AppContext, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw requestEntityTooLarge(`limit is ${maxBytes}`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** The request body as UTF-8 text (JSON and YAML bodies). */
export async function readBody(ctx: AppContext, maxBytes: number): Promise<string> {
  return (await readBodyBytes(ctx, maxBytes)).toString('utf8');
}
