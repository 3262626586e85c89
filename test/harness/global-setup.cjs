/**
 * Jest global set-up, run once before any worker starts:
 * - `PLATFORM_FREEZE_CACHE=1` for the whole run: jest's workers and every server a test spawns inherit it,
 *   so every watch cache deep-freezes what it hands out (storage/cache/deep-freeze.ts) and a handler that
 *   mutates a shared cached object fails its test instead of corrupting other readers;
 * - dist/ built once (build-dist.cjs).
 */
const buildDist = require('./build-dist.cjs');

module.exports = async function globalSetup() {
  process.env.PLATFORM_FREEZE_CACHE = '1';
  buildDist();
};
