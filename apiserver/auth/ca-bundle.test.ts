import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCa } from '../tls/generate-certs.js';
import { CaBundleError, loadCaBundleFile, parseCaBundle, type CaBundle, type ReloadingCaBundle } from './ca-bundle.js';

let dir: string;
let file: string;
let bundle: ReloadingCaBundle | undefined;
let caA: string;
let caB: string;
beforeAll(async () => {
  caA = (await generateCa('ca-a')).certPem;
  caB = (await generateCa('ca-b')).certPem;
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ca-bundle-'));
  file = join(dir, 'client-ca.crt');
  writeFileSync(file, caA);
});
afterEach(() => {
  bundle?.stop();
  bundle = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const subjects = (b: CaBundle) => b.roots().map((r) => r.subject);

test('unusable bundles are refused with kube\'s wording', () => {
  expect(() => parseCaBundle('client-ca-bundle::/x', '')).toThrow('missing content for CA bundle "client-ca-bundle::/x"');
  expect(() => parseCaBundle('n', 'not a certificate')).toThrow('data does not contain any valid RSA or ECDSA certificates');
  expect(() => parseCaBundle('n', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).toThrow(CaBundleError);
  expect(parseCaBundle('n', caA + caB)).toHaveLength(2);
});

test('an unusable file at start-up is an error', async () => {
  writeFileSync(file, 'garbage');
  await expect(loadCaBundleFile({ purpose: 'client-ca-bundle', file })).rejects.toThrow(`unable to load CA bundle "client-ca-bundle::${file}"`);
  await expect(loadCaBundleFile({ purpose: 'client-ca-bundle', file: join(dir, 'missing') })).rejects.toThrow('ENOENT');
});

test('a replaced file becomes the bundle in use; a broken replacement is refused and the previous one stays', async () => {
  const loaded: number[] = [];
  const refused: string[] = [];
  let changes = 0;
  bundle = await loadCaBundleFile({
    purpose: 'client-ca-bundle',
    file,
    intervalMs: 3_600_000,
    onLoaded: (_b, n) => void loaded.push(n),
    onRefused: (_b, err) => void refused.push(err.message),
  });
  bundle.onChange(() => void changes++);
  expect(bundle.name).toBe(`client-ca-bundle::${file}`);
  expect(subjects(bundle)).toEqual(['CN=ca-a']);
  const before = bundle.roots();

  writeFileSync(join(dir, 'next'), caB + caA);
  renameSync(join(dir, 'next'), file);
  await bundle.check();
  expect(subjects(bundle)).toEqual(['CN=ca-b', 'CN=ca-a']);
  expect(bundle.roots()).not.toBe(before);
  expect(bundle.pem()).toBe(caB + caA);
  expect(loaded).toEqual([2]);
  expect(changes).toBe(1);

  const inUse = bundle.roots();
  for (const broken of ['', 'garbage', caB.slice(0, 200)]) {
    writeFileSync(file, broken);
    await bundle.check();
    expect(bundle.roots()).toBe(inUse);
  }
  expect(refused).toHaveLength(3);
  expect(refused[0]).toContain('missing content for CA bundle');
  expect(changes).toBe(1);

  // Back to the content in use: nothing reloads, nothing is reported.
  writeFileSync(file, caB + caA);
  await bundle.check();
  expect(bundle.roots()).toBe(inUse);
  expect(loaded).toEqual([2]);
  expect(refused).toHaveLength(3);
});
