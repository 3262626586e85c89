/**
 * Response compression (feature APIResponseCompression): get and list responses larger than 128 KiB are
 * gzipped at level 1 when the client accepts gzip, as upstream (level 1 costs the least CPU for a ratio
 * close to the higher levels).
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';

/** Bodies up to this size are sent as they are (upstream: compress when larger). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
export const GZIP_LEVEL = 1;

const gzipAsync = promisify(gzipCallback);

/**
 * Whether `Accept-Encoding` allows gzip: a `gzip` (or `x-gzip`) coding, any case, whose `q` is not 0.
 * Upstream only looks for the bare token `gzip`; a `*` is not taken as gzip either, so clients that never
 * asked for compression never get it.
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (acceptEncoding === undefined || acceptEncoding === '') return false;
  for (const part of acceptEncoding.split(',')) {
    const [coding = '', ...params] = part.split(';');
    const c = coding.trim().toLowerCase();
    if (c !== 'gzip' && c !== 'x-gzip') continue;
    let q = 1;
    for (const p of params) {
      const [k = '', v = ''] = p.split('=');
      if (k.trim().toLowerCase() === 'q') q = Number(v.trim());
    }
    if (q > 0) return true;
  }
  return false;
}

/** Whether a body of `byteLength` bytes should be gzipped for a client sending `acceptEncoding`. */
export function shouldGzip(acceptEncoding: string | undefined, byteLength: number, enabled = true): boolean {
  return enabled && byteLength > GZIP_THRESHOLD_BYTES && acceptsGzip(acceptEncoding);
}

/**
 * Gzips a body at level 1 off the event loop. The caller sets `Content-Encoding: gzip` and adds
 * `Vary: Accept-Encoding`.
 */
export function gzipBody(body: string | Uint8Array): Promise<Buffer> {
  return gzipAsync(body, { level: GZIP_LEVEL });
}
