/**
 * Searches texts for secret values: each secret is looked for as given and in the encodings it may travel
 * in (base64, base64url, percent-encoded), so that a secret copied into a log after one encoding step is
 * still found. A hit names the text's source, the secret's label and the line it is on.
 */

export interface Text { readonly where: string; readonly text: string }
export interface Hit { readonly where: string; readonly secret: string; readonly line: string }

/** The forms `value` may be found in; values shorter than 8 characters are refused (false hits). */
export function forms(value: string): string[] {
  if (value.length < 8) throw new Error(`secret too short to search for: ${JSON.stringify(value)}`);
  const b64 = Buffer.from(value).toString('base64');
  // base64 of a value depends on its alignment inside a longer encoded text: the middle of the encoding
  // (without its last, padding-dependent characters) is found whatever the alignment of the start.
  return [...new Set([value, b64.replace(/=+$/, ''), Buffer.from(value).toString('base64url'), encodeURIComponent(value)])];
}

/** Every place a secret of `secrets` (label -> value) appears in `texts`. */
export function scan(texts: readonly Text[], secrets: ReadonlyMap<string, string>): Hit[] {
  const needles = [...secrets].flatMap(([label, value]) => forms(value).map((f) => ({ label, f })));
  const hits: Hit[] = [];
  for (const t of texts) {
    for (const { label, f } of needles) {
      const at = t.text.indexOf(f);
      if (at < 0) continue;
      const start = t.text.lastIndexOf('\n', at) + 1;
      const end = t.text.indexOf('\n', at);
      const line = t.text.slice(start, end < 0 ? undefined : end);
      const col = at - start;
      // The line's start (what it is) and the text around the hit (where in it).
      const shown = col <= 300 ? line.slice(0, col + 100) : `${line.slice(0, 150)} ... ${line.slice(col - 150, col + 100)}`;
      hits.push({ where: `${t.where}, line ${t.text.slice(0, start).split('\n').length}`, secret: label, line: shown });
    }
  }
  return hits;
}

export const describeHits = (hits: readonly Hit[]): string[] => hits.map((h) => `${h.secret} in ${h.where}: ${h.line}`);
