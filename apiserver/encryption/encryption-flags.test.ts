/**
 * `--encryption-provider-config` and `--encryption-provider-config-automatic-reload` on the command line:
 * a file that does not validate is a flag error (exit 2) with kube's message; the reload flag needs the
 * file flag (kube's wording); the built-in kinds' stored resources name the keys as kube names them.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FlagError } from '../config/flag-error.js';
import { helpText } from '../config/help.js';
import { parseFlags } from '../config/parse-flags.js';
import { buildConfig } from '../config/server-config.js';
import { naming } from '../naming/naming.js';
import { builtinKinds } from '../registry/kinds/index.js';
import { openEncryptionAtRest } from './encryption-at-rest.js';

const dir = mkdtempSync(join(tmpdir(), 'enc-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = (...argv: string[]) => buildConfig(parseFlags(argv), dir);
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return name;
};
const good = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm: {keys: [{name: key1, secret: ${randomBytes(32).toString('base64')}}]}
`;

test('a valid file is read (path resolved against the working directory); reload off by default', () => {
  expect(config(`--encryption-provider-config=${file('ok.yaml', good)}`).encryption).toEqual({ file: join(dir, 'ok.yaml'), automaticReload: false });
  expect(config(`--encryption-provider-config=${file('ok.yaml', good)}`, '--encryption-provider-config-automatic-reload').encryption?.automaticReload).toBe(true);
  expect(config().encryption).toBeUndefined();
});

test('a bad file is a flag error with kube\'s message; a missing one names the path', () => {
  const bad = file('bad.yaml', good.replace(/secret: [^}]+\}/, 'secret: c2hvcnQ=}'));
  expect(() => config(`--encryption-provider-config=${bad}`)).toThrow(FlagError);
  expect(() => config(`--encryption-provider-config=${bad}`)).toThrow(
    '--encryption-provider-config: error while parsing file: resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of [16 24 32]',
  );
  expect(() => config('--encryption-provider-config=missing.yaml')).toThrow(/error opening encryption provider configuration file ".*missing.yaml"/);
  expect(() => config(`--encryption-provider-config=${file('empty.yaml', '')}`)).toThrow(/is empty/);
});

test('the reload flag alone is refused with kube\'s wording', () => {
  expect(() => config('--encryption-provider-config-automatic-reload')).toThrow('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
});

test('--help lists both flags', () => {
  expect(helpText('platform-apiserver')).toContain('--encryption-provider-config');
  expect(helpText('platform-apiserver')).toContain('--encryption-provider-config-automatic-reload');
});

test.each(['k8s.io', 'platform.io'])('keys map to kube\'s group-resources for every built-in kind (%s)', (domain) => {
  const n = naming(domain);
  const enc = openEncryptionAtRest({ file: join(dir, file('ok.yaml', good)), naming: n, prefix: '/registry', kinds: builtinKinds(n) });
  const t = enc.transformers;
  expect(t.resourceOf('/registry/secrets/ns/a')).toBe('secrets');
  // events.k8s.io Events are stored as core events (kube: encrypt them as `events`).
  expect(t.resourceOf('/registry/events/ns/a')).toBe('events');
  expect(t.resourceOf('/registry/statefulsets/ns/a')).toBe('statefulsets.apps');
  expect(t.resourceOf('/registry/clusterroles/a')).toBe(`clusterroles.${n.group('rbac')}`);
  expect(t.resourceOf('/registry/example.com/widgets/ns/a')).toBe('widgets.example.com');
  expect(t.resourceOf('/registry/compact_rev_key')).toBeUndefined();
  // Configured: secrets only; everything else is identity (plaintext), non-resource keys pass through.
  expect(t.current.covers('secrets')).toBe(true);
  expect(t.current.covers('configmaps')).toBe(false);
  expect(t.forKey('/registry/compact_rev_key')).toBeUndefined();
});
