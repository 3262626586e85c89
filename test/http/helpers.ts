/**
 * Shared helpers for the HTTP integration tests under test/http: real servers started in process (127.0.0.1,
 * port 0) on each storage backend, and a small HTTPS client that returns status, headers and the raw body.
 *
 *   const all = backends();
 *   describeBackends(all, (b) => {
 *     let api: TestApi;
 *     beforeAll(async () => { api = await b.start(); });
 *     it('...', async () => { const res = await api.request('GET', '/api/v1/namespaces'); ... });
 *   });
 *   afterAll(() => stopBackends(all));
 *
 * The etcd backend starts one real etcd per `backends()` call (so once per test file) on first use; every
 * server started on it gets its own storage prefix unless one is given, so servers of the same file do not
 * see each other's objects. Under CI a missing etcd fails the suite (the harness throws), never skips.
 * `HTTP_BACKENDS=memory` (or `etcd`) narrows the list.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import type { ServerConfig } from '../../apiserver/config/server-config.js';
import { startServer, type RunningServer, type StartOptions } from '../../apiserver/server/start-server.js';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import { memoryLogger, testConfig } from '../server/helpers.js';
import { captureAuditLogs, registerServer, watchAuditLog } from '../harness/capture.js';

export type BackendName = 'memory' | 'etcd';

export interface ApiRequestOptions {
  /** An object or array is sent as JSON, a string or Buffer as is; Content-Type defaults to application/json
   * (application/merge-patch+json for PATCH) unless `headers` set it. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Query parameters; an array repeats the parameter; undefined ones are left out. */
  readonly query?: Record<string, string | readonly string[] | undefined>;
  /** Bearer token to send; default the admin token; null sends no Authorization header. */
  readonly token?: string | null;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes, as received (still gzip-compressed when the server compressed them). */
  readonly raw: Buffer;
  text(): string;
  json(): any;
  /** The Warning headers, as a list (empty when none). */
  warnings(): string[];
}

export interface TestApi {
  readonly server: RunningServer;
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** The generated admin token. */
  readonly token: string;
  /** PEM of the CA that signs the serving certificate. */
  readonly ca: string;
  request(method: string, path: string, options?: ApiRequestOptions): Promise<ApiResponse>;
}

export interface Backend {
  readonly name: BackendName;
  /** Starts a server on this backend (etcd is started on first use); `overrides` tune its config. */
  start(overrides?: Partial<ServerConfig>, options?: StartOptions): Promise<TestApi>;
  /** Closes the servers started here, then etcd, and removes temporary directories. Idempotent. */
  stop(): Promise<void>;
}

/** One HTTPS request on a fresh connection. */
export function apiRequest(
  base: { readonly url: string; readonly ca: string; readonly token?: string },
  method: string,
  path: string,
  o: ApiRequestOptions = {},
): Promise<ApiResponse> {
  const url = new URL(path, base.url);
  for (const [k, v] of Object.entries(o.query ?? {})) {
    if (v === undefined) continue;
    for (const one of typeof v === 'string' ? [v] : v) url.searchParams.append(k, one);
  }
  const headers: Record<string, string> = {};
  const token = o.token === undefined ? base.token : o.token;
  if (token !== null && token !== undefined) headers.Authorization = `Bearer ${token}`;
  let payload: Buffer | undefined;
  if (o.body !== undefined) {
    if (Buffer.isBuffer(o.body)) payload = o.body;
    else if (typeof o.body === 'string') payload = Buffer.from(o.body, 'utf8');
    else payload = Buffer.from(JSON.stringify(o.body), 'utf8');
    headers['Content-Type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  }
  Object.assign(headers, o.headers);
  if (payload !== undefined) headers['Content-Length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method, ca: base.ca, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          raw,
          text: () => raw.toString('utf8'),
          json: () => JSON.parse(raw.toString('utf8')),
          warnings: () => warningsOf(res.headers.warning),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Node joins repeated Warning headers with ", "; split them back on the `299 - "` starts. */
function warningsOf(h: string | string[] | undefined): string[] {
  if (h === undefined) return [];
  const all = Array.isArray(h) ? h : [h];
  return all.flatMap((v) => v.split(/,\s*(?=\d{3} )/));
}

let prefixCounter = 0;

function makeBackend(name: BackendName): Backend {
  let cluster: EtcdCluster | undefined;
  let clusterStarting: Promise<EtcdCluster> | undefined;
  const servers: RunningServer[] = [];
  const dirs: string[] = [];
  return {
    name,
    async start(overrides = {}, options = {}) {
      const dataDir = mkdtempSync(join(tmpdir(), `http-test-${name}-`));
      dirs.push(dataDir);
      let storage: Partial<ServerConfig> = {};
      if (name === 'etcd') {
        clusterStarting ??= startEtcd();
        cluster = await clusterStarting;
        prefixCounter += 1;
        storage = { storage: { backend: 'etcd', endpoints: [...cluster.endpoints] }, storagePrefix: `/registry-t${process.pid}-${prefixCounter}` };
      }
      const config = testConfig({ dataDir, ...storage, ...overrides });
      const server = await startServer(config, { logger: memoryLogger().logger, ...options });
      servers.push(server);
      registerServer(config.dataDir, config.tokenAuthFile, config.encryption?.file);
      watchAuditLog(config.audit?.logPath);
      const token = readFileSync(adminTokenPath(overrides.dataDir ?? dataDir), 'utf8').trim();
      const ca = server.caPem!;
      const base = { url: server.url, ca, token };
      return { server, url: server.url, token, ca, request: (method, path, o) => apiRequest(base, method, path, o) };
    },
    async stop() {
      await Promise.all(servers.splice(0).map((s) => s.close()));
      captureAuditLogs();
      const c = cluster ?? (clusterStarting === undefined ? undefined : await clusterStarting.catch(() => undefined));
      cluster = undefined;
      clusterStarting = undefined;
      await c?.stop();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** The backends to run on: memory and etcd (narrowed by `HTTP_BACKENDS`). Call once per test file. */
export function backends(): Backend[] {
  const selected = (process.env.HTTP_BACKENDS ?? 'memory,etcd').split(',').map((s) => s.trim()).filter((s) => s !== '');
  return selected.map((n) => {
    if (n !== 'memory' && n !== 'etcd') throw new Error(`unknown backend in HTTP_BACKENDS: ${n}`);
    return makeBackend(n);
  });
}

/**
 * `describe(name, ...)` once per backend; the etcd one is skipped only on a developer machine without the
 * etcd binary (never under CI).
 */
export function describeBackends(list: readonly Backend[], body: (b: Backend) => void): void {
  for (const b of list) (b.name === 'etcd' ? describeEtcd : describe)(b.name, () => body(b));
}

/** Stops every backend of the list (for afterAll). */
export async function stopBackends(list: readonly Backend[]): Promise<void> {
  await Promise.all(list.map((b) => b.stop()));
}

let nameCounter = 0;
/** A fresh DNS-label name for this process: `<prefix>-<pid>-<n>`. */
export function uniqueName(prefix = 'x'): string {
  nameCounter += 1;
  return `${prefix}-${process.pid}-${nameCounter}`;
}

/** Creates a namespace and returns its name (throws unless 201). */
export async function createNamespace(api: TestApi, name: string = uniqueName('ns')): Promise<string> {
  const res = await api.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  if (res.status !== 201) throw new Error(`creating namespace ${name}: ${res.status} ${res.text()}`);
  return name;
}
