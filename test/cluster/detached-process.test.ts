/**
 * Detached processes of the local cluster (deploy/cluster/process.ts): how one ended reaches its log while
 * the launcher still runs, and `exitOf` tells it in the start-up error, so a process that exits during start-up
 * without a word says why (or that it did not exit).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitOf, runningPid, spawnDetached } from '../../deploy/cluster/process.js';
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

test('exitOf says how a process started here ended, or what /proc shows of one still there', async () => {
  const logFile = join(dir, 'p.log');
  const quick = spawnDetached({ name: 'quick', command: 'sh', args: ['-c', 'exit 5', `quick-${dir}`], pidFile: join(dir, 'quick.pid'), logFile, marker: `quick-${dir}` });
  expect(await exitOf(quick, 10_000)).toBe('exited: code 5');
  const marker = `slow-${dir}`;
  const slow = spawnDetached({ name: 'slow', command: 'sh', args: ['-c', 'sleep 30', marker], pidFile: join(dir, 'slow.pid'), logFile, marker });
  try {
    const seen = await exitOf(slow, 50);
    expect(seen).toContain('not reaped; /proc:');
    expect(seen).toContain(`command line: sh -c sleep 30 ${marker}`);
  } finally {
    process.kill(slow, 'SIGKILL');
  }
  expect(await exitOf(slow, 10_000)).toBe('exited: signal SIGKILL');
});
