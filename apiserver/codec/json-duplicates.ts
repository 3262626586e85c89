/**
 * Duplicate keys in JSON text. `JSON.parse` silently keeps the last one; `fieldValidation=Strict|Warn`
 * must report them (`duplicate field "spec.replicas"`). One pass over text that is already known to be
 * valid JSON, tracking only object keys, so the common case costs a scan and no allocation per value.
 */

export interface DuplicateField {
  /** Kubernetes field path of the repeated key: `spec.containers[0].name`; `a` at the top level. */
  readonly path: string;
  /** 1-based line of the repeated occurrence (YAML only; JSON reports none). */
  readonly line?: number;
}

interface Frame {
  readonly object: boolean;
  readonly path: string;
  keys: Set<string> | undefined;
  /** The current key (objects) or index (arrays). */
  key: string;
  index: number;
  expectKey: boolean;
}

const QUOTE = 34;
const BACKSLASH = 92;

function childPath(f: Frame | undefined): string {
  if (f === undefined) return '';
  if (!f.object) return `${f.path}[${f.index}]`;
  return f.path === '' ? f.key : `${f.path}.${f.key}`;
}

/** End index (exclusive) of the string literal opening at `start`. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return text.length;
    let k = q - 1;
    while (k > start && text.charCodeAt(k) === BACKSLASH) k--;
    // An even number of backslashes before the quote: the quote is not escaped.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Every repeated object key in `text` (which must be valid JSON), in document order. */
export function findJsonDuplicates(text: string): DuplicateField[] {
  const out: DuplicateField[] = [];
  const stack: Frame[] = [];
  let top: Frame | undefined;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    switch (c) {
      case 123: // {
      case 91: // [
        top = { object: c === 123, path: childPath(top), keys: undefined, key: '', index: 0, expectKey: c === 123 };
        stack.push(top);
        break;
      case 125: // }
      case 93: // ]
        stack.pop();
        top = stack[stack.length - 1];
        break;
      case 44: // ,
        if (top !== undefined) {
          if (top.object) top.expectKey = true;
          else top.index++;
        }
        break;
      case 58: // :
        if (top !== undefined) top.expectKey = false;
        break;
      case QUOTE: {
        const end = stringEnd(text, i);
        if (top !== undefined && top.object && top.expectKey) {
          const raw = text.slice(i + 1, end - 1);
          const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
          top.keys ??= new Set();
          top.key = key;
          if (top.keys.has(key)) out.push({ path: childPath(top) });
          else top.keys.add(key);
        }
        i = end - 1;
        break;
      }
      default:
        break;
    }
  }
  return out;
}
