/**
 * The run-wide leak capture for servers started in process (the spawned ones are captured by
 * capture-preload.cjs): with PLATFORM_TEST_CAPTURE_DIR set (jest.config.cjs sets it for every run), the
 * test loggers' lines (test/server/helpers.ts `memoryLogger`) and the spans the test OTLP receiver gets
 * (test/tracing/otlp-receiver.ts) are appended to `<dir>/worker-<pid>.log`,
 * each started server's secrets are registered (capture-secrets.cjs), and the audit logs the tests
 * configure are copied into the directory when their server stops. global-teardown-leaks.cjs searches
 * everything captured for everything registered. Without the variable, every function does nothing.
 */
import { copyFileSync, existsSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { registerServerSecrets } from './capture-secrets.cjs';

export const captureDirVariable = 'PLATFORM_TEST_CAPTURE_DIR';

const captureDir = (): string | undefined => process.env[captureDirVariable] || undefined;

let fd: number | undefined;

/** Appends `text` (server log output) to this process's capture file. */
export function captureText(text: string): void {
  const dir = captureDir();
  if (dir === undefined) return;
  if (fd === undefined) {
    mkdirSync(dir, { recursive: true });
    fd = openSync(join(dir, `worker-${process.pid}.log`), 'a');
  }
  writeSync(fd, text);
}

let registered = 0;
/** Registers the secrets of a server started in process with `dataDir` (its token and encryption files). */
export function registerServer(dataDir: string, tokenAuthFile?: string, encryptionFile?: string): void {
  const dir = captureDir();
  if (dir === undefined) return;
  registered += 1;
  registerServerSecrets(dir, `worker-${process.pid}`, dataDir, tokenAuthFile, encryptionFile);
}

const auditLogs = new Set<string>();
/** An audit log a test server writes: copied into the capture directory by `captureAuditLogs()`. */
export function watchAuditLog(path: string | undefined): void {
  if (path !== undefined && captureDir() !== undefined) auditLogs.add(path);
}

let copies = 0;
/** Copies the watched audit logs (and their rotated backups) before their directories are removed. */
export function captureAuditLogs(): void {
  const dir = captureDir();
  if (dir === undefined) return;
  for (const path of auditLogs) {
    const folder = dirname(path);
    if (!existsSync(folder)) continue;
    const stem = basename(path).replace(/\.[^.]*$/, '');
    for (const f of readdirSync(folder).filter((n) => n.startsWith(stem))) {
      copies += 1;
      mkdirSync(dir, { recursive: true });
      copyFileSync(join(folder, f), join(dir, `audit-${process.pid}-${copies}-${f}`));
    }
  }
  auditLogs.clear();
}

/** For the harness's own test: how many servers and audit files this process registered and copied. */
export const captureCounts = (): { readonly registered: number; readonly copies: number } => ({ registered, copies });
