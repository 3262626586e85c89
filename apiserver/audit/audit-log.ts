/**
 * Assembles auditing for one server from its `AuditConfig`: the policy checker, the output (rotating file
 * or stdout), the buffered backend and what the audit filter needs. Opening the file happens here, before
 * the server listens, so an unwritable `--audit-log-path` fails start-up.
 */
import type { Registry } from 'prom-client';
import type { AuditConfig } from '../config/audit-flags.js';
import type { Logger } from '../log/logger.js';
import { auditMetrics } from '../metrics/audit-metrics.js';
import type { Naming } from '../naming/naming.js';
import type { AuditFilterOptions } from '../server/filters/audit.js';
import { LogBackend } from './log-backend.js';
import { PolicyChecker } from './policy-checker.js';
import { RotatingFile, stdoutOutput } from './rotating-file.js';

/** lumberjack's size when `--audit-log-maxsize` is 0. */
const defaultMaxSizeMB = 100;

export interface AuditLog {
  readonly filter: AuditFilterOptions;
  readonly backend: LogBackend;
  /** Writes what is buffered and closes the file. */
  close(): Promise<void>;
}

export async function openAuditLog(config: AuditConfig, naming: Naming, registry: Registry, logger: Logger): Promise<AuditLog> {
  const log = logger.child({ component: 'audit' });
  const metrics = auditMetrics(registry);
  const output = config.logPath === '-'
    ? stdoutOutput()
    : await RotatingFile.open({
      path: config.logPath,
      maxSizeBytes: (config.maxSizeMB > 0 ? config.maxSizeMB : defaultMaxSizeMB) * 1024 * 1024,
      maxBackups: config.maxBackups,
      maxAgeDays: config.maxAgeDays,
      compress: config.compress,
      onError: (err) => log.warn({ err }, 'audit log rotation'),
    });
  const backend = new LogBackend({
    output,
    mode: config.mode,
    bufferSize: config.bufferSize,
    batchMaxSize: config.batchMaxSize,
    batchMaxWaitMs: config.batchMaxWaitMs,
    metrics,
    logger: log,
  });
  const filter: AuditFilterOptions = {
    checker: new PolicyChecker(config.policy),
    env: {
      sink: backend,
      metrics,
      apiVersion: `audit.${naming.domain}/v1`,
      format: config.format,
      decisionKey: `${naming.group('authorization')}/decision`,
      reasonKey: `${naming.group('authorization')}/reason`,
    },
    naming,
    ...(config.mode === 'blocking-strict' ? { strict: { healthy: () => backend.healthy, rejected: () => metrics.requestRejected() } } : {}),
  };
  return { filter, backend, close: () => backend.close() };
}
