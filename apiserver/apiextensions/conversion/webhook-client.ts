/**
 * Calling a webhook the way Kubernetes' webhook client does (k8s.io/apiserver `util/webhook` over
 * client-go's REST client), with its error texts:
 *
 * - the target: `url` as given (port 443 when absent), or a `service` reference, which is
 *   `https://<name>.<namespace>.svc:<port><path>` (port 443 by default). A service's address comes from an
 *   injected resolver (Kubernetes resolves the Service; tests and the integration map it to an address),
 *   while TLS still verifies the name `<name>.<namespace>.svc`;
 * - TLS: the server is verified against `caBundle` alone when one is given (PEM, base64 in the
 *   definition), else against the system roots; HTTP/1.1 only;
 * - a deadline (30 s by default, Kubernetes' webhook client default) sent as `?timeout=30s` too;
 * - errors read `Post "<url>": <cause>` with Go's cause words (`context deadline exceeded`,
 *   `tls: failed to verify certificate: x509: certificate signed by unknown authority`,
 *   `dial tcp <addr>: connect: connection refused`, `EOF`);
 * - a non-2xx answer is the Status it carries (its message), else client-go's generic text for the code
 *   (`the server rejected our request for an unknown reason`, `an error on the server ("...") has prevented
 *   the request from succeeding`, ...); a 2xx answer with no body is `0-length response with status code:
 *   200 and content type: application/json`.
 */
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import type { IncomingMessage } from 'node:http';

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly path?: string;
  readonly port?: number;
}

export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: ServiceReference;
  /** base64 of PEM certificates, as `caBundle` is written in JSON. */
  readonly caBundle?: string;
}

/** Maps a Service to the address to dial (`host`, `port`). Kubernetes resolves the Service's endpoints. */
export type ServiceResolver = (service: { namespace: string; name: string; port: number }) => { host: string; port: number } | Promise<{ host: string; port: number }>;

export interface WebhookCallOptions {
  readonly timeoutMs?: number;
  readonly resolveService?: ServiceResolver;
  readonly signal?: AbortSignal;
  /** Largest answer read (bytes); beyond it the call fails. */
  readonly maxResponseBytes?: number;
}

/** Kubernetes' webhook client timeout (`setGlobalDefaults`: 30 s). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** client-go keeps this much of a non-Status error body in its message. */
const MAX_UNSTRUCTURED_TEXT = 2048;

/** A failed call; `message` is Kubernetes' text (`Post "...": ...` or client-go's answer text). */
export class WebhookCallError extends Error {
  override readonly name = 'WebhookCallError';
}

/** Go's `time.Duration.String()` for whole milliseconds: `30s`, `1.5s`, `500ms`, `2m0s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const seconds = (ms % 60_000) / 1000;
  const minutes = Math.floor(ms / 60_000);
  const s = `${Number(seconds.toFixed(3))}s`;
  if (minutes === 0) return s;
  const hours = Math.floor(minutes / 60);
  return hours === 0 ? `${minutes}m${s}` : `${hours}h${minutes % 60}m${s}`;
}

/** `path.Join`-like cleaning of a service path as client-go builds the URL (`''` is `/`). */
function cleanPath(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
}

interface Target {
  /** The URL as printed in errors (with `?timeout=`). */
  readonly printed: string;
  readonly connectHost: string;
  readonly connectPort: number;
  readonly path: string;
  /** The name TLS verifies (and SNI, unless an IP). */
  readonly serverName: string;
  readonly hostHeader: string;
}

function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

async function resolveTarget(config: WebhookClientConfig, timeoutMs: number, resolve: ServiceResolver | undefined): Promise<Target> {
  const query = `?timeout=${goDuration(timeoutMs)}`;
  if (config.service !== undefined) {
    const svc = config.service;
    const port = svc.port ?? 443;
    const serverName = `${svc.name}.${svc.namespace}.svc`;
    const path = cleanPath(svc.path ?? '');
    const printed = `https://${serverName}:${port}${path}${query}`;
    let connectHost = serverName;
    let connectPort = port;
    if (resolve !== undefined) {
      try {
        ({ host: connectHost, port: connectPort } = await resolve({ namespace: svc.namespace, name: svc.name, port }));
      } catch (e) {
        throw new WebhookCallError(`Post "${printed}": ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return { printed, connectHost, connectPort, path: `${path}${query}`, serverName, hostHeader: `${serverName}:${port}` };
  }
  if (config.url === undefined || config.url === '') throw new WebhookCallError('webhook configuration must have either service or URL');
  let u: URL;
  try {
    u = new URL(config.url);
  } catch (e) {
    throw new WebhookCallError(`Unparsable URL: ${e instanceof Error ? e.message : String(e)}`);
  }
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const port = u.port === '' ? 443 : Number(u.port);
  const path = cleanPath(u.pathname);
  return { printed: `https://${u.host}${path}${query}`, connectHost: host, connectPort: port, path: `${path}${query}`, serverName: host, hostHeader: u.host };
}

const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
]);

/** Go's `x509.HostnameError` text from Node's altname error (`certificate is valid for a, b, not c`). */
function hostnameError(err: NodeJS.ErrnoException & { host?: string; cert?: { subjectaltname?: string } }, host: string): string {
  const sans = (err.cert?.subjectaltname ?? '').split(/,\s*/).filter((s) => s !== '');
  if (isIP(host) !== 0) {
    const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => s.slice('IP Address:'.length));
    if (ips.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  const names = sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4));
  if (names.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${names.join(', ')}, not ${host}`;
}

/** Go's words for a transport failure (also the aggregator's, apiserver/aggregator/backend-client.ts). */
export function goCause(err: unknown, target: Pick<Target, 'connectHost' | 'connectPort' | 'serverName'>): string {
  const e = err as NodeJS.ErrnoException & { host?: string; cert?: { subjectaltname?: string } };
  const code = e?.code ?? '';
  const addr = hostPort(target.connectHost, target.connectPort);
  if (UNKNOWN_AUTHORITY.has(code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: ${hostnameError(e, target.serverName)}`;
  if (code === 'ECONNREFUSED') return `dial tcp ${addr}: connect: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `dial tcp: lookup ${target.connectHost}: no such host`;
  if (code === 'ECONNRESET') return e.message === 'socket hang up' ? 'EOF' : `read tcp ${addr}: read: connection reset by peer`;
  if (code === 'EHOSTUNREACH') return `dial tcp ${addr}: connect: no route to host`;
  return e instanceof Error ? e.message : String(err);
}

/** client-go's `isTextResponse`: no content type, or a `text/*` one. */
function isTextResponse(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true;
  return contentType.split(';')[0]!.trim().toLowerCase().startsWith('text/');
}

/** apimachinery's `NewGenericServerResponse` message for an answer that carries no Status. */
export function genericServerResponseMessage(code: number, serverMessage: string): string {
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return serverMessage;
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 406:
      return serverMessage === '' || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage;
    case 415:
      return serverMessage;
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    default:
      if (code >= 500) return `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${code} but did not return more information`;
  }
}

/** A failed Status in the body (`kind: Status`, apiVersion `v1` or none, `status: Failure`), as client-go prefers it. */
function statusMessage(body: string): string | undefined {
  try {
    const v = JSON.parse(body) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    const o = v as Record<string, unknown>;
    if (o['kind'] !== 'Status' || (o['apiVersion'] !== undefined && o['apiVersion'] !== 'v1') || o['status'] !== 'Failure') return undefined;
    return typeof o['message'] === 'string' ? o['message'] : '';
  } catch {
    return undefined;
  }
}

function readBody(res: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        res.destroy(new Error(`response body larger than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('aborted', () => reject(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
  });
}

class DeadlineExceeded extends Error {}
class Canceled extends Error {}

/**
 * POSTs `body` (JSON) to the webhook and returns the 2xx answer's text. Throws `WebhookCallError` with
 * Kubernetes' words for every failure (transport, TLS, deadline, non-2xx, empty answer).
 */
export async function postWebhook(config: WebhookClientConfig, body: string, opts: WebhookCallOptions = {}): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const target = await resolveTarget(config, timeoutMs, opts.resolveService);
  const ca = config.caBundle !== undefined && config.caBundle !== '' ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  const payload = Buffer.from(body, 'utf8');

  const result = await new Promise<{ status: number; contentType: string | undefined; body: Buffer }>((resolve, reject) => {
    const options: RequestOptions & ConnectionOptions = {
      host: target.connectHost,
      port: target.connectPort,
      path: target.path,
      method: 'POST',
      ...(ca === undefined ? {} : { ca }),
      ...(isIP(target.serverName) === 0 ? { servername: target.serverName } : {}),
      // Node verifies the name against `servername` when set, else the host dialled; a resolved service
      // dials an address but must still present a certificate for <name>.<namespace>.svc.
      checkServerIdentity: (_host, cert) => checkServerIdentity(target.serverName, cert),
      ALPNProtocols: ['http/1.1'],
      agent: false,
      headers: {
        Host: target.hostHeader,
        'Content-Type': 'application/json',
        Accept: 'application/json, */*',
        'User-Agent': 'kube-apiserver-admission',
        'Content-Length': String(payload.length),
      },
    };
    const req = httpsRequest(options);
    const timer = setTimeout(() => req.destroy(new DeadlineExceeded()), timeoutMs);
    const onAbort = (): void => void req.destroy(new Canceled());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    req.on('error', (err) => {
      done();
      reject(err);
    });
    req.on('response', (res) => {
      readBody(res, opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES).then(
        (buf) => {
          done();
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: buf });
        },
        (err: unknown) => {
          done();
          reject(err);
        },
      );
    });
    if (opts.signal?.aborted === true) onAbort();
    req.end(payload);
  }).catch((err: unknown) => {
    const cause = err instanceof DeadlineExceeded ? 'context deadline exceeded' : err instanceof Canceled ? 'context canceled' : goCause(err, target);
    throw new WebhookCallError(`Post "${target.printed}": ${cause}`);
  });

  const text = result.body.toString('utf8');
  if (result.status < 200 || result.status > 206) {
    const fromStatus = text.length > 0 ? statusMessage(text) : undefined;
    if (fromStatus !== undefined) throw new WebhookCallError(fromStatus);
    const serverMessage = isTextResponse(result.contentType) ? text.slice(0, MAX_UNSTRUCTURED_TEXT).trim() : 'unknown';
    throw new WebhookCallError(genericServerResponseMessage(result.status, serverMessage));
  }
  if (result.body.length === 0) {
    throw new WebhookCallError(`0-length response with status code: ${result.status} and content type: ${result.contentType ?? 'application/json'}`);
  }
  return text;
}
