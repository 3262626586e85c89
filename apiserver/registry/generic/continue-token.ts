/**
 * Continue tokens of paged lists, in Kubernetes' format: base64url (no padding) of the JSON
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key relative to the list prefix>"}`.
 * `rv` is the snapshot revision every page is read at; `-1` means "continue at the latest revision" (the
 * token handed out with a 410 when the snapshot was compacted). Decoding validates everything a client
 * could forge: the version, `rv` (not 0, not below -1), and the start key (a clean relative path, so the
 * continuation can never range outside the prefix).
 */
import { badRequest } from '../../errors/constructors.js';

const TOKEN_VERSION = 'meta.k8s.io/v1';
/** The revision of tokens that continue at the latest revision. */
export const CONTINUE_AT_LATEST = -1;

export interface ContinuePosition {
  /** The full store key to start at (inclusive). */
  readonly startKey: string;
  /** The snapshot revision, or CONTINUE_AT_LATEST. */
  readonly revision: number;
}

/** `nextKey` is a full key under `prefix` (usually the last returned key + "\x00"). */
export function encodeContinue(nextKey: string, prefix: string, revision: number): string {
  const start = nextKey.startsWith(prefix) ? nextKey.slice(prefix.length) : nextKey;
  return Buffer.from(JSON.stringify({ v: TOKEN_VERSION, rv: revision, start }), 'utf8').toString('base64url');
}

const invalid = (detail: string) => badRequest(`invalid continue token: continue key is not valid: ${detail}`);

function isCleanAbsolute(p: string): boolean {
  if (p === '/') return true;
  if (p.endsWith('/')) return false;
  const parts = p.slice(1).split('/');
  return parts.every((s) => s !== '' && s !== '.' && s !== '..');
}

/** Parses a token for a listing of `prefix`; 400 BadRequest (`invalid continue token: ...`) when invalid. */
export function decodeContinue(token: string, prefix: string): ContinuePosition {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(token)) throw invalid('illegal base64 data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('the token is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid('the token is not a JSON object');
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== TOKEN_VERSION) throw badRequest(`invalid continue token: continue key is not valid: server does not recognize this encoded version ${String(v)}`);
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv === 0 || rv < CONTINUE_AT_LATEST) {
    throw invalid(`incorrect encoded start resourceVersion (version ${TOKEN_VERSION})`);
  }
  if (typeof start !== 'string' || start === '') throw invalid(`encoded start key empty (version ${TOKEN_VERSION})`);
  const abs = start.startsWith('/') ? start : `/${start}`;
  if (!isCleanAbsolute(abs)) throw invalid(start);
  return { startKey: prefix + abs.slice(1), revision: rv };
}
