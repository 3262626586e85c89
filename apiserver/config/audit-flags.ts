/**
 * The `--audit-*` flags, validated as kube-apiserver's audit options: the policy file is read and checked
 * here (a broken policy stops the server at start with exit code 2, like any flag error); sizes, ages and
 * counts must not be negative; batch sizes must be positive. Auditing is on when both
 * `--audit-policy-file` and `--audit-log-path` are given (kube records nothing without a policy, and has
 * no backend without a path).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { decodePolicy, PolicyError, type AuditPolicy } from '../audit/policy.js';
import type { AuditLogMode } from '../audit/log-backend.js';
import { naming } from '../naming/naming.js';
import { FlagError } from './flag-error.js';
import type { ParsedFlags } from './parse-flags.js';

export interface AuditConfig {
  readonly policy: AuditPolicy;
  /** Absolute path of the log file, or `-` for stdout. */
  readonly logPath: string;
  /** 0: lumberjack's default of 100 MB. */
  readonly maxSizeMB: number;
  readonly maxBackups: number;
  readonly maxAgeDays: number;
  readonly compress: boolean;
  readonly format: 'json' | 'legacy';
  readonly mode: AuditLogMode;
  readonly bufferSize: number;
  readonly batchMaxSize: number;
  readonly batchMaxWaitMs: number;
}

/** kube's defaults for the log backend (mode blocking, buffer 10000, batches of 1). */
export const auditLogDefaults = Object.freeze({
  maxSizeMB: 0,
  maxBackups: 0,
  maxAgeDays: 0,
  compress: false,
  format: 'json',
  mode: 'blocking',
  bufferSize: 10_000,
  batchMaxSize: 1,
  batchMaxWaitMs: 0,
} as const);

/** Reads and validates a policy file; a problem is a FlagError naming the file. */
export function loadPolicyFile(path: string, groupDomain: string): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new FlagError(`invalid value "${path}" for flag --audit-policy-file: failed to read file path "${path}": ${(err as Error).message}`);
  }
  try {
    return decodePolicy(text, naming(groupDomain));
  } catch (err) {
    if (err instanceof PolicyError) throw new FlagError(`invalid value "${path}" for flag --audit-policy-file: ${err.message}: from file ${path}`);
    throw err;
  }
}

export function auditConfig(flags: ParsedFlags, cwd: string, groupDomain: string): AuditConfig | undefined {
  for (const name of ['audit-log-maxage', 'audit-log-maxbackup', 'audit-log-maxsize']) {
    if (flags.int(name) < 0) throw new FlagError(`--${name} can't be a negative number`);
  }
  const bufferSize = flags.int('audit-log-batch-buffer-size');
  if (bufferSize <= 0) throw new FlagError(`invalid audit batch log buffer size ${bufferSize}, must be a positive number`);
  const batchMaxSize = flags.int('audit-log-batch-max-size');
  if (batchMaxSize <= 0) throw new FlagError(`invalid audit batch log max batch size ${batchMaxSize}, must be a positive number`);
  const policyFile = flags.string('audit-policy-file');
  const path = flags.string('audit-log-path');
  const policy = policyFile === undefined ? undefined : loadPolicyFile(resolve(cwd, policyFile), groupDomain);
  if (policy === undefined || path === undefined) return undefined;
  return {
    policy,
    logPath: path === '-' ? '-' : resolve(cwd, path),
    maxSizeMB: flags.int('audit-log-maxsize'),
    maxBackups: flags.int('audit-log-maxbackup'),
    maxAgeDays: flags.int('audit-log-maxage'),
    compress: flags.bool('audit-log-compress'),
    format: (flags.string('audit-log-format') ?? 'json') as 'json' | 'legacy',
    mode: (flags.string('audit-log-mode') ?? 'blocking') as AuditLogMode,
    bufferSize,
    batchMaxSize,
    batchMaxWaitMs: flags.duration('audit-log-batch-max-wait'),
  };
}
