import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../tls/write-private-file.js';
import { mastersGroup, type UserInfo } from './user-info.js';

/** The user the generated admin token authenticates as. */
export const adminUser: UserInfo = Object.freeze({ name: 'admin', uid: 'admin', groups: Object.freeze([mastersGroup]) });

/** Where the generated admin token lives. */
export const adminTokenPath = (dataDir: string): string => join(dataDir, 'admin.token');

const tokenShape = /^[A-Za-z0-9_-]{43,}$/;

/**
 * The admin bearer token used when no authentication flag is given: 32 random bytes, base64url, created
 * once in `<data-dir>/admin.token` (0600) and reused on every later start, so a kubeconfig stays valid
 * across restarts. A file that does not hold a well-formed token is replaced.
 */
export async function ensureAdminToken(dataDir: string): Promise<string> {
  const path = adminTokenPath(dataDir);
  try {
    const existing = (await readFile(path, 'utf8')).trim();
    if (tokenShape.test(existing)) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, `${token}\n`, 0o600);
  return token;
}
