import { requestEntityTooLarge } from '../../errors/constructors.js';
import type { AppContext } from '../../server/request-state.js';

/**
 * Reads the request body as text, refusing more than `maxBytes` (413) whatever the Content-Length said
 * (chunked bodies declare none). An absent body is ''.
 */
export async function readBody(ctx: AppContext, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw requestEntityTooLarge(`limit is ${maxBytes}`);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
}
