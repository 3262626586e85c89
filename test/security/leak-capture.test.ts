/**
 * The run-wide leak capture and scan of the harness (test/harness/capture*.{ts,cjs},
 * global-teardown-leaks.cjs): it is on in every jest run, a spawned Node process's stdout and stderr (by
 * any route: process.stdout, pino's direct fd writes) are captured with the secrets of its `--data-dir`
 * and `--token-auth-file`, an in-process server's log lines and secrets are captured, and the scan finds a
 * registered secret or a fixture canary in captured output, naming file and line, in little time.
 *
 * The children here write secrets on purpose, so they capture into a private directory, never the run's.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { memoryLogger, startTestServer, stopAll, tempDir } from '../server/helpers.js';

const { scanCaptureDir } = require('../harness/global-teardown-leaks.cjs') as { scanCaptureDir: (dir: string) => string[] };
const canaries = require('../harness/canaries.cjs') as Record<string, string>;

afterAll(stopAll);

const preload = join(__dirname, '..', 'harness', 'capture-preload.cjs');

it('is on for the whole run: a capture directory and the preload for every spawned Node process', () => {
  if (process.env.PLATFORM_TEST_CAPTURE === '0') return; // turned off on purpose
  expect(process.env.PLATFORM_TEST_CAPTURE_DIR).toBeTruthy();
  expect(process.env.NODE_OPTIONS).toContain(preload);
});

it('captures a spawned process\'s stdout and stderr, registers its secrets, and the scan names the leak', () => {
  const capture = join(tempDir('capture-'), 'c');
  const dataDir = tempDir('capture-data-');
  const adminToken = `adm-${randomBytes(12).toString('hex')}`;
  const staticToken = `tok-${randomBytes(12).toString('hex')}`;
  writeFileSync(adminTokenPath(dataDir), `${adminToken}\n`);
  mkdirSync(join(dataDir, 'pki'));
  const keyLine = randomBytes(48).toString('base64');
  writeFileSync(join(dataDir, 'pki', 'sa.key'), `-----BEGIN EC PRIVATE KEY-----\n${keyLine}\n-----END EC PRIVATE KEY-----\n`);
  const tokens = join(dataDir, 'tokens.csv');
  writeFileSync(tokens, `${staticToken},u,1\n`);
  const encryptionKey = randomBytes(32).toString('base64');
  const encryption = join(dataDir, 'encryption.yaml');
  writeFileSync(encryption, `kind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aescbc: {keys: [{name: k1, secret: "${encryptionKey}"}]}\n`);
  // The child leaks the admin token through pino's route (fs.writeSync on fd 2), the static token through
  // process.stdout, and writes the fixture canary (base64) and a harmless line.
  const script = [
    `require('fs').writeSync(2, 'log line with ${adminToken}\\n');`,
    `process.stdout.write('printed ${staticToken}\\n');`,
    `process.stdout.write('b64 ' + Buffer.from(${JSON.stringify(Object.values(canaries)[0])}).toString('base64') + '\\n');`,
    `process.stdout.write('nothing secret here\\n');`,
  ].join('');
  const child = spawnSync(process.execPath, ['-e', script, '--', '--data-dir', dataDir, `--token-auth-file=${tokens}`, '--encryption-provider-config', encryption], {
    env: { ...process.env, PLATFORM_TEST_CAPTURE_DIR: capture, NODE_OPTIONS: `--require ${preload}` }, encoding: 'utf8',
  });
  expect(child.status).toBe(0);
  expect(child.stdout).toContain('nothing secret here'); // the process's own output is untouched
  const files = readdirSync(capture);
  const log = files.find((f) => f.startsWith(`proc-${child.pid}-`))!;
  expect(readFileSync(join(capture, log), 'utf8')).toContain('nothing secret here');
  const registered = readFileSync(join(capture, `secrets-proc-${child.pid}.jsonl`), 'utf8');
  for (const v of [adminToken, staticToken, keyLine, encryptionKey]) expect(registered).toContain(v);

  const hits = scanCaptureDir(capture);
  expect(hits).toEqual(expect.arrayContaining([
    expect.stringMatching(new RegExp(`${log}:1: admin token of `)),
    expect.stringMatching(new RegExp(`${log}:2: token in .*tokens\\.csv`)),
    expect.stringMatching(new RegExp(`${log}:3: fixture Secret stringData`)),
  ]));
  expect(hits).toHaveLength(3);

  // A clean directory: no hit.
  const clean = join(tempDir('capture-clean-'), 'c');
  const quiet = spawnSync(process.execPath, ['-e', 'process.stdout.write("quiet\\n")', '--', '--data-dir', dataDir], {
    env: { ...process.env, PLATFORM_TEST_CAPTURE_DIR: clean, NODE_OPTIONS: `--require ${preload}` },
  });
  expect(quiet.status).toBe(0);
  expect(scanCaptureDir(clean)).toEqual([]);
});

it('captures the log lines of servers started in process and registers their secrets', async () => {
  if (process.env.PLATFORM_TEST_CAPTURE === '0') return;
  const dir = process.env.PLATFORM_TEST_CAPTURE_DIR!;
  const marker = `capture-marker-${randomBytes(8).toString('hex')}`;
  const { logger } = memoryLogger('info');
  const dataDir = tempDir();
  await startTestServer({ dataDir }, { logger });
  logger.info({ marker }, 'a line for the capture test');
  const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
  expect(readFileSync(join(dir, `worker-${process.pid}.log`), 'utf8')).toContain(marker);
  expect(readFileSync(join(dir, `secrets-worker-${process.pid}.jsonl`), 'utf8')).toContain(token);
});

it('scans a whole run\'s worth of output without false hits', () => {
  const capture = join(tempDir('capture-big-'), 'c');
  mkdirSync(capture);
  // 2,000 registered secrets (about 100 servers' worth), 40 MB of log lines without them.
  const secrets = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ label: `s${i}`, value: randomBytes(24).toString('base64') }));
  writeFileSync(join(capture, 'secrets-x.jsonl'), `${secrets.join('\n')}\n`);
  const line = `{"level":"debug","time":"2026-01-01T00:00:00.000Z","msg":"request","verb":"GET","path":"/api/v1/namespaces/x/configmaps","status":200,"id":"${randomBytes(16).toString('hex')}"}\n`;
  writeFileSync(join(capture, 'worker-1.log'), line.repeat(Math.ceil(40e6 / line.length)));
  expect(scanCaptureDir(capture)).toEqual([]);
});

it('looks for a token file\'s tokens in the output of the process that registered them, other secrets everywhere', () => {
  const capture = join(tempDir('capture-scope-'), 'c');
  mkdirSync(capture);
  const admin = randomBytes(24).toString('hex');
  writeFileSync(join(capture, 'secrets-proc-11.jsonl'), [
    JSON.stringify({ label: 'token in /t/tokens.csv', value: 'sam-token' }),
    JSON.stringify({ label: 'admin token of /d', value: admin }),
  ].join('\n') + '\n');
  // Another test's server names an object after the fixture token: not this server's secret.
  writeFileSync(join(capture, 'proc-22-main.js.log'), '{"path":"/apis/rbac/v1/namespaces/a/rolebindings/sam-token"}\n');
  expect(scanCaptureDir(capture)).toEqual([]);
  // The server that knows the token prints it (base64 too), and any process prints the admin token.
  writeFileSync(join(capture, 'proc-11-main.js.log'), `{"msg":"${Buffer.from('sam-token').toString('base64')}"}\n`);
  writeFileSync(join(capture, 'worker-33.log'), `{"msg":"${admin}"}\n`);
  expect(scanCaptureDir(capture).sort()).toEqual([
    `${join(capture, 'proc-11-main.js.log')}:1: token in /t/tokens.csv`,
    `${join(capture, 'worker-33.log')}:1: admin token of /d`,
  ]);
});
