/**
 * Child process for data-dir-lock.test.ts: takes the lock of the data directory `argv[2]` with the real
 * `DataDirLock`, prints one JSON line (`{"locked":true,"pid":...,"procPid":...}` or `{"locked":false,
 * "error":...}`) and, when locked, holds it until killed. Run under `unshare --pid --fork` it is PID 1 of
 * its own pid namespace, as a server in a container.
 */
import { currentHolder, DataDirLock } from '../data-dir-lock.js';

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (dir === undefined) throw new Error('usage: lock-holder <dataDir>');
  const warnings: string[] = [];
  try {
    await DataDirLock.acquire(dir, { info: () => undefined, warn: (fields, msg) => warnings.push(`${msg} ${JSON.stringify(fields)}`) });
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ locked: false, error: (err as Error).message })}\n`);
    process.exit(0);
  }
  const me = currentHolder();
  process.stdout.write(`${JSON.stringify({ locked: true, pid: me.pid, procPid: me.procPid, warnings })}\n`);
  setInterval(() => undefined, 1 << 30);
}

void main();
