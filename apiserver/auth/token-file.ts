import { readFile } from 'node:fs/promises';
import type { UserInfo } from './user-info.js';

/** One line of a token file. */
export interface TokenEntry {
  readonly token: string;
  readonly user: UserInfo;
  /** 1-based line number, for messages. */
  readonly line: number;
}

/** A malformed token file; the message names the file and the line. */
export class TokenFileError extends Error {
  override readonly name = 'TokenFileError';
}

/**
 * Parses a static token file (kube-apiserver `--token-auth-file`): CSV lines
 * `token,user,uid[,"group1,group2"]`, more columns ignored. Blank lines are skipped; fields are trimmed;
 * a quoted field may contain commas and `""` for a quote. Errors (fewer than 3 columns, an empty token or
 * user, an unterminated quote, a duplicated token) name the line. The group list may be empty.
 */
export function parseTokenFile(text: string, source: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const seen = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    const fail = (why: string): never => {
      throw new TokenFileError(`token file ${source}, line ${line}: ${why}`);
    };
    const fields = splitCsvLine(raw) ?? fail('unterminated quoted field');
    if (fields.length < 3) {
      fail(`must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    }
    const [token, name, uid, groupList] = fields as [string, string, string, string | undefined];
    if (token === '') fail('empty token');
    if (name === '') fail('empty user name');
    const previous = seen.get(token);
    if (previous !== undefined) fail(`duplicate token (first on line ${previous})`);
    seen.set(token, line);
    const groups = (groupList ?? '').split(',').map((g) => g.trim()).filter((g) => g !== '');
    entries.push({ token, line, user: Object.freeze({ name, uid, groups: Object.freeze(groups) }) });
  });
  return entries;
}

/** Reads and parses a token file; unreadable files throw with the path. */
export async function loadTokenFile(path: string): Promise<TokenEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new TokenFileError(`cannot read token file ${path}: ${(err as Error).message}`);
  }
  return parseTokenFile(text, path);
}

/** Splits one CSV record (RFC 4180 quoting, one line); fields trimmed. undefined if a quote is unterminated. */
function splitCsvLine(line: string): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return undefined;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i];
        i++;
      }
      // Text between the closing quote and the next comma is kept, as lenient CSV readers do.
      const comma = line.indexOf(',', i);
      field += (comma < 0 ? line.slice(i) : line.slice(i, comma)).trim();
      i = comma < 0 ? line.length : comma;
    } else {
      const comma = line.indexOf(',', i);
      field = (comma < 0 ? line.slice(i) : line.slice(i, comma)).trim();
      i = comma < 0 ? line.length : comma;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++; // the comma
  }
}
