/**
 * Jest runs the TypeScript sources through SWC, compiled to CommonJS (types are checked separately by
 * `tsc --noEmit`). Sources import with `.js` suffixes (nodenext), so the mapper strips them.
 */
// The run-wide leak capture (test/harness/capture-env.cjs): before the set-up and the workers, which inherit it.
require('./test/harness/capture-env.cjs')();

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/storage', '<rootDir>/apiserver', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  moduleFileExtensions: ['ts', 'js', 'json', 'cjs'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    }],
    // ESM-only dependencies (the CEL engine @marcbachmann/cel-js) are compiled to CommonJS like our sources.
    '/node_modules/@marcbachmann/cel-js/.+\\.js$': ['@swc/jest', {
      jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    }],
  },
  // node_modules is not transformed, except the ESM-only packages above.
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 60000,
  // Frozen watch cache objects for every worker and spawned server; dist/ built once for the tests that run
  // bin/platform-apiserver (never by a test file): see the file.
  globalSetup: '<rootDir>/test/harness/global-setup.cjs',
  // The leak scan of everything the run's servers wrote (test/harness/global-teardown-leaks.cjs).
  globalTeardown: '<rootDir>/test/harness/global-teardown-leaks.cjs',
  // Each worker starts its own servers and etcd processes; two cores.
  maxWorkers: 2,
};
