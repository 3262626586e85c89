/**
 * Detached processes of the local cluster (deploy/cluster/process.ts): how one ended reaches its log while
 * the launcher still runs, so a process that exits during start-up without a word says why.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runningPid, spawnDetached } from '../../deploy/cluster/process.js';
import { until } from '../harness/until.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'detached-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('an exit code and a signal are appended to the log; the pid file then names no running process', async () => {
  const spawnIt = (name: string, script: string): { log: string; pidFile: string; marker: string } => {
    const log = join(dir, `${name}.log`);
    const pidFile = join(dir, `${name}.pid`);
    const marker = `${name}-${dir}`;
    spawnDetached({ name, command: 'sh', args: ['-c', script, marker], pidFile, logFile: log, marker });
    return { log, pidFile, marker };
  };
  const quiet = spawnIt('quiet', 'exit 3');
  const killed = spawnIt('killed', 'echo started; kill -KILL $$');
  const logOf = (p: string): string => readFileSync(p, 'utf8');
  await until('the exit of quiet in its log', () => logOf(quiet.log).includes('exited'));
  await until('the exit of killed in its log', () => logOf(killed.log).includes('exited'));
  expect(logOf(quiet.log)).toMatch(/^\[launcher\] quiet \(pid \d+\) exited: code 3\n$/);
  expect(logOf(killed.log)).toMatch(/^started\n\[launcher\] killed \(pid \d+\) exited: signal SIGKILL\n$/);
  expect(runningPid(quiet.pidFile, quiet.marker)).toBeUndefined();
  expect(runningPid(killed.pidFile, killed.marker)).toBeUndefined();
});
