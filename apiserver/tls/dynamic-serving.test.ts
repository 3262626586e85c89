import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamicServing, type DynamicServing, type LoadedPair } from './dynamic-serving.js';
import { generateCa, generateServingCert, type CertAndKey } from './generate-certs.js';
import { toSan } from './sans.js';

let dir: string;
let ca: CertAndKey;
const started: DynamicServing[] = [];
beforeAll(async () => {
  ca = await generateCa('dynamic-serving-test-ca');
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dynamic-serving-'));
});
afterEach(() => {
  for (const s of started.splice(0)) s.stop();
  rmSync(dir, { recursive: true, force: true });
});

const issue = (cn: string, names: string[] = ['localhost']) => generateServingCert(ca, cn, names.map(toSan));
function write(name: string, p: CertAndKey) {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  writeFileSync(certFile, p.certPem);
  writeFileSync(keyFile, p.keyPem);
  return { certFile, keyFile };
}
async function start(files: { certFile: string; keyFile: string }, sni: { certFile: string; keyFile: string; names: string[] }[] = []) {
  const loaded: LoadedPair[] = [];
  const errors: string[] = [];
  const s = await startDynamicServing({
    serving: files, sni, base: { minVersion: 'TLSv1.2' }, clientCas: [], intervalMs: 3_600_000,
    onLoaded: (e) => loaded.push(e), onError: (err, name) => errors.push(`${name}: ${err.message}`),
  });
  started.push(s);
  return { s, loaded, errors };
}

describe('startDynamicServing', () => {
  it('fails the start on a key that does not match, on an empty file, and names an unloadable SNI pair', async () => {
    const a = await issue('a');
    const b = await issue('b');
    const files = write('mixed', { certPem: a.certPem, keyPem: b.keyPem });
    await expect(start(files)).rejects.toThrow(`tls: private key does not match public key ("serving-cert::${files.certFile}::${files.keyFile}")`);
    const empty = write('empty', { certPem: '', keyPem: a.keyPem });
    await expect(start(empty)).rejects.toThrow(`missing content for serving cert "serving-cert::${empty.certFile}::${empty.keyFile}"`);
    await expect(start(write('ok', a), [{ ...files, names: [] }])).rejects.toThrow(/^failed to load SNI cert and key: tls: private key does not match/);
  });

  it('takes a changed valid pair, keeps the old one when the new one is broken, and reports both', async () => {
    const first = await issue('first');
    const files = write('serving', first);
    const { s, loaded, errors } = await start(files);
    expect(loaded).toEqual([expect.objectContaining({ name: `serving-cert::${files.certFile}::${files.keyFile}`, reload: false, names: ['first', 'localhost'] })]);
    expect(loaded[0]!.certDetail).toMatch(/^"first" \[serving\] validServingFor=\[first,localhost\] issuer="CN=dynamic-serving-test-ca"/);

    // Only the certificate replaced: it does not match the key in use, so the pair stays.
    const second = await issue('second');
    writeFileSync(files.certFile, second.certPem);
    await s.check();
    expect(s.servingCertPem()).toBe(first.certPem);
    expect(errors.at(-1)).toContain('private key does not match public key');
    expect(s.serverOptions().cert).toBe(first.certPem);

    // The key follows: the new pair is taken.
    writeFileSync(files.keyFile, second.keyPem);
    await s.check();
    expect(s.servingCertPem()).toBe(second.certPem);
    expect(s.serverOptions()).toMatchObject({ cert: second.certPem, key: second.keyPem, minVersion: 'TLSv1.2' });
    expect(loaded.at(-1)).toMatchObject({ reload: true, names: ['second', 'localhost'] });

    // Unchanged content: nothing reloads.
    const count = loaded.length;
    await s.check();
    expect(loaded).toHaveLength(count);
  });

  it('offers an SNI callback only with SNI pairs, and answers it from the current pairs', async () => {
    const { s: plain } = await start(write('plain', await issue('plain')));
    expect(plain.serverOptions().SNICallback).toBeUndefined();

    const sniFiles = write('sni', await issue('sni-one', ['sni.test']));
    const { s } = await start(write('default', await issue('default')), [{ ...sniFiles, names: [] }]);
    const pick = (name: string) => new Promise<unknown>((resolve, reject) => s.serverOptions().SNICallback!(name, (err, ctx) => (err ? reject(err) : resolve(ctx))));
    const before = await pick('sni.test');
    expect(before).toBeDefined();
    expect(await pick('other.test')).toBeUndefined();
    writeFileSync(sniFiles.keyFile, (await issue('x')).keyPem);
    const two = await issue('sni-two', ['sni.test']);
    writeFileSync(sniFiles.certFile, two.certPem);
    writeFileSync(sniFiles.keyFile, two.keyPem);
    await s.check();
    const after = await pick('sni.test');
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });
});
