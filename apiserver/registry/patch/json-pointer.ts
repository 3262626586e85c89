/**
 * RFC 6901 JSON Pointers: `""` is the whole document, `/a/b` walks members, `~1` is `/` and `~0` is `~`.
 */

/** The reference tokens of a pointer, or an error text when it is malformed. */
export function parsePointer(pointer: string): string[] | string {
  if (pointer === '') return [];
  if (pointer[0] !== '/') return `JSON pointer must be empty or start with '/': "${pointer}"`;
  const parts = pointer.slice(1).split('/');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (!p.includes('~')) continue;
    if (/~[^01]|~$/.test(p)) return `invalid escape in JSON pointer: "${pointer}"`;
    parts[i] = p.replace(/~1/g, '/').replace(/~0/g, '~');
  }
  return parts;
}

/** An array index token: `0` or a number without leading zeros (RFC 6901 section 4). */
export function parseIndex(token: string): number | undefined {
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const n = Number(token);
  return Number.isSafeInteger(n) ? n : undefined;
}
