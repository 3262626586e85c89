/**
 * Certificates for the TLS tests, made with the `openssl` command (a tool independent of the server's own
 * certificate code): one CA and leaf certificates with a chosen CN and SANs, all ECDSA P-256 (the key type
 * of the server's generated certificates: Node keeps one certificate per key type, dynamic-serving.ts).
 * Files are replaced by rename, as rotation tools and kubelet's volume writer do.
 */
import { execFile } from 'node:child_process';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Pki {
  readonly dir: string;
  readonly caFile: string;
  /** Issues a leaf (cert and key PEM) for `cn` with `sans` (`DNS:x`, `IP:1.2.3.4`). */
  issue(cn: string, sans: readonly string[]): Promise<{ certPem: string; keyPem: string }>;
}

export async function makePki(dir: string): Promise<Pki> {
  const caKey = join(dir, 'ca.key');
  const caFile = join(dir, 'ca.crt');
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', caKey,
    '-out', caFile, '-subj', '/CN=tls-test-ca', '-days', '2']);
  let n = 0;
  return {
    dir,
    caFile,
    async issue(cn, sans) {
      const base = join(dir, `leaf-${n++}`);
      await run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${base}.key`,
        '-out', `${base}.csr`, '-subj', `/CN=${cn}`]);
      await writeFile(`${base}.ext`, `subjectAltName=${sans.join(',')}\nextendedKeyUsage=serverAuth\n`);
      await run('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', caFile, '-CAkey', caKey, '-CAcreateserial',
        '-out', `${base}.crt`, '-days', '2', '-extfile', `${base}.ext`]);
      return { certPem: await readFile(`${base}.crt`, 'utf8'), keyPem: await readFile(`${base}.key`, 'utf8') };
    },
  };
}

/** Writes `text` to `path` by renaming a temporary file over it (one atomic replacement). */
export async function replaceFile(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}
