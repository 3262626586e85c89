/**
 * Jest global set-up: builds dist/ once, before any worker starts, as `make build` does.
 *
 * Tests that run `bin/platform-apiserver` (the kubectl end-to-end tests, the process test) need dist/.
 * Building it from each test file let one file's `tsc` rewrite dist/ while another file's server was
 * loading it (a half-written module fails to import), so the build happens here, exactly once per run.
 */
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join, resolve } = require('node:path');

module.exports = function buildDist() {
  const root = resolve(__dirname, '..', '..');
  const build = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0 || !existsSync(join(root, 'dist', 'apiserver', 'main.js'))) {
    throw new Error(`build failed: ${build.stdout}${build.stderr}`);
  }
};
