import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagError } from './flag-error.js';
import { helpText } from './help.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig } from './server-config.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-flags-'));
  writeFileSync(join(dir, 'ok.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (...argv: string[]) => buildConfig(parseFlags(argv), dir);

test('auditing is off without both a policy and a log path', () => {
  expect(config().audit).toBeUndefined();
  expect(config('--audit-log-path=audit.log').audit).toBeUndefined();
  expect(config('--audit-policy-file=ok.yaml').audit).toBeUndefined();
});

test('the policy and the log flags, with kube\'s defaults', () => {
  const c = config('--audit-policy-file=ok.yaml', '--audit-log-path=logs/audit.log')!.audit!;
  expect(c.policy.rules).toEqual([expect.objectContaining({ level: 'Metadata' })]);
  expect(c).toMatchObject({
    logPath: join(dir, 'logs', 'audit.log'), maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, compress: false, format: 'json',
    mode: 'blocking', bufferSize: 10_000, batchMaxSize: 1, batchMaxWaitMs: 0,
  });
  const d = config('--audit-policy-file=ok.yaml', '--audit-log-path=-', '--audit-log-maxsize=5', '--audit-log-maxbackup=3', '--audit-log-maxage=7',
    '--audit-log-format=legacy', '--audit-log-mode=batch', '--audit-log-batch-max-size=100', '--audit-log-batch-max-wait=2s', '--audit-log-compress')!.audit!;
  expect(d).toMatchObject({ logPath: '-', maxSizeMB: 5, maxBackups: 3, maxAgeDays: 7, format: 'legacy', mode: 'batch', batchMaxSize: 100, batchMaxWaitMs: 2000, compress: true });
});

test.each([
  [['--audit-policy-file=bad.yaml', '--audit-log-path=a.log'], /--audit-policy-file: rules\[0\]\.level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse": from file .*bad\.yaml$/],
  [['--audit-policy-file=missing.yaml'], /--audit-policy-file: failed to read file path ".*missing\.yaml"/],
  [['--audit-log-maxsize=-1'], /^--audit-log-maxsize can't be a negative number$/],
  [['--audit-log-mode=async'], /invalid value "async" for flag --audit-log-mode: must be one of batch, blocking, blocking-strict/],
  [['--audit-log-format=xml'], /must be one of json, legacy/],
  [['--audit-log-batch-buffer-size=0'], /invalid audit batch log buffer size 0, must be a positive number/],
])('%j is a flag error (exit 2)', (argv, message) => {
  expect(() => config(...argv)).toThrow(FlagError);
  expect(() => config(...argv)).toThrow(message);
});

test('--help lists the audit flags', () => {
  const help = helpText('platform-apiserver');
  for (const f of ['audit-policy-file', 'audit-log-path', 'audit-log-maxage', 'audit-log-maxbackup', 'audit-log-maxsize', 'audit-log-format', 'audit-log-mode',
    'audit-log-batch-buffer-size', 'audit-log-batch-max-size', 'audit-log-batch-max-wait', 'audit-log-compress']) {
    expect(help).toContain(`--${f}`);
  }
});
