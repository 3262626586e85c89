/**
 * PEM blocks as Go's `encoding/pem.Decode` finds them (RFC 7468): text outside blocks is ignored, a
 * block is `-----BEGIN <type>-----`, optional `Key: value` header lines ended by a blank line, base64
 * lines, `-----END <type>-----` (the same type). A malformed block is skipped and the search goes on
 * after its BEGIN line, as Go does, so it is never reported as a block.
 */
export interface PemBlock {
  readonly type: string;
  /** Number of header lines (Go's `Headers`). */
  readonly headers: number;
  readonly bytes: Buffer;
}

const BEGIN = /-----BEGIN ([^\r\n]*?)-----[ \t]*\r?\n/g;
const BASE64_LINE = /^[A-Za-z0-9+/=]*$/;

export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  BEGIN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BEGIN.exec(text)) !== null) {
    const type = m[1]!;
    const bodyStart = m.index + m[0].length;
    const endMarker = `-----END ${type}-----`;
    const end = text.indexOf(endMarker, bodyStart);
    if (end < 0) continue;
    const block = parseBody(type, text.slice(bodyStart, end));
    if (block === undefined) continue;
    out.push(block);
    BEGIN.lastIndex = end + endMarker.length;
  }
  return out;
}

function parseBody(type: string, body: string): PemBlock | undefined {
  const lines = body.split(/\r?\n/).map((l) => l.trim());
  let headers = 0;
  let i = 0;
  // Headers: `Key: value` lines, then one blank line (RFC 1421 style, as Go accepts them).
  if (lines.length > 0 && lines[0]!.includes(':')) {
    while (i < lines.length && lines[i]!.includes(':')) {
      headers++;
      i++;
    }
    if (i >= lines.length || lines[i] !== '') return undefined;
    i++;
  }
  const b64 = lines.slice(i).join('');
  if (!BASE64_LINE.test(b64) || b64.length % 4 !== 0) return undefined;
  return { type, headers, bytes: Buffer.from(b64, 'base64') };
}

/** The bytes of a base64 JSON value (`[]byte` fields); undefined when absent or not a string. */
export function bytesOf(value: unknown): Buffer | undefined {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : undefined;
}

/** Go's `%#v` of a `[]byte`: `[]byte{0x2d, 0x2d}`, `[]byte(nil)` for none. */
export function goBytes(b: Buffer | undefined): string {
  if (b === undefined) return '[]byte(nil)';
  return `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`;
}
