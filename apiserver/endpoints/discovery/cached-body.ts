/**
 * A serialized document kept for the life of a set of served resources: its bytes, a strong ETag, and
 * (lazily, once) its gzip form. Discovery and OpenAPI documents are built once and served many times,
 * so nothing here is computed per request.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { AppContext } from '../../request/request-state.js';

/** kube-apiserver compresses responses at least this large (its gzip threshold). */
export const gzipThresholdBytes = 128 * 1024;

export interface CachedBody {
  readonly bytes: Buffer;
  /** Upper-case hex SHA-512 of the bytes, as kube-apiserver computes its discovery and OpenAPI ETags. */
  readonly hash: string;
  /** `"<hash>"`. */
  readonly etag: string;
  /** The gzip form, compressed on first use. */
  gzipped(): Buffer;
}

export function cachedBody(value: unknown): CachedBody {
  const bytes = Buffer.from(JSON.stringify(value));
  const hash = createHash('sha512').update(bytes).digest('hex').toUpperCase();
  let gz: Buffer | undefined;
  return {
    bytes,
    hash,
    etag: `"${hash}"`,
    gzipped: () => (gz ??= gzipSync(bytes)),
  };
}

/**
 * Whether an `If-None-Match` header matches `etag`: `*`, or one of a comma-separated list, compared weakly
 * (a `W/` prefix is ignored), as Go's http.ServeContent does.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined || header === '') return false;
  for (const raw of header.split(',')) {
    const tag = raw.trim();
    if (tag === '*') return true;
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

export interface ServeOptions {
  /** Set exactly as given (Koa's `ctx.type` would append a charset). */
  readonly contentType: string;
  readonly cacheControl: string;
  /** Extra headers (`Expires`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Answers with the document: ETag and Vary headers, 304 without a body when `If-None-Match` matches,
 * gzip when the client accepts it and the document is large enough.
 */
export function serveCached(ctx: AppContext, body: CachedBody, o: ServeOptions): void {
  ctx.set('ETag', body.etag);
  ctx.set('Cache-Control', o.cacheControl);
  if (o.headers !== undefined) for (const [k, v] of Object.entries(o.headers)) ctx.set(k, v);
  const large = body.bytes.length >= gzipThresholdBytes;
  ctx.set('Vary', large ? 'Accept, Accept-Encoding' : 'Accept');
  if (ifNoneMatchHits(ctx.get('If-None-Match'), body.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  if (large && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.body = body.gzipped();
    ctx.set('Content-Encoding', 'gzip');
  } else {
    ctx.body = body.bytes;
  }
  ctx.set('Content-Type', o.contentType);
}
