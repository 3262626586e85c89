import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile, chmod } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `path` atomically (temp file + rename, so a crash never leaves half a key) with `mode`
 * (0600 for secrets). The directory is created 0700 when missing.
 */
export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, data, { mode });
  // writeFile honours the umask; chmod makes the mode exact.
  await chmod(tmp, mode);
  await rename(tmp, path);
}
