/**
 * Preloaded into every Node process the test run starts (`NODE_OPTIONS=--require ...`, set by
 * jest.config.cjs with PLATFORM_TEST_CAPTURE_DIR): tees what the process writes to its stdout and stderr
 * (process.stdout/stderr and direct fs writes to fds 1 and 2, which is how pino's sync destination writes)
 * into `<dir>/proc-<pid>-<script>.log`, and registers the secrets of a server it ran
 * (`--data-dir`'s admin token and pki/*.key, `--token-auth-file`'s tokens, `--encryption-provider-config`'s keys) in `<dir>/secrets-proc-<pid>.jsonl` (once its admin token exists, and at exit).
 * global-teardown-leaks.cjs searches the first for the second. Best effort: a capture failure never
 * disturbs the process. Does nothing without PLATFORM_TEST_CAPTURE_DIR.
 */
'use strict';
const dir = process.env.PLATFORM_TEST_CAPTURE_DIR;
if (dir) {
  const fs = require('node:fs');
  const path = require('node:path');
  const { registerServerSecrets } = require('./capture-secrets.cjs');
  const flag = (name) => {
    const i = process.argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (i < 0) return undefined;
    const a = process.argv[i];
    return a.includes('=') ? a.slice(a.indexOf('=') + 1) : process.argv[i + 1];
  };
  const dataDir = flag('data-dir');
  const tokenFile = flag('token-auth-file');
  const encryptionFile = flag('encryption-provider-config');
  const writeSync = fs.writeSync;
  const script = path.basename(process.argv[1] || 'node').replace(/[^\w.-]/g, '_');
  let fd;
  let registered = false;
  const tee = (data, a, b) => {
    try {
      // A server's secrets exist once it has written its admin token: register them then (a SIGKILLed
      // server never reaches the exit hook), and again at exit.
      if (!registered && dataDir !== undefined && fs.existsSync(path.join(dataDir, 'admin.token'))) {
        registered = true;
        registerServerSecrets(dir, `proc-${process.pid}`, dataDir, tokenFile, encryptionFile);
      }
      if (fd === undefined) {
        fs.mkdirSync(dir, { recursive: true });
        fd = fs.openSync(path.join(dir, `proc-${process.pid}-${script}.log`), 'a');
      }
      if (typeof data === 'string') writeSync(fd, data);
      else if (ArrayBuffer.isView(data)) {
        const off = typeof a === 'number' ? a : 0;
        const len = typeof b === 'number' ? b : data.byteLength - off;
        writeSync(fd, Buffer.from(data.buffer, data.byteOffset + off, len));
      }
    } catch {
      // capture is best effort
    }
  };
  fs.writeSync = function teeWriteSync(f, data, a, b) {
    if (f === 1 || f === 2) tee(data, a, b);
    return writeSync.apply(this, arguments);
  };
  const write = fs.write;
  fs.write = function teeWrite(f, data, a, b) {
    if (f === 1 || f === 2) tee(data, a, b);
    return write.apply(this, arguments);
  };
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    stream.write = function teeStreamWrite(chunk) {
      tee(chunk);
      return original.apply(this, arguments);
    };
  }
  if (dataDir !== undefined || tokenFile !== undefined) {
    process.on('exit', () => registerServerSecrets(dir, `proc-${process.pid}`, dataDir, tokenFile, encryptionFile));
  }
}
