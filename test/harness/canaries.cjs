/**
 * Canary values planted in shared fixtures (test/fixtures/kinds/core.secrets.yaml: the Secret every
 * all-kinds and fuzz run writes through every verb). They are secrets by definition: the leak scan of the
 * whole run (global-teardown-leaks.cjs) fails if one appears in any captured server output.
 */
module.exports = Object.freeze({
  'fixture Secret stringData (test/fixtures/kinds/core.secrets.yaml)': 'fixture-canary-3f8a1c6e9b2d47a5',
});
