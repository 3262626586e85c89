/**
 * Helpers for server tests: start a real server in process on 127.0.0.1 port 0 in a temporary data dir,
 * and make HTTPS requests that trust its CA. Every server started here is closed by `stopAll()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { defaultConfig, type ServerConfig } from '../../apiserver/config/server-config.js';
import { createLogger, type Logger } from '../../apiserver/log/logger.js';
import { startServer, type RunningServer, type StartOptions } from '../../apiserver/server/start-server.js';
import { captureAuditLogs, captureText, registerServer, watchAuditLog } from '../harness/capture.js';

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export interface RequestOptions {
  readonly ca?: string;
  readonly token?: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
  /** Sent as the request body. */
  readonly body?: string;
}

/** One HTTPS request on a fresh connection (no keep-alive pool to clean up). */
export function httpsRequest(url: string, o: RequestOptions = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: o.method ?? 'GET',
      ca: o.ca,
      agent: false,
      headers: { ...(o.token === undefined ? {} : { Authorization: `Bearer ${o.token}` }), ...o.headers },
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** Captures log lines in memory (JSON objects), so tests can assert on them. */
export function memoryLogger(level = 'debug'): { readonly logger: Logger; readonly lines: () => string[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      captureText(chunk.toString('utf8')); // the run's leak scan (test/harness/capture.ts)
      cb();
    },
  });
  return { logger: createLogger({ level, destination: stream }), lines: () => chunks.join('').split('\n').filter((l) => l !== '') };
}

const dirs: string[] = [];
const servers: RunningServer[] = [];

/** A fresh temporary directory, removed by `stopAll()`. */
export function tempDir(prefix = 'apiserver-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A config for tests: loopback, free port, compaction off, in a fresh data dir unless given. */
export function testConfig(overrides: Partial<ServerConfig> = {}): ServerConfig {
  const dataDir = overrides.dataDir ?? tempDir();
  return { ...defaultConfig(dataDir), bindAddress: '127.0.0.1', securePort: 0, compactionIntervalMs: 0, shutdownDelayMs: 0, shutdownTimeoutMs: 5000, ...overrides };
}

/** Starts a server (real embedded store unless `options.store`), tracked for `stopAll()`. */
export async function startTestServer(
  overrides: Partial<ServerConfig> = {},
  options: StartOptions = {},
): Promise<RunningServer> {
  const config = testConfig(overrides);
  const server = await startServer(config, { logger: options.logger ?? memoryLogger().logger, ...options });
  servers.push(server);
  registerServer(config.dataDir, config.tokenAuthFile, config.encryption?.file);
  watchAuditLog(config.audit?.logPath);
  return server;
}

/** Closes every server and removes every temporary directory. Call from afterAll/afterEach. */
export async function stopAll(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  captureAuditLogs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Polls `probe` until it returns true; no fixed sleeps in assertions, a generous overall bound. */
export async function eventually(probe: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
