/**
 * Turns the run-wide leak capture on for a jest run (called by jest.config.cjs in jest's main process,
 * before the global set-up and before any worker starts, so every worker and every process a test spawns
 * inherits it): PLATFORM_TEST_CAPTURE_DIR names a fresh directory for the captured output, and
 * NODE_OPTIONS preloads capture-preload.cjs into every Node process. `PLATFORM_TEST_CAPTURE=0` turns it
 * off; a directory already set (a parent run, or chosen to keep the files) is used.
 */
'use strict';
const os = require('node:os');
const path = require('node:path');

module.exports = function captureEnv() {
  if (process.env.PLATFORM_TEST_CAPTURE === '0') return;
  process.env.PLATFORM_TEST_CAPTURE_DIR ||= path.join(os.tmpdir(), `platform-test-capture-${process.pid}-${Date.now()}`);
  const preload = `--require ${path.join(__dirname, 'capture-preload.cjs')}`;
  const options = process.env.NODE_OPTIONS ?? '';
  if (!options.includes(preload)) process.env.NODE_OPTIONS = options === '' ? preload : `${options} ${preload}`;
};
