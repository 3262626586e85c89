import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultFeatureGates } from '../features/feature-gates.js';
import { naming } from '../naming/naming.js';
import { loadAuthenticationConfigFile, type AuthenticationConfiguration } from './authentication-config.js';
import { anonymousChangedMessage, followAuthenticationConfig, type ReloadingAuthenticationConfig } from './authentication-config-reload.js';

const names = naming('platform.io');
const doc = (anonymous: string) => `apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\n${anonymous}`;
const healthOnly = doc('anonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n  - path: /readyz\n');

let dir: string;
let file: string;
let reloading: ReloadingAuthenticationConfig | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'authn-config-'));
  file = join(dir, 'authn.yaml');
});
afterEach(() => {
  reloading?.stop();
  reloading = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function start(initialText: string) {
  writeFileSync(file, initialText);
  const initial = await loadAuthenticationConfigFile(file, names, defaultFeatureGates);
  const logs: { level: string; msg: string; err?: string }[] = [];
  const reloaded: AuthenticationConfiguration[] = [];
  reloading = followAuthenticationConfig({
    file,
    initialText: initial.text,
    initial: initial.config,
    naming: names,
    features: defaultFeatureGates,
    intervalMs: 3_600_000,
    log: {
      info: (_f, msg) => void logs.push({ level: 'info', msg }),
      error: (f, msg) => void logs.push({ level: 'error', msg, err: (f as { err?: string }).err }),
    },
    onReloaded: (c) => void reloaded.push(c),
  });
  return { logs, reloaded, r: reloading };
}

test('a change of the anonymous section is refused as kube refuses it; the configuration in use stays', async () => {
  const { logs, reloaded, r } = await start(healthOnly);
  const initial = r.current();
  for (const changed of [
    doc('anonymous:\n  enabled: false\n'),
    doc('anonymous:\n  enabled: true\n'),
    doc('anonymous:\n  enabled: true\n  conditions:\n  - path: /readyz\n  - path: /livez\n'),
    doc(''),
  ]) {
    writeFileSync(file, changed);
    await r.check();
    expect(r.current()).toBe(initial);
  }
  expect(reloaded).toEqual([]);
  expect(logs).toHaveLength(4);
  for (const l of logs) expect(l).toEqual({ level: 'error', msg: 'failed to validate authentication config', err: anonymousChangedMessage });
});

test('a file that does not decode or validate is refused once; a missing file is a read error, retried', async () => {
  const { logs, reloaded, r } = await start(healthOnly);
  writeFileSync(file, doc('anonymous:\n  enabled: true\n  bogus: 1\n'));
  await r.check();
  await r.check();
  expect(logs).toEqual([{ level: 'error', msg: 'failed to load authentication config', err: expect.stringContaining('unknown field "anonymous.bogus"') }]);
  unlinkSync(file);
  await r.check();
  await r.check();
  // Each check reads again (the delete's own watch event may add one more read).
  const after = logs.slice(1).map((l) => l.msg);
  expect(after.length).toBeGreaterThanOrEqual(2);
  expect(new Set(after)).toEqual(new Set(['failed to read authentication config file']));
  expect(reloaded).toEqual([]);
});

test('a new text with the same anonymous section is reloaded', async () => {
  const { logs, reloaded, r } = await start(healthOnly);
  const reformatted = `{"apiVersion":"apiserver.config.platform.io/v1beta1","kind":"AuthenticationConfiguration",
    "anonymous":{"enabled":true,"conditions":[{"path":"/livez"},{"path":"/readyz"}]},"jwt":[]}`;
  writeFileSync(file, reformatted);
  await r.check();
  expect(logs).toEqual([{ level: 'info', msg: 'reloaded authentication config' }]);
  expect(reloaded).toHaveLength(1);
  expect(r.current()).toBe(reloaded[0]);
  expect(r.current().anonymous).toEqual({ enabled: true, conditions: [{ path: '/livez' }, { path: '/readyz' }] });
});

test('without an anonymous section at start, adding one is refused', async () => {
  const { logs, r } = await start(doc('jwt: []\n'));
  writeFileSync(file, healthOnly);
  await r.check();
  expect(logs).toEqual([{ level: 'error', msg: 'failed to validate authentication config', err: anonymousChangedMessage }]);
  expect(r.current().anonymous).toBeUndefined();
});
