/**
 * RFC 6902 JSON Patch (`application/json-patch+json`) with Kubernetes' limits and answers:
 * - more than 10,000 operations: 413 `Request entity too large: The allowed maximum operations in a JSON
 *   patch is 10000, got N` (checked before anything is applied);
 * - `copy` operations may add at most `maxCopyBytes` (default 3 MiB, the request body limit) of JSON in
 *   total, so a small patch cannot blow a document up exponentially;
 * - a document that is not an array of operation objects: 400 BadRequest;
 * - an operation that does not apply (missing path, bad index, failed `test`, unknown op): 422 with reason
 *   Invalid, message `the server rejected our request due to an error in our request` and empty details:
 *   kube answers with its generic server response built with isUnexpectedResponse=false, so the library's
 *   detail is not sent (kubectl prints `The request is invalid`). The detail stays on the error (`detail`).
 *
 * Array indices follow RFC 6901 strictly: no negative indices, no leading zeros; `-` appends (add, and the
 * destination of move/copy). Operations apply in order; one failure fails the whole patch.
 */
import { badRequest, requestEntityTooLarge } from '../../errors/constructors.js';
import { StatusError } from '../../errors/status-error.js';
import { parseIndex, parsePointer } from './json-pointer.js';
import { hasMember, isObject, jsonClone, jsonEqual, setMember, type JsonObject } from './json-value.js';

export const MAX_JSON_PATCH_OPERATIONS = 10_000;
export const DEFAULT_MAX_COPY_BYTES = 3 * 1024 * 1024;

export interface JsonPatchOptions {
  /** Cap on the JSON bytes all `copy` operations may add together. Default 3 MiB; 0 disables the cap. */
  readonly maxCopyBytes?: number;
  /**
   * Apply to `doc` in place instead of to a deep copy. Only for callers that own `doc` and drop it when the
   * patch fails (a failed patch leaves it half-applied). Default false.
   */
  readonly mutate?: boolean;
}

interface Op {
  readonly op: string;
  readonly path: string;
  readonly from?: string;
  readonly hasValue: boolean;
  readonly value: unknown;
}

/** 422 as kube answers a JSON patch that does not apply; `detail` says why, for logs and tests, never sent. */
export class JsonPatchNotApplicable extends StatusError {
  constructor(readonly detail: string) {
    super('Invalid', 'the server rejected our request due to an error in our request', {});
  }
}

export function patchNotApplicable(detail: string): JsonPatchNotApplicable {
  return new JsonPatchNotApplicable(detail);
}

class NotApplicable extends Error {}
const fail = (msg: string): never => {
  throw new NotApplicable(msg);
};

/** Checks the shape of a patch document (already parsed from JSON) and the operation count. */
export function decodeJsonPatch(patch: unknown): Op[] {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  return patch.map((raw) => {
    if (!isObject(raw)) throw badRequest('json: cannot unmarshal non-object into Go value of type jsonpatch.Operation');
    const str = (k: string): string | undefined => {
      const v = raw[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') throw badRequest(`json: cannot unmarshal ${typeof v} into Go value of type string (field "${k}")`);
      return v;
    };
    const op = str('op') ?? 'unknown';
    const path = str('path');
    const from = str('from');
    return { op, path: path ?? '\0missing', ...(from === undefined ? {} : { from }), hasValue: hasMember(raw, 'value'), value: raw.value };
  });
}

/**
 * Applies an RFC 6902 patch (parsed JSON) to `doc` and returns the result. Throws StatusError 400/413/422
 * as described above. Without `mutate`, `doc` is left untouched and the result shares nothing with it or
 * with the patch.
 */
export function applyJsonPatch(doc: unknown, patch: unknown, options: JsonPatchOptions = {}): unknown {
  const ops = decodeJsonPatch(patch);
  const limit = options.maxCopyBytes ?? DEFAULT_MAX_COPY_BYTES;
  const box = { root: options.mutate === true ? doc : jsonClone(doc) };
  let copied = 0;
  try {
    for (const op of ops) {
      switch (op.op) {
        case 'add':
          add(box, need(op.path, 'add', 'path'), needValue(op, 'add'), 'add');
          break;
        case 'remove':
          remove(box, need(op.path, 'remove', 'path'), 'remove');
          break;
        case 'replace':
          replace(box, need(op.path, 'replace', 'path'), needValue(op, 'replace'));
          break;
        case 'move': {
          const from = need(op.from, 'move', 'from');
          const path = need(op.path, 'move', 'path');
          if (path !== from && path.startsWith(`${from}/`)) fail(`move operation does not apply: from "${from}" is a prefix of path "${path}"`);
          if (path === from) break;
          const v = remove(box, from, 'move');
          add(box, path, v, 'move');
          break;
        }
        case 'copy': {
          const from = need(op.from, 'copy', 'from');
          const path = need(op.path, 'copy', 'path');
          const v = get(box.root, from, 'copy');
          copied += JSON.stringify(v)?.length ?? 0;
          if (limit > 0 && copied > limit) {
            fail(`Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${limit}`);
          }
          add(box, path, jsonClone(v), 'copy');
          break;
        }
        case 'test': {
          const path = need(op.path, 'test', 'path');
          const v = get(box.root, path, 'test');
          if (!jsonEqual(v, op.hasValue ? op.value : null)) fail(`testing value ${path} failed: test failed`);
          break;
        }
        default:
          fail(`Unexpected kind: ${op.op}`);
      }
    }
  } catch (err) {
    if (err instanceof NotApplicable) throw patchNotApplicable(err.message);
    throw err;
  }
  return box.root;
}

function need(v: string | undefined, op: string, field: string): string {
  if (v === undefined || v === '\0missing') return fail(`${op} operation failed to decode ${field}: missing value`);
  return v;
}

function needValue(op: Op, name: string): unknown {
  if (!op.hasValue) fail(`${name} operation, missing value field: missing value`);
  return jsonClone(op.value);
}

function tokens(pointer: string): string[] {
  const t = parsePointer(pointer);
  if (typeof t === 'string') fail(t);
  return t as string[];
}

/** The container holding the last token of `pointer`, or undefined when a parent is missing. */
function parentOf(root: unknown, toks: readonly string[]): unknown[] | JsonObject | undefined {
  let cur: unknown = root;
  for (let i = 0; i < toks.length - 1; i++) {
    const t = toks[i]!;
    if (Array.isArray(cur)) {
      const idx = parseIndex(t);
      if (idx === undefined || idx >= cur.length) return undefined;
      cur = cur[idx];
    } else if (isObject(cur)) {
      if (!hasMember(cur, t)) return undefined;
      cur = cur[t];
    } else {
      return undefined;
    }
  }
  return Array.isArray(cur) || isObject(cur) ? cur : undefined;
}

function get(root: unknown, pointer: string, op: string): unknown {
  const toks = tokens(pointer);
  if (toks.length === 0) return root;
  const parent = parentOf(root, toks);
  const key = toks[toks.length - 1]!;
  if (parent === undefined) return fail(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  if (Array.isArray(parent)) {
    const idx = parseIndex(key);
    if (idx === undefined || idx >= parent.length) return fail(`error in ${op} for path: '${pointer}': Unable to access invalid index: ${key}: invalid index referenced`);
    return parent[idx];
  }
  if (!hasMember(parent, key)) return fail(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  return parent[key];
}

function add(box: { root: unknown }, pointer: string, value: unknown, op: string): void {
  const toks = tokens(pointer);
  if (toks.length === 0) {
    box.root = value;
    return;
  }
  const parent = parentOf(box.root, toks);
  const key = toks[toks.length - 1]!;
  if (parent === undefined) return void fail(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  if (Array.isArray(parent)) {
    if (key === '-') {
      parent.push(value);
      return;
    }
    const idx = parseIndex(key);
    if (idx === undefined || idx > parent.length) {
      return void fail(`error in ${op} for path: '${pointer}': Unable to access invalid index: ${key}: invalid index referenced`);
    }
    parent.splice(idx, 0, value);
    return;
  }
  setMember(parent, key, value);
}

function remove(box: { root: unknown }, pointer: string, op: string): unknown {
  const toks = tokens(pointer);
  if (toks.length === 0) return fail(`${op} operation does not apply: cannot remove the whole document`);
  const parent = parentOf(box.root, toks);
  const key = toks[toks.length - 1]!;
  if (parent === undefined) return fail(`${op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  if (Array.isArray(parent)) {
    const idx = parseIndex(key);
    if (idx === undefined || idx >= parent.length) return fail(`error in ${op} for path: '${pointer}': Unable to access invalid index: ${key}: invalid index referenced`);
    return parent.splice(idx, 1)[0];
  }
  if (!hasMember(parent, key)) return fail(`error in ${op} for path: '${pointer}': Unable to remove nonexistent key: ${key}: missing value`);
  const v = parent[key];
  delete parent[key];
  return v;
}

function replace(box: { root: unknown }, pointer: string, value: unknown): void {
  const toks = tokens(pointer);
  if (toks.length === 0) {
    box.root = value;
    return;
  }
  const parent = parentOf(box.root, toks);
  const key = toks[toks.length - 1]!;
  if (parent === undefined) return void fail(`replace operation does not apply: doc is missing path: ${pointer}: missing value`);
  if (Array.isArray(parent)) {
    const idx = parseIndex(key);
    if (idx === undefined || idx >= parent.length) return void fail(`replace operation does not apply: doc is missing key: ${pointer}: missing value`);
    parent[idx] = value;
    return;
  }
  if (!hasMember(parent, key)) return void fail(`replace operation does not apply: doc is missing key: ${pointer}: missing value`);
  setMember(parent, key, value);
}
