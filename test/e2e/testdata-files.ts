/**
 * Reading the shared test data (`/work/shared/testdata/...`) as it is: the YAML files under a folder, and
 * the documents of a file (multi-document files stay whole on disk; empty documents are skipped).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';

export type Json = Record<string, any>;

export interface Doc {
  /** The file's path, relative to `base` when one was given. */
  readonly file: string;
  readonly object: Json;
}

/** Every `.yaml`/`.yml` file below `dir`, in a stable (sorted) order. */
export function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? yamlFilesUnder(path) : /\.ya?ml$/.test(name) ? [path] : [];
    });
}

/** The non-empty documents of a YAML file. */
export function yamlDocs(path: string, base?: string): Doc[] {
  const file = base === undefined ? path : relative(base, path);
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as Json | null)
    .filter((o): o is Json => o !== null && typeof o === 'object')
    .map((object) => ({ file, object }));
}
