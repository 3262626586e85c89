import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCa } from '../tls/generate-certs.js';
import { clientSigningCaPems, loadSigningMaterial, signingCaPaths } from '../tls/signing-material.js';
import { helpText } from './help.js';
import { parseFlags } from './parse-flags.js';
import { buildConfig } from './server-config.js';

const config = (...argv: string[]) => buildConfig(parseFlags(argv), '/cwd');

test('--cluster-signing-duration defaults to 8760h and must be positive', () => {
  expect(config().clusterSigning).toEqual({ durationMs: 8760 * 3_600_000 });
  expect(config('--cluster-signing-duration=1h30m').clusterSigning?.durationMs).toBe(90 * 60_000);
  expect(() => config('--cluster-signing-duration=0')).toThrow('invalid value for flag --cluster-signing-duration: must be positive');
});

test('the default pair and the per-signer pairs: absolute paths, in pairs, exclusive', () => {
  expect(config('--cluster-signing-cert-file=ca.crt', '--cluster-signing-key-file=/k/ca.key').clusterSigning?.all).toEqual({ certFile: '/cwd/ca.crt', keyFile: '/k/ca.key' });
  expect(config(
    '--cluster-signing-kubelet-client-cert-file=n.crt', '--cluster-signing-kubelet-client-key-file=n.key',
    '--cluster-signing-kube-apiserver-client-cert-file=c.crt', '--cluster-signing-kube-apiserver-client-key-file=c.key',
  ).clusterSigning?.perSigner).toEqual({
    'apiserver-client-nodeagent': { certFile: '/cwd/n.crt', keyFile: '/cwd/n.key' },
    'apiserver-client': { certFile: '/cwd/c.crt', keyFile: '/cwd/c.key' },
  });
  expect(() => config('--cluster-signing-cert-file=a.crt')).toThrow('--cluster-signing-cert-file requires --cluster-signing-key-file');
  expect(() => config('--cluster-signing-kubelet-serving-key-file=a.key')).toThrow('--cluster-signing-kubelet-serving-key-file requires --cluster-signing-kubelet-serving-cert-file');
  expect(() => config('--cluster-signing-cert-file=a', '--cluster-signing-key-file=b', '--cluster-signing-legacy-unknown-cert-file=c', '--cluster-signing-legacy-unknown-key-file=d'))
    .toThrow(/^cannot specify default and per controller certs at the same time/);
});

test('--help lists them', () => {
  for (const f of ['cluster-signing-cert-file', 'cluster-signing-kubelet-serving-key-file', 'cluster-signing-duration']) expect(helpText('platform-apiserver')).toContain(`--${f}`);
});

describe('loadSigningMaterial', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'signing-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates one CA for every signer once, then reuses it', async () => {
    const first = await loadSigningMaterial(undefined, dir);
    expect(first.generated?.certPem).toBe(readFileSync(signingCaPaths(dir).cert, 'utf8'));
    expect(new Set(Object.values(first.cas)).size).toBe(1);
    expect(Object.keys(first.cas).sort()).toEqual(['apiserver-client', 'apiserver-client-nodeagent', 'legacy-unknown', 'nodeagent-serving']);
    expect(clientSigningCaPems(first)).toEqual([first.generated!.certPem]);
    const again = await loadSigningMaterial(undefined, dir);
    expect(again.generated).toEqual(first.generated);
  });

  it('uses given files; per-signer files leave the other signers without material', async () => {
    const ca = await generateCa('given');
    writeFileSync(join(dir, 'c.crt'), ca.certPem);
    writeFileSync(join(dir, 'c.key'), ca.keyPem);
    const files = { certFile: join(dir, 'c.crt'), keyFile: join(dir, 'c.key') };
    const per = await loadSigningMaterial({ durationMs: 1000, perSigner: { 'nodeagent-serving': files } }, dir);
    expect(Object.keys(per.cas)).toEqual(['nodeagent-serving']);
    expect(per.generated).toBeUndefined();
    // A serving signer's CA is not a client CA.
    expect(clientSigningCaPems(per)).toEqual([]);
    await expect(loadSigningMaterial({ durationMs: 1000, all: { certFile: join(dir, 'missing.crt'), keyFile: files.keyFile } }, dir))
      .rejects.toThrow(`cannot read cluster signing certificate file ${join(dir, 'missing.crt')}`);
  });
});
