/**
 * The embedded store's size on disk: the blocks allocated to the files of its data directory (log
 * segments, snapshots, the lock file), the counterpart of etcd's `dbSize`. Files that vanish while being
 * read (a segment removed after a snapshot) are skipped.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import type { StoreSizeMonitor } from '../size-monitor.js';

export function memorySizeMonitor(dataDir: string): StoreSizeMonitor {
  return {
    async sample() {
      let names: string[];
      try {
        names = await fsp.readdir(dataDir);
      } catch {
        return [];
      }
      let bytes = 0;
      for (const name of names) {
        try {
          const st = await fsp.stat(join(dataDir, name));
          // Physically allocated, as etcd reports; a file system without block counts gives its length.
          if (st.isFile()) bytes += st.blocks > 0 ? st.blocks * 512 : st.size;
        } catch {
          // Removed meanwhile.
        }
      }
      return [{ endpoint: dataDir, bytes }];
    },
    async close() {},
  };
}
